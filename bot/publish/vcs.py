"""Git through GitPython: fetch the remote, build the bot's commit in a worktree, push it.

Remote branches are fetched into a private namespace (refs/followup-bot/remote/*) so that a
user's own checkout keeps its remotes untouched. Pushes authenticate with an HTTP header passed
through the environment, never with a token in a URL or on a command line.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from bot import scratch
from bot.errors import UserError
from bot.secrets import redact

NAMESPACE = "refs/followup-bot/remote/"


class GitError(UserError):
    exit_code = 3


@dataclass(frozen=True)
class Author:
    name: str
    email: str


def _is_http(url: str) -> bool:
    return url.startswith(("http://", "https://"))


class Remote:
    """One local repository and the URL it fetches from and pushes to."""

    def __init__(self, local: Path, url: str, token: str | None = None, auth_host: str | None = None) -> None:
        import git

        self.local = local
        self.url = url
        self._token = token
        self._auth_host = auth_host
        self.repo = git.Repo(local)

    # ---- plumbing ------------------------------------------------------------------
    def _sends_token(self) -> bool:
        """Only to the forge's own host, only over https: a mirror elsewhere never sees the token."""
        if not self._token or not self.url.startswith("https://"):
            return False
        host = urlsplit(self.url).hostname or ""
        return self._auth_host is None or host == self._auth_host

    def _env(self, network: bool = False) -> dict[str, str]:
        env = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
        if network and self._sends_token():
            basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
            env.update({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraHeader",
                        "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}"})
        return env

    def git(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            network: bool = False, stdin: bytes | None = None) -> str:
        """git's output. `stdin`: what git reads on its standard input (a commit message, a list of paths):
        long text goes that way, by a file, since one argument holds 128 KB at most and all of them 2 MB."""
        import git

        runner = git.Git(str(cwd or self.local))
        try:
            with tempfile.TemporaryFile() as given:  # unnamed: gone when closed
                if stdin is not None:
                    given.write(stdin)
                    given.seek(0)
                return str(runner.execute(["git", *args], env={**self._env(network), **(env or {})},
                                          with_extended_output=False, istream=given if stdin is not None else None))
        except git.GitCommandError as exc:
            detail = (exc.stderr or exc.stdout or "").strip().splitlines()
            last = detail[-1] if detail else f"exit code {exc.status}"
            raise GitError(redact(f"git {args[0]} failed: {last.strip().removeprefix('stderr: ')}")) from None

    # ---- reading the remote --------------------------------------------------------
    def default_branch(self) -> str:
        out = self.git("ls-remote", "--symref", "--", self.url, "HEAD", network=True)  # the URL is never an option
        match = re.search(r"^ref: refs/heads/(\S+)\tHEAD", out, re.M)
        if match is None:
            raise GitError(redact(f"{self.url}: cannot tell the default branch (empty repository?)"))
        return match.group(1)

    def fetch(self, default: str, prefix: str, shallow: bool = False) -> None:
        refspecs = [f"+refs/heads/{default}:{NAMESPACE}{default}"]
        if not shallow:
            refspecs.append(f"+refs/heads/{prefix}*:{NAMESPACE}{prefix}*")
        options = ["--no-tags", "--prune", "--quiet"]
        if shallow:
            options.append("--depth=1")
        else:
            if (self.local / ".git" / "shallow").exists():
                options.append("--unshallow")  # a dry-run by name left it shallow: history matters now
            if _is_http(self.url):
                options.append("--filter=blob:none")
        self.git("fetch", *options, "--", self.url, *refspecs, network=True)

    def sha(self, branch: str) -> str | None:
        try:
            return self.git("rev-parse", "--verify", "-q", f"{NAMESPACE}{branch}^{{commit}}") or None
        except GitError:
            return None

    def authors(self, base: str, branch: str) -> list[tuple[str, str, str, str, str]]:
        """(sha, author name, author email, committer name, committer email) of commits `base` lacks."""
        out = self.git("log", "--format=%H%x00%an%x00%ae%x00%cn%x00%ce", f"{NAMESPACE}{base}..{NAMESPACE}{branch}")
        return [tuple(line.split("\0")) for line in out.splitlines() if line]  # type: ignore[misc]

    # ---- writing -------------------------------------------------------------------
    @contextmanager
    def worktree(self, branch: str) -> Iterator[Path]:
        """A temporary detached checkout of the fetched `branch`, in a directory of its own (mode 0700) that
        the bot made, so no other user can put anything at its path first."""
        private = Path(scratch.mkdtemp("followup-bot-wt-", scratch.checkout_size(self.local)))
        path = private / "tree"
        try:  # the files written by one process per core (git's own setting; most of the time is the kernel's)
            self.git("-c", "checkout.workers=0", "worktree", "add", "--detach", "--quiet", str(path),
                     f"{NAMESPACE}{branch}")
            try:
                yield path
            finally:
                try:
                    self.git("worktree", "remove", "--force", str(path))
                except GitError:
                    shutil.rmtree(path, ignore_errors=True)
                    self.git("worktree", "prune")
        finally:
            shutil.rmtree(private, ignore_errors=True)

    def commit(self, worktree: Path, paths: list[str], message: str, author: Author) -> str:
        identity = ["-c", f"user.name={author.name}", "-c", f"user.email={author.email}",
                    "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"]
        listed = b"".join(os.fsencode(path) + b"\0" for path in paths)  # paths as written: no pathspec magic
        self.git("--literal-pathspecs", "add", "--pathspec-from-file=-", "--pathspec-file-nul", cwd=worktree,
                 stdin=listed)
        who = {"GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email,
               "GIT_COMMITTER_NAME": author.name, "GIT_COMMITTER_EMAIL": author.email}
        self.git(*identity, "commit", "--quiet", "--no-verify", "--file=-", cwd=worktree,
                 env=who, stdin=message.encode("utf-8", "surrogateescape"))
        return self.git("rev-parse", "HEAD", cwd=worktree)

    def push(self, sha: str, branch: str, expected: str | None) -> None:
        """Push `sha` to `branch`, only if the branch is still where we saw it (or absent)."""
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        self.git("push", "--quiet", "--no-verify", lease, "--", self.url, f"{sha}:refs/heads/{branch}", network=True)

    def delete(self, branch: str, expected: str) -> None:
        lease = f"--force-with-lease=refs/heads/{branch}:{expected}"
        self.git("push", "--quiet", "--no-verify", lease, "--", self.url, f":refs/heads/{branch}", network=True)


def prepare_local(path: Path | None, cache: Path, name: str, url: str, token: str | None,
                  auth_host: str | None = None) -> Remote:
    """The repository to work in: the configured path, or a clone in the cache directory."""
    import git

    if path is not None:
        try:
            git.Repo(path)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise UserError(f"{path}: expected a git repository") from None
        return Remote(path, url, token, auth_host)
    target = cache / re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    if not (target / ".git").exists():
        target.mkdir(parents=True, exist_ok=True)
        git.Repo.init(target)
    return Remote(target, url, token, auth_host)


def is_dirty(path: Path) -> bool:
    import git

    return bool(git.Repo(path).is_dirty(untracked_files=True))
