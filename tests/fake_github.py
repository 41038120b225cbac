"""Loopback fake of the GitHub REST API, backed by real bare git repositories.

Only the endpoints the follow-up bot needs are served, with the response shapes GitHub documents (trimmed to the
fields PyGithub reads). Every ``url`` field is an absolute URL on this server, because PyGithub sends follow-up
requests (``PullRequest.edit`` -> PATCH ``self.url``, comments/labels -> ``issue_url``...) to those URLs.
"""

from __future__ import annotations

import base64
import contextlib
import http
import itertools
import json
import os
import re
import secrets
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

try:  # optional: only used to verify app JWT signatures
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    HAVE_CRYPTOGRAPHY = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_CRYPTOGRAPHY = False

DOCS_URL = "https://docs.github.com/rest"
SECONDARY_RATE_LIMIT = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID 0000:FAKE."
)
MERGE_ENV = {f"GIT_{who}_{part}": value for who in ("AUTHOR", "COMMITTER")
             for part, value in (("NAME", "GitHub"), ("EMAIL", "noreply@github.com"))}
PHRASES = {status.value: status.phrase for status in http.HTTPStatus}
Json = Any
Response = tuple[int, Json, dict[str, str]]


class ApiError(Exception):
    """An error response in GitHub's JSON error shape."""

    def __init__(self, status: int, message: str, errors: list[dict[str, str]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.payload: dict[str, Any] = {"message": message, "documentation_url": DOCS_URL, "status": str(status)}
        if errors:
            self.payload["errors"] = errors


def _validation(message: str | None = None, **error: str) -> ApiError:
    """422 "Validation Failed" with one entry in ``errors``."""
    entry = {"resource": "PullRequest", **error}
    if message:
        entry.update(code="custom", message=message)
    return ApiError(422, "Validation Failed", [entry])


MAX_BODY, MAX_TITLE = 65_536, 256  # GitHub's limits on a pull request's (or a comment's) body and a title


def _within_limits(body: dict[str, Any], resource: str = "PullRequest") -> None:
    """422 as GitHub answers a body or title over its limit."""
    for key, limit in (("body", MAX_BODY), ("title", MAX_TITLE)):
        value = body.get(key)
        if isinstance(value, str) and len(value) > limit:
            message = f"{key} is too long (maximum is {limit} characters)"
            raise ApiError(422, "Validation Failed", [{"resource": resource, "field": key, "code": "custom",
                                                       "message": message}])


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _iso_z(stamp: str) -> str:
    return datetime.fromisoformat(stamp).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _b64url(data: str) -> bytes:
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


@dataclass
class Fault:
    """One injected failure; see :meth:`FakeGitHub.inject`."""

    method: str
    pattern: re.Pattern[str]
    status: int | None
    times: int
    retry_after: int | None
    drop: bool
    delay: float
    after_apply: bool

    def response(self) -> Response:
        assert self.status is not None
        headers: dict[str, str] = {}
        message = PHRASES.get(self.status, "Error")
        if self.status in (403, 429) and (self.retry_after is not None or self.status == 429):
            message = SECONDARY_RATE_LIMIT
            headers["Retry-After"] = str(self.retry_after if self.retry_after is not None else 1)
        return self.status, {"message": message, "documentation_url": DOCS_URL, "status": str(self.status)}, headers


@dataclass
class _Repo:
    full_name: str
    path: Path
    default_branch: str
    id: int
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, int] = field(default_factory=dict)  # name -> label id

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]


@dataclass
class _Request:
    method: str
    path: str
    params: dict[str, str]
    body: Json
    groups: dict[str, str]
    login: str | None = None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60
    fake: FakeGitHub

    def setup(self) -> None:
        super().setup()
        self.fake._conns.add(self.connection)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.fake._conns.discard(self.connection)

    def _any(self) -> None:
        self.fake._serve(self)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _any

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""


class FakeGitHub:
    """A threaded HTTP fake of the GitHub REST API on 127.0.0.1 (random port); pass :attr:`url` as ``base_url``."""

    def __init__(
        self, tokens: dict[str, str] | None = None, logins: dict[str, str] | None = None, prefix: str = ""
    ) -> None:
        self.tokens: dict[str, str] = dict(tokens or {})
        self.logins: dict[str, str] = dict(logins or {})
        self.requests: list[tuple[str, str, int]] = []
        self._prefix = prefix.rstrip("/")
        self._repos: dict[str, _Repo] = {}
        self._comments: dict[int, dict[str, Any]] = {}
        self._faults: list[Fault] = []
        self._ids = itertools.count(1001)
        self._user_ids: dict[str, int] = {}
        self._app: tuple[str, int, Any] | None = None
        self._bot_login = "followup-bot[bot]"
        self._lock = threading.RLock()
        self._conns: set[socket.socket] = set()
        self._routes = self._build_routes()
        handler = type("FakeGitHubHandler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.url = self.origin + self._prefix
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    # ----------------------------------------------------------------- lifecycle
    def __enter__(self) -> FakeGitHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving and close open keep-alive connections."""
        self._server.shutdown()
        self._server.server_close()
        for conn in list(self._conns):
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)

    # ----------------------------------------------------------------- configuration
    def add_repo(self, full_name: str, bare_path: Path, default_branch: str = "main") -> None:
        """Serve ``full_name`` ("owner/name") from the bare repository at ``bare_path``."""
        with self._lock:
            self._repos[full_name] = _Repo(full_name, Path(bare_path), default_branch, next(self._ids))

    def set_app(self, app_id: str, installation_id: int, public_key_pem: bytes | None = None) -> None:
        """Enable the GitHub App flow; JWT signatures are checked when a key is given and cryptography exists."""
        key = None
        if public_key_pem is not None and HAVE_CRYPTOGRAPHY:
            key = serialization.load_pem_public_key(public_key_pem)
        self._app = (str(app_id), installation_id, key)

    def inject(
        self,
        method: str,
        path_regex: str,
        *,
        status: int | None = None,
        times: int = 1,
        retry_after: int | None = None,
        drop: bool = False,
        delay: float = 0.0,
        after_apply: bool = False,
    ) -> None:
        """Fail the next ``times`` requests whose method matches (``*`` = any) and path (no query) re.search-es.

        ``status``: answer with that status and a GitHub error body (403+retry_after / 429: secondary rate limit with
        Retry-After). ``drop``: close the connection without answering. ``delay``: sleep first. ``after_apply``: apply
        the request for real, then fail/drop its response.
        """
        fault = Fault(method.upper(), re.compile(path_regex), status, times, retry_after, drop, delay, after_apply)
        with self._lock:
            self._faults.append(fault)

    @property
    def request_count(self) -> int:
        return len(self.requests)

    @property
    def write_count(self) -> int:
        return sum(1 for method, _, _ in self.requests if method not in ("GET", "HEAD"))

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()

    # ----------------------------------------------------------------- direct state access for tests
    def pulls(self, full_name: str) -> list[dict[str, Any]]:
        """Copies of the stored pull records (keys: number, state, merged, title, body, head, base, labels, ...)."""
        with self._lock:
            return [dict(pr, labels=list(pr["labels"])) for pr in self._repos[full_name].pulls.values()]

    def pull(self, full_name: str, number: int) -> dict[str, Any]:
        with self._lock:
            pr = self._repos[full_name].pulls[number]
            return dict(pr, labels=list(pr["labels"]))

    def close_pull(self, full_name: str, number: int) -> None:
        with self._lock:
            pr = self._repos[full_name].pulls[number]
            pr.update(state="closed", closed_at=_now(), updated_at=_now())

    def merge_pull(self, full_name: str, number: int, method: str = "merge") -> str:
        """Merge as if a human pressed the button; returns the new base sha."""
        with self._lock:
            repo = self._repos[full_name]
            return self._merge(repo, repo.pulls[number], method, None, None, None, "octocat")

    def comments(self, full_name: str, number: int) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(c) for c in self._comments.values() if c["repo"] == full_name and c["issue"] == number]

    def branches(self, full_name: str) -> dict[str, str]:
        """Branch name -> sha, read from the bare repository now."""
        repo = self._repos[full_name]
        out = self._git(repo, "for-each-ref", "--format=%(refname:strip=2)%00%(objectname)", "refs/heads/")
        return dict(line.split("\0", 1) for line in out.splitlines() if line)

    # ----------------------------------------------------------------- git
    def _run(self, repo: _Repo, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, **(env or {})}
        cmd = ["git", "--git-dir", str(repo.path), *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=full_env, check=False)

    def _git(self, repo: _Repo, *args: str, env: dict[str, str] | None = None) -> str:
        proc = self._run(repo, *args, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout

    def _sha(self, repo: _Repo, branch: str) -> str | None:
        proc = self._run(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
        sha = proc.stdout.strip()
        return sha if proc.returncode == 0 and sha else None

    def _log(self, repo: _Repo, rev_range: str) -> list[dict[str, str]]:
        fmt = "%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x1e"
        out = self._git(repo, "log", "--reverse", f"--format={fmt}", rev_range, "--")
        keys = ("sha", "tree", "parents", "an", "ae", "ad", "cn", "ce", "cd", "message")
        return [dict(zip(keys, rec.lstrip("\n").split("\0"))) for rec in out.split("\x1e") if rec.strip()]

    def _pr_range(self, repo: _Repo, pr: dict[str, Any]) -> str:
        if pr["merged"]:
            return f"{pr['base_sha_at_merge']}..{pr['head_sha']}"
        base = self._sha(repo, pr["base"]) or pr["base_sha_at_merge"] or pr["head_sha"]
        return f"{base}..{self._head_sha(repo, pr)}"

    def _head_sha(self, repo: _Repo, pr: dict[str, Any]) -> str:
        sha = self._sha(repo, pr["head"]) if not pr["merged"] else None
        if sha:
            pr["head_sha"] = sha
        return str(pr["head_sha"])

    def _merge(self, repo: _Repo, pr: dict[str, Any], method: str, title: str | None, message: str | None,
               expected_sha: str | None, merged_by: str) -> str:
        """Merge head into base in the bare repo (merge commit, squash, or fast-forward for rebase)."""
        base_sha, head_sha = self._sha(repo, pr["base"]), self._sha(repo, pr["head"])
        if pr["state"] != "open" or pr["merged"] or base_sha is None or head_sha is None:
            raise ApiError(405, "Pull Request is not mergeable")
        if expected_sha and expected_sha != head_sha:
            raise ApiError(409, "Head branch was modified. Review and try the merge again.")
        if method == "rebase":
            if self._run(repo, "merge-base", "--is-ancestor", base_sha, head_sha).returncode != 0:
                raise ApiError(405, "This branch can't be rebased")
            new_sha = head_sha
        else:
            tree = self._run(repo, "merge-tree", "--write-tree", base_sha, head_sha)
            if tree.returncode != 0:
                raise ApiError(405, "Merge conflict")
            if method == "squash":
                subject, parents = title or f"{pr['title']} (#{pr['number']})", ["-p", base_sha]
            else:
                default = f"Merge pull request #{pr['number']} from {repo.owner}/{pr['head']}"
                subject, parents = title or default, ["-p", base_sha, "-p", head_sha]
            body = message if message is not None else pr["title"]
            msg_args = ["-m", subject] + (["-m", body] if body else [])
            new_sha = self._git(repo, "commit-tree", tree.stdout.split()[0], *parents, *msg_args, env=MERGE_ENV).strip()
        self._git(repo, "update-ref", f"refs/heads/{pr['base']}", new_sha, base_sha)
        stamp = _now()
        pr.update(state="closed", merged=True, merged_at=stamp, closed_at=stamp, updated_at=stamp,
                  merge_commit_sha=new_sha, base_sha_at_merge=base_sha, head_sha=head_sha, merged_by=merged_by)
        return new_sha

    # ----------------------------------------------------------------- HTTP plumbing
    def _serve(self, h: _Handler) -> None:
        split = urlsplit(h.path)
        path = split.path
        if self._prefix and path.startswith(self._prefix):
            path = path[len(self._prefix):] or "/"
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        fault = self._take_fault(h.command, path)
        if fault and fault.delay:
            time.sleep(fault.delay)
        failing = fault if fault and (fault.status is not None or fault.drop) else None
        if failing and not failing.after_apply:
            result: Response | None = None if failing.drop else failing.response()
        else:
            with self._lock:
                result = self._dispatch(h, path, dict(parse_qsl(split.query)), raw)
            if failing:
                result = None if failing.drop else failing.response()
        with self._lock:
            self.requests.append((h.command, path, result[0] if result else 0))
        if result is None:
            h.close_connection = True
            with contextlib.suppress(OSError):
                h.connection.shutdown(socket.SHUT_RDWR)
            return
        self._respond(h, *result)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.method in ("*", method) and fault.pattern.search(path):
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def _respond(self, h: _Handler, status: int, payload: Json, headers: dict[str, str]) -> None:
        data = b"" if status == 204 or payload is None else json.dumps(payload).encode()
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json; charset=utf-8")
            h.send_header("X-GitHub-Request-Id", secrets.token_hex(8).upper())
            for name, value in headers.items():
                h.send_header(name, value)
            if status != 204:
                h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            if h.command != "HEAD":
                h.wfile.write(data)
        except OSError:
            h.close_connection = True

    def _dispatch(self, h: _Handler, path: str, params: dict[str, str], raw: bytes) -> Response:
        method = "GET" if h.command == "HEAD" else h.command
        try:
            for verb, pattern, auth, func in self._routes:
                match = pattern.fullmatch(path)
                if match and method in verb.split("|"):
                    body = json.loads(raw) if raw.strip() else None
                    req = _Request(method, path, params, body, {k: unquote(v) for k, v in match.groupdict().items()})
                    req.login = self._authenticate(h.headers.get("Authorization", ""), auth)
                    return func(req)
            raise ApiError(404, "Not Found")
        except json.JSONDecodeError:
            return 400, {"message": "Problems parsing JSON", "documentation_url": DOCS_URL, "status": "400"}, {}
        except ApiError as err:
            return err.status, err.payload, {}
        except Exception as exc:  # a bug in the fake: answer 500 rather than hang the client
            return 500, {"message": f"fake_github: {exc!r}", "documentation_url": DOCS_URL, "status": "500"}, {}

    def _authenticate(self, header: str, kind: str) -> str:
        scheme, _, credential = header.partition(" ")
        if not credential or scheme.lower() not in ("token", "bearer"):
            raise ApiError(401, "Requires authentication")
        if kind == "app":
            if self._valid_jwt(credential):
                return "app"
            raise ApiError(401, "A JSON web token could not be decoded")
        if credential in self.tokens:
            return self.tokens[credential]
        if self._valid_jwt(credential):
            raise ApiError(403, "Resource not accessible by integration")
        raise ApiError(401, "Bad credentials")

    def _valid_jwt(self, token: str) -> bool:
        if self._app is None or token.count(".") != 2:
            return False
        head_b64, payload_b64, sig_b64 = token.split(".")
        try:
            header, payload = json.loads(_b64url(head_b64)), json.loads(_b64url(payload_b64))
        except ValueError:
            return False
        if str(payload.get("iss")) != self._app[0] or int(payload.get("exp", 0)) < time.time():
            return False
        key = self._app[2]
        if key is None:
            return True
        if header.get("alg") != "RS256":
            return False
        try:
            key.verify(_b64url(sig_b64), f"{head_b64}.{payload_b64}".encode(), padding.PKCS1v15(), hashes.SHA256())
        except Exception:
            return False
        return True

    def _page(self, req: _Request, items: list[Json]) -> Response:
        """Slice ``items`` by per_page/page and add a GitHub-style Link header."""
        per_page = max(1, min(100, int(req.params.get("per_page", 30))))
        page = max(1, int(req.params.get("page", 1)))
        last = max(1, -(-len(items) // per_page))
        links = []
        rels = (("prev", page - 1), ("next", page + 1), ("last", last), ("first", 1))
        for rel, number in rels:
            if (rel in ("prev", "first") and page > 1) or (rel in ("next", "last") and page < last):
                query = urlencode({**req.params, "page": number})
                links.append(f'<{self.url}{req.path}?{query}>; rel="{rel}"')
        headers = {"Link": ", ".join(links)} if links else {}
        return 200, items[(page - 1) * per_page : page * per_page], headers

    # ----------------------------------------------------------------- JSON shapes
    def _user(self, login: str) -> dict[str, Any]:
        uid = self._user_ids.setdefault(login, 5000 + len(self._user_ids))
        return {"login": login, "id": uid, "node_id": f"U_{uid}", "type": "Bot" if login.endswith("[bot]") else "User",
                "url": f"{self.url}/users/{quote(login)}", "html_url": f"{self.origin}/{quote(login)}",
                "site_admin": False}

    def _repo_json(self, repo: _Repo) -> dict[str, Any]:
        api = f"{self.url}/repos/{repo.full_name}"
        return {"id": repo.id, "node_id": f"R_{repo.id}", "name": repo.full_name.split("/", 1)[1],
                "full_name": repo.full_name, "owner": self._user(repo.owner), "private": False,
                "html_url": f"{self.origin}/{repo.full_name}", "url": api, "pulls_url": f"{api}/pulls{{/number}}",
                "clone_url": repo.path.resolve().as_uri(), "default_branch": repo.default_branch, "fork": False,
                "archived": False, "permissions": {"admin": False, "push": True, "pull": True}}

    def _label_json(self, repo: _Repo, name: str) -> dict[str, Any]:
        lid = repo.labels.setdefault(name, next(self._ids))
        return {"id": lid, "node_id": f"LA_{lid}", "url": f"{self.url}/repos/{repo.full_name}/labels/{quote(name)}",
                "name": name, "color": "ededed", "default": False, "description": None}

    def _pull_json(self, repo: _Repo, pr: dict[str, Any], full: bool = True) -> dict[str, Any]:
        api = f"{self.url}/repos/{repo.full_name}"
        url, issue_url = f"{api}/pulls/{pr['number']}", f"{api}/issues/{pr['number']}"
        html = f"{self.origin}/{repo.full_name}/pull/{pr['number']}"
        repo_json = self._repo_json(repo)

        def part(ref: str, sha: str) -> dict[str, Any]:
            return {"label": f"{repo.owner}:{ref}", "ref": ref, "sha": sha, "user": self._user(repo.owner),
                    "repo": repo_json}

        head_sha, base_sha = self._head_sha(repo, pr), self._sha(repo, pr["base"]) or pr["base_sha_at_merge"] or ""
        data = {
            "url": url, "id": pr["id"], "node_id": f"PR_{pr['id']}", "html_url": html, "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch", "issue_url": issue_url, "commits_url": f"{url}/commits",
            "review_comments_url": f"{url}/comments", "comments_url": f"{issue_url}/comments",
            "statuses_url": f"{api}/statuses/{head_sha}", "number": pr["number"], "state": pr["state"],
            "locked": False, "title": pr["title"], "body": pr["body"], "user": self._user(pr["user"]),
            "labels": [self._label_json(repo, name) for name in pr["labels"]], "created_at": pr["created_at"],
            "updated_at": pr["updated_at"], "closed_at": pr["closed_at"], "merged_at": pr["merged_at"],
            "merge_commit_sha": pr["merge_commit_sha"], "draft": pr["draft"],
            "head": part(pr["head"], head_sha), "base": part(pr["base"], base_sha),
            "author_association": "NONE",
        }
        if full:
            count = len(self._log(repo, self._pr_range(repo, pr)))
            merged_by = self._user(pr["merged_by"]) if pr["merged_by"] else None
            data.update(merged=pr["merged"], mergeable=True if pr["state"] == "open" else None,
                        mergeable_state="clean" if pr["state"] == "open" else "unknown", merged_by=merged_by,
                        commits=count, comments=len(self.comments(repo.full_name, pr["number"])))
        return data

    def _comment_json(self, c: dict[str, Any]) -> dict[str, Any]:
        api = f"{self.url}/repos/{c['repo']}"
        return {"id": c["id"], "node_id": f"IC_{c['id']}", "url": f"{api}/issues/comments/{c['id']}",
                "html_url": f"{self.origin}/{c['repo']}/pull/{c['issue']}#issuecomment-{c['id']}",
                "issue_url": f"{api}/issues/{c['issue']}", "body": c["body"], "user": self._user(c["user"]),
                "created_at": c["created_at"], "updated_at": c["updated_at"], "author_association": "NONE"}

    def _commit_json(self, repo: _Repo, c: dict[str, str]) -> dict[str, Any]:
        api = f"{self.url}/repos/{repo.full_name}"

        def person(name: str, email: str, date: str) -> dict[str, str]:
            return {"name": name, "email": email, "date": _iso_z(date)}

        def login(email: str) -> str:
            return self.logins.get(email, email.split("@", 1)[0])

        return {
            "sha": c["sha"], "node_id": f"C_{c['sha']}", "url": f"{api}/commits/{c['sha']}",
            "html_url": f"{self.origin}/{repo.full_name}/commit/{c['sha']}",
            "commit": {"author": person(c["an"], c["ae"], c["ad"]), "committer": person(c["cn"], c["ce"], c["cd"]),
                       "message": c["message"].rstrip("\n"), "url": f"{api}/git/commits/{c['sha']}",
                       "tree": {"sha": c["tree"], "url": f"{api}/git/trees/{c['tree']}"}},
            "author": self._user(login(c["ae"])), "committer": self._user(login(c["ce"])),
            "parents": [{"sha": p, "url": f"{api}/commits/{p}"} for p in c["parents"].split()],
        }

    # ----------------------------------------------------------------- routes
    def _build_routes(self) -> list[tuple[str, re.Pattern[str], str, Callable[[_Request], Response]]]:
        repo = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
        table: list[tuple[str, str, Callable[[_Request], Response]]] = [
            ("GET", r"/user", self._get_user),
            ("GET", repo, lambda r: (200, self._repo_json(self._find(r)), {})),
            ("GET", repo + r"/branches/(?P<branch>.+)", self._get_branch),
            ("GET", repo + r"/git/refs?/heads/(?P<branch>.+)", self._get_branch),
            ("DELETE", repo + r"/git/refs/heads/(?P<branch>.+)", self._delete_ref),
            ("GET", repo + r"/pulls", self._list_pulls),
            ("POST", repo + r"/pulls", self._create_pull),
            ("GET", repo + r"/pulls/(?P<n>\d+)", lambda r: (200, self._pull_json(self._find(r), self._pr(r)), {})),
            ("PATCH", repo + r"/pulls/(?P<n>\d+)", self._edit_pull),
            ("GET", repo + r"/pulls/(?P<n>\d+)/merge", self._is_merged),
            ("PUT", repo + r"/pulls/(?P<n>\d+)/merge", self._merge_pull),
            ("GET", repo + r"/pulls/(?P<n>\d+)/commits", self._pull_commits),
            ("GET", repo + r"/issues/(?P<n>\d+)", self._get_issue),
            ("GET", repo + r"/issues/(?P<n>\d+)/comments", self._list_comments),
            ("POST", repo + r"/issues/(?P<n>\d+)/comments", self._create_comment),
            ("GET|PATCH|DELETE", repo + r"/issues/comments/(?P<cid>\d+)", self._comment_op),
            ("GET|POST|PUT", repo + r"/issues/(?P<n>\d+)/labels", self._labels_op),
            ("DELETE", repo + r"/issues/(?P<n>\d+)/labels/(?P<label>[^/]+)", self._labels_op),
            ("GET", repo + r"/installation", self._installation),
            ("POST", r"/app/installations/(?P<iid>\d+)/access_tokens", self._access_token),
        ]
        app_only = {self._installation, self._access_token}
        return [(verb, re.compile(rx), "app" if fn in app_only else "user", fn) for verb, rx, fn in table]

    def _find(self, req: _Request) -> _Repo:
        repo = self._repos.get(f"{req.groups['owner']}/{req.groups['repo']}")
        if repo is None:
            raise ApiError(404, "Not Found")
        return repo

    def _pr(self, req: _Request) -> dict[str, Any]:
        pr = self._find(req).pulls.get(int(req.groups["n"]))
        if pr is None:
            raise ApiError(404, "Not Found")
        return pr

    def _body(self, req: _Request, require: str | None = None) -> dict[str, Any]:
        body = req.body if isinstance(req.body, dict) else {}
        if require and not isinstance(body.get(require), str):
            raise ApiError(422, "Validation Failed", [{"resource": "IssueComment", "field": require,
                                                      "code": "missing_field"}])
        return body

    def _get_user(self, req: _Request) -> Response:
        assert req.login is not None
        if req.login == self._bot_login:
            raise ApiError(403, "Resource not accessible by integration")
        return 200, {**self._user(req.login), "name": req.login, "email": None}, {}

    def _get_branch(self, req: _Request) -> Response:
        """GET .../branches/{b} (Branch shape) or .../git/ref(s)/heads/{b} (GitRef shape)."""
        repo, name, is_ref = self._find(req), req.groups["branch"], "/git/" in req.path
        sha = self._sha(repo, name)
        if sha is None:
            raise ApiError(404, "Not Found" if is_ref else "Branch not found")
        api = f"{self.url}/repos/{repo.full_name}"
        if not is_ref:
            return 200, {"name": name, "commit": {"sha": sha, "url": f"{api}/commits/{sha}"}, "protected": False,
                         "_links": {"self": f"{api}/branches/{quote(name)}"}}, {}
        return 200, {"ref": f"refs/heads/{name}", "node_id": f"REF_{sha[:12]}",
                     "url": f"{api}/git/refs/heads/{quote(name)}",
                     "object": {"sha": sha, "type": "commit", "url": f"{api}/git/commits/{sha}"}}, {}

    def _delete_ref(self, req: _Request) -> Response:
        repo, name = self._find(req), req.groups["branch"]
        if self._sha(repo, name) is None:
            raise ApiError(422, "Reference does not exist")
        self._git(repo, "update-ref", "-d", f"refs/heads/{name}")
        return 204, None, {}

    def _list_pulls(self, req: _Request) -> Response:
        repo, p = self._find(req), req.params
        state = p.get("state", "open")
        pulls = [pr for pr in repo.pulls.values() if state == "all" or pr["state"] == state]
        if ":" in p.get("head", ""):  # GitHub silently ignores a head filter without "owner:"
            owner, _, branch = p["head"].partition(":")
            pulls = [pr for pr in pulls if owner == repo.owner and pr["head"] == branch]
        if "base" in p:
            pulls = [pr for pr in pulls if pr["base"] == p["base"]]
        sort = p.get("sort", "created")
        key = "updated_at" if sort == "updated" else "created_at"
        direction = p.get("direction", "desc" if sort == "created" else "asc")
        pulls.sort(key=lambda pr: (pr[key], pr["number"]), reverse=direction == "desc")
        return self._page(req, [self._pull_json(repo, pr, full=False) for pr in pulls])

    def _no_open_duplicate(self, repo: _Repo, head: str, base: str) -> None:
        if any(pr["state"] == "open" and pr["head"] == head and pr["base"] == base for pr in repo.pulls.values()):
            raise _validation(f"A pull request already exists for {repo.owner}:{head}.")

    def _split_head(self, repo: _Repo, head: str) -> str:
        owner, sep, branch = head.rpartition(":")
        if sep and owner != repo.owner:
            raise _validation(field="head", code="invalid")
        return branch

    def _create_pull(self, req: _Request) -> Response:
        repo, body = self._find(req), self._body(req)
        _within_limits(body)
        head = self._split_head(repo, str(body.get("head", "")))
        base = str(body.get("base", ""))
        head_sha, base_sha = self._sha(repo, head) if head else None, self._sha(repo, base) if base else None
        if base_sha is None:
            raise _validation(field="base", code="invalid")
        if head_sha is None:
            raise _validation(field="head", code="invalid")
        self._no_open_duplicate(repo, head, base)
        if not self._log(repo, f"{base_sha}..{head_sha}"):
            raise _validation(f"No commits between {base} and {head}")
        number, stamp = max(repo.pulls, default=0) + 1, _now()
        pr: dict[str, Any] = {
            "number": number, "id": next(self._ids), "state": "open", "merged": False, "merged_at": None,
            "closed_at": None, "title": str(body.get("title") or ""), "body": body.get("body"), "head": head,
            "base": base, "draft": bool(body.get("draft", False)), "labels": [], "user": req.login,
            "created_at": stamp, "updated_at": stamp, "head_sha": head_sha, "merge_commit_sha": None,
            "base_sha_at_merge": None, "merged_by": None,
        }
        repo.pulls[number] = pr
        return 201, self._pull_json(repo, pr), {"Location": f"{self.url}/repos/{repo.full_name}/pulls/{number}"}

    def _edit_pull(self, req: _Request) -> Response:
        repo, pr, body = self._find(req), self._pr(req), self._body(req)
        _within_limits(body)
        if "base" in body and self._sha(repo, str(body["base"])) is None:
            raise _validation(field="base", code="invalid")
        state = body.get("state", pr["state"])
        if state not in ("open", "closed"):
            raise _validation(field="state", code="invalid")
        if state == "open" and pr["state"] == "closed":
            if pr["merged"] or self._sha(repo, pr["head"]) is None:
                raise _validation(field="state", code="invalid")
            self._no_open_duplicate(repo, pr["head"], body.get("base", pr["base"]))
        for key in ("title", "body", "base"):
            if key in body:
                pr[key] = body[key]
        if state != pr["state"]:
            pr.update(state=state, closed_at=_now() if state == "closed" else None)
        pr["updated_at"] = _now()
        return 200, self._pull_json(repo, pr), {}

    def _is_merged(self, req: _Request) -> Response:
        if self._pr(req)["merged"]:
            return 204, None, {}
        raise ApiError(404, "Not Found")

    def _merge_pull(self, req: _Request) -> Response:
        repo, pr, body = self._find(req), self._pr(req), self._body(req)
        assert req.login is not None
        method = str(body.get("merge_method", "merge"))
        if method not in ("merge", "squash", "rebase"):
            raise _validation(field="merge_method", code="invalid")
        sha = self._merge(repo, pr, method, body.get("commit_title"), body.get("commit_message"), body.get("sha"),
                          req.login)
        return 200, {"sha": sha, "merged": True, "message": "Pull Request successfully merged"}, {}

    def _pull_commits(self, req: _Request) -> Response:
        repo, pr = self._find(req), self._pr(req)
        return self._page(req, [self._commit_json(repo, c) for c in self._log(repo, self._pr_range(repo, pr))])

    def _get_issue(self, req: _Request) -> Response:
        repo, pr = self._find(req), self._pr(req)
        data = self._pull_json(repo, pr, full=False)
        keep = ("id", "node_id", "number", "state", "title", "body", "user", "labels", "locked", "created_at",
                "updated_at", "closed_at", "html_url", "comments_url", "author_association")
        issue = {k: data[k] for k in keep}
        issue.update(url=data["issue_url"], comments=len(self.comments(repo.full_name, pr["number"])),
                     labels_url=f"{data['issue_url']}/labels{{/name}}",
                     pull_request={"url": data["url"], "html_url": data["html_url"], "merged_at": pr["merged_at"]})
        return 200, issue, {}

    def _list_comments(self, req: _Request) -> Response:
        repo, pr = self._find(req), self._pr(req)
        found = [c for c in self._comments.values() if c["repo"] == repo.full_name and c["issue"] == pr["number"]]
        return self._page(req, [self._comment_json(c) for c in sorted(found, key=lambda c: c["id"])])

    def _create_comment(self, req: _Request) -> Response:
        repo, pr, body = self._find(req), self._pr(req), self._body(req, require="body")
        _within_limits(body, "IssueComment")
        stamp = _now()
        cid = next(self._ids)
        self._comments[cid] = {"id": cid, "repo": repo.full_name, "issue": pr["number"], "body": body["body"],
                               "user": req.login, "created_at": stamp, "updated_at": stamp}
        comment = self._comment_json(self._comments[cid])
        return 201, comment, {"Location": comment["url"]}

    def _comment_op(self, req: _Request) -> Response:
        repo = self._find(req)
        c = self._comments.get(int(req.groups["cid"]))
        if c is None or c["repo"] != repo.full_name:
            raise ApiError(404, "Not Found")
        if req.method == "DELETE":
            del self._comments[c["id"]]
            return 204, None, {}
        if req.method == "PATCH":
            _within_limits(self._body(req, require="body"), "IssueComment")
            c.update(body=self._body(req, require="body")["body"], updated_at=_now())
        return 200, self._comment_json(c), {}

    def _labels_op(self, req: _Request) -> Response:
        repo, pr = self._find(req), self._pr(req)
        body = req.body.get("labels", []) if isinstance(req.body, dict) else req.body or []
        names = [str(item["name"] if isinstance(item, dict) else item) for item in body]
        if req.method == "PUT":
            pr["labels"] = list(dict.fromkeys(names))
        elif req.method == "POST":
            pr["labels"] = list(dict.fromkeys([*pr["labels"], *names]))
        elif req.method == "DELETE":
            if req.groups["label"] not in pr["labels"]:
                raise ApiError(404, "Label does not exist")
            pr["labels"].remove(req.groups["label"])
        if req.method != "GET":
            pr["updated_at"] = _now()
        return self._page(req, [self._label_json(repo, name) for name in pr["labels"]])

    def _installation(self, req: _Request) -> Response:
        repo = self._find(req)
        assert self._app is not None
        app_id, iid = self._app[0], self._app[1]
        return 200, {"id": iid, "app_id": int(app_id) if app_id.isdigit() else app_id, "app_slug": "followup-bot",
                     "account": self._user(repo.owner), "target_type": "User", "repository_selection": "all",
                     "access_tokens_url": f"{self.url}/app/installations/{iid}/access_tokens",
                     "repositories_url": f"{self.url}/installation/repositories",
                     "html_url": f"{self.origin}/settings/installations/{iid}",
                     "permissions": {"contents": "write", "pull_requests": "write", "issues": "write"},
                     "events": [], "created_at": _now(), "updated_at": _now()}, {}

    def _access_token(self, req: _Request) -> Response:
        assert self._app is not None
        if int(req.groups["iid"]) != self._app[1]:
            raise ApiError(404, "Not Found")
        token = "ghs_" + secrets.token_hex(18)
        self.tokens[token] = self._bot_login
        expires = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        permissions = self._body(req).get("permissions") or {"contents": "write", "pull_requests": "write"}
        return 201, {"token": token, "expires_at": expires, "permissions": permissions,
                     "repository_selection": "all"}, {}
