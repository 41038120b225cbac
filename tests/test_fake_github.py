"""The GitHub fake, driven by real PyGithub over HTTP against real bare git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from github import (
    Auth,
    BadCredentialsException,
    Github,
    GithubException,
    GithubIntegration,
    RateLimitExceededException,
    UnknownObjectException,
)
from github.Repository import Repository

from tests.fake_github import HAVE_CRYPTOGRAPHY, ApiError, FakeGitHub

TOKEN = "t0k3n"
REPO = "acme/widgets"
BRANCH = "followup/fix-1"


def _git(cwd: Path, home: Path, *args: str, author: str = "Alice", email: str = "alice@example.com") -> str:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": author,
        "GIT_COMMITTER_EMAIL": email,
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


class Remote:
    """A bare repository plus a work clone used to push branches into it."""

    def __init__(self, tmp_path: Path) -> None:
        self.home, self.bare, self.work = tmp_path, tmp_path / "widgets.git", tmp_path / "work"
        _git(tmp_path, tmp_path, "init", "-q", "--bare", "-b", "main", str(self.bare))
        _git(tmp_path, tmp_path, "init", "-q", "-b", "main", str(self.work))
        (self.work / "run.sh").write_text("python train.py\n")
        self.git("add", "run.sh")
        self.git("commit", "-q", "-m", "initial", author="Maint", email="maint@example.com")
        self.git("push", "-q", str(self.bare), "main")
        self.push_branch(BRANCH)

    def git(self, *args: str, **kw: str) -> str:
        return _git(self.work, self.home, *args, **kw)

    def push_branch(self, name: str, start: str = "main") -> None:
        self.git("checkout", "-q", "-b", name, start)
        (self.work / f"{name.replace('/', '_')}.txt").write_text(name + "\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", f"fix: {name}\n\nbody line")
        self.git("push", "-q", str(self.bare), name)
        self.git("checkout", "-q", "main")

    def bare_git(self, *args: str) -> str:
        return _git(self.home, self.home, "--git-dir", str(self.bare), *args)


@pytest.fixture
def remote(tmp_path: Path) -> Remote:
    return Remote(tmp_path)


@pytest.fixture
def fake(remote: Remote) -> Iterator[FakeGitHub]:
    with FakeGitHub(tokens={TOKEN: "followup-bot"}, logins={"alice@example.com": "alice-gh"}) as server:
        server.add_repo(REPO, remote.bare)
        yield server


# retry=None: no silent re-sends; PyGithub otherwise sleeps 0.25 s between requests and 1 s between writes.
FAST: dict[str, Any] = {"retry": None, "seconds_between_requests": None, "seconds_between_writes": None}


def client(fake: FakeGitHub, token: str | None = TOKEN, per_page: int = 30) -> Github:
    return Github(base_url=fake.url, auth=Auth.Token(token) if token else None, per_page=per_page, **FAST)


@pytest.fixture
def repo(fake: FakeGitHub) -> Repository:
    return client(fake).get_repo(REPO)


def test_repo_and_branch(fake: FakeGitHub, repo: Repository) -> None:
    assert repo.full_name == REPO and repo.default_branch == "main" and repo.owner.login == "acme"
    assert repo.url == f"{fake.url}/repos/{REPO}"
    assert repo.get_branch("main").commit.sha == fake.branches(REPO)["main"]
    assert repo.get_git_ref(f"heads/{BRANCH}").object.sha == fake.branches(REPO)[BRANCH]
    with pytest.raises(UnknownObjectException):
        repo.get_branch("nope")
    assert client(fake).get_user().login == "followup-bot"


def test_branches_are_read_live(fake: FakeGitHub, remote: Remote, repo: Repository) -> None:
    remote.push_branch("later")
    assert repo.get_branch("later").commit.sha == fake.branches(REPO)["later"]


def test_create_list_and_duplicate_pull(fake: FakeGitHub, repo: Repository) -> None:
    pr = repo.create_pull(base="main", head=BRANCH, title="Fix rule", body="why", draft=True)
    assert (pr.number, pr.state, pr.draft, pr.user.login, pr.head.ref) == (1, "open", True, "followup-bot", BRANCH)
    assert pr.url == f"{fake.url}/repos/{REPO}/pulls/1"
    assert [p.number for p in repo.get_pulls(head=f"acme:{BRANCH}", base="main")] == [1]
    assert list(repo.get_pulls(head="acme:other")) == []
    assert [p.number for p in repo.get_pulls(head="other")] == [1]  # no "owner:" -> ignored, as on GitHub
    with pytest.raises(GithubException) as err:
        repo.create_pull(base="main", head=f"acme:{BRANCH}", title="again")
    assert err.value.status == 422
    assert err.value.data["errors"][0]["message"] == f"A pull request already exists for acme:{BRANCH}."
    with pytest.raises(GithubException) as err:
        repo.create_pull(base="main", head="missing", title="x")
    assert err.value.status == 422 and err.value.data["errors"][0]["field"] == "head"
    assert [p["number"] for p in fake.pulls(REPO)] == [1]


def test_edit_comments_and_labels(fake: FakeGitHub, repo: Repository) -> None:
    pr = repo.create_pull(base="main", head=BRANCH, title="t", body="old")
    pr.edit(body="new body", title="new title")
    assert fake.pull(REPO, 1)["body"] == "new body" and pr.title == "new title"
    comment = pr.create_issue_comment("first")
    assert comment.url == f"{fake.url}/repos/{REPO}/issues/comments/{comment.id}"
    comment.edit("edited")
    assert [c["body"] for c in fake.comments(REPO, 1)] == ["edited"]
    assert [c.body for c in pr.get_issue_comments()] == ["edited"]
    assert repo.get_issue(1).get_comment(comment.id).user.login == "followup-bot"
    comment.delete()
    assert fake.comments(REPO, 1) == []
    pr.add_to_labels("followup", "bot")
    pr.add_to_labels("bot")
    assert [label.name for label in pr.get_labels()] == ["followup", "bot"]
    assert fake.pull(REPO, 1)["labels"] == ["followup", "bot"]
    assert [label.name for label in repo.get_issue(1).labels] == ["followup", "bot"]


def test_pull_commits_author_login(repo: Repository) -> None:
    pr = repo.create_pull(base="main", head=BRANCH, title="t", body="b")
    commits = list(pr.get_commits())
    assert len(commits) == 1 and pr.commits == 1
    assert commits[0].author.login == "alice-gh" and commits[0].committer.login == "alice-gh"
    assert commits[0].commit.author.email == "alice@example.com"
    assert commits[0].commit.message == f"fix: {BRANCH}\n\nbody line"


def test_close_merge_and_delete_branch(fake: FakeGitHub, remote: Remote, repo: Repository) -> None:
    remote.push_branch("second")
    first = repo.create_pull(base="main", head=BRANCH, title="one", body="")
    second = repo.create_pull(base="main", head="second", title="two", body="")
    first.edit(state="closed")
    assert fake.pull(REPO, 1)["state"] == "closed"
    assert [p.number for p in repo.get_pulls(state="closed")] == [1]
    old_main = fake.branches(REPO)["main"]
    status = second.merge()
    assert status.merged and status.sha == fake.branches(REPO)["main"] != old_main
    parents = remote.bare_git("rev-list", "--parents", "-n1", "main").split()[1:]
    assert parents == [old_main, fake.branches(REPO)["second"]]
    assert "Merge pull request #2 from acme/second" in remote.bare_git("log", "-1", "--format=%B", "main")
    merged = repo.get_pull(2)
    assert merged.merged and merged.state == "closed" and merged.is_merged()
    assert len(list(merged.get_commits())) == 1
    with pytest.raises(GithubException) as err:
        merged.merge()
    assert err.value.status == 405
    repo.get_git_ref("heads/second").delete()
    assert "second" not in fake.branches(REPO)
    with pytest.raises(GithubException) as err:
        repo.get_git_ref("heads/second")
    assert err.value.status == 404
    with pytest.raises(ApiError):
        fake.merge_pull(REPO, 1)  # closed pulls cannot be merged


def test_helpers_close_and_merge(fake: FakeGitHub, repo: Repository) -> None:
    repo.create_pull(base="main", head=BRANCH, title="t", body="b")
    fake.close_pull(REPO, 1)
    assert repo.get_pull(1).state == "closed"
    repo.get_pull(1).edit(state="open")
    sha = fake.merge_pull(REPO, 1, method="squash")
    assert fake.branches(REPO)["main"] == sha and fake.pull(REPO, 1)["merged"]


def test_auth_required(fake: FakeGitHub) -> None:
    with pytest.raises(GithubException) as err:
        client(fake, token=None).get_repo(REPO)
    assert err.value.status == 401 and err.value.data["message"] == "Requires authentication"
    with pytest.raises(BadCredentialsException):
        client(fake, token="wrong").get_repo(REPO)
    assert fake.requests[-1] == ("GET", f"/repos/{REPO}", 401)


def test_unknown_route_is_404_json(fake: FakeGitHub) -> None:
    req = urllib.request.Request(f"{fake.url}/nope", headers={"Authorization": f"token {TOKEN}"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req)
    assert err.value.code == 404
    assert json.loads(err.value.read())["message"] == "Not Found"


def test_fault_status_and_retry_after(fake: FakeGitHub, repo: Repository) -> None:
    fake.inject("GET", rf"^/repos/{REPO}$", status=502)
    with pytest.raises(GithubException) as err:
        client(fake).get_repo(REPO)
    assert err.value.status == 502
    client(fake).get_repo(REPO)  # fault was used up
    fake.inject("POST", r"/pulls$", status=403, retry_after=7)
    with pytest.raises(RateLimitExceededException) as rate:
        repo.create_pull(base="main", head=BRANCH, title="t", body="b")
    assert rate.value.headers is not None and rate.value.headers["retry-after"] == "7"
    assert fake.pulls(REPO) == []
    fake.inject("*", r"/pulls$", status=429, times=2)
    for _ in range(2):
        with pytest.raises(GithubException) as err:
            repo.create_pull(base="main", head=BRANCH, title="t", body="b")
        assert err.value.status == 429 and "retry-after" in (err.value.headers or {})
    assert repo.create_pull(base="main", head=BRANCH, title="t", body="b").number == 1


def test_fault_drop_and_delay(fake: FakeGitHub, repo: Repository) -> None:
    fake.inject("GET", r"/branches/", drop=True)
    with pytest.raises(requests.exceptions.ConnectionError):
        repo.get_branch("main")
    assert fake.requests[-1] == ("GET", "/repos/acme/widgets/branches/main", 0)
    fake.inject("GET", r"/branches/", delay=0.2)
    assert repo.get_branch("main").name == "main"


def test_fault_after_apply(fake: FakeGitHub, repo: Repository) -> None:
    fake.inject("POST", r"/pulls$", status=502, after_apply=True)
    with pytest.raises(GithubException) as err:
        repo.create_pull(base="main", head=BRANCH, title="t", body="b")
    assert err.value.status == 502
    assert [p["head"] for p in fake.pulls(REPO)] == [BRANCH]  # the write happened anyway
    pr = repo.get_pull(1)
    fake.inject("POST", r"/comments$", drop=True, after_apply=True)
    with pytest.raises(requests.exceptions.ConnectionError):
        pr.create_issue_comment("lost answer")
    assert [c["body"] for c in fake.comments(REPO, 1)] == ["lost answer"]


def test_counts(fake: FakeGitHub, repo: Repository) -> None:
    fake.reset_counts()
    pr = repo.create_pull(base="main", head=BRANCH, title="t", body="b")
    pr.edit(body="x")
    repo.get_pull(1)
    assert (fake.request_count, fake.write_count) == (3, 2)
    assert [m for m, _, _ in fake.requests] == ["POST", "PATCH", "GET"]
    fake.reset_counts()
    assert (fake.request_count, fake.write_count) == (0, 0)


def test_pagination(fake: FakeGitHub, remote: Remote) -> None:
    for name in ("p2", "p3"):
        remote.push_branch(name)
    repo = client(fake, per_page=2).get_repo(REPO)
    for head in (BRANCH, "p2", "p3"):
        repo.create_pull(base="main", head=head, title=head, body="")
    fake.reset_counts()
    assert [p.number for p in repo.get_pulls(state="all", sort="created", direction="asc")] == [1, 2, 3]
    assert fake.requests == [("GET", f"/repos/{REPO}/pulls", 200)] * 2
    assert [p.number for p in repo.get_pulls()] == [3, 2, 1]  # default: newest first
    req = urllib.request.Request(f"{fake.url}/repos/{REPO}/pulls?per_page=2", headers={"Authorization": "token t0k3n"})
    with urllib.request.urlopen(req) as resp:
        link = resp.headers["Link"]
    assert link == (
        f'<{fake.url}/repos/{REPO}/pulls?per_page=2&page=2>; rel="next", '
        f'<{fake.url}/repos/{REPO}/pulls?per_page=2&page=2>; rel="last"'
    )


def test_api_prefix(remote: Remote) -> None:
    with FakeGitHub(tokens={TOKEN: "bot"}, prefix="/api/v3") as server:
        server.add_repo(REPO, remote.bare)
        repo = client(server).get_repo(REPO)
        assert repo.create_pull(base="main", head=BRANCH, title="t", body="b").number == 1
        assert server.requests[-1] == ("POST", f"/repos/{REPO}/pulls", 201)


@pytest.mark.skipif(not HAVE_CRYPTOGRAPHY, reason="needs cryptography")
def test_github_app_flow(fake: FakeGitHub, repo: Repository) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    def pem(key: rsa.RSAPrivateKey) -> str:
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
        return key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    fake.set_app("4242", 77, public)
    integration = GithubIntegration(base_url=fake.url, auth=Auth.AppAuth("4242", pem(key)), **FAST)
    installation = integration.get_repo_installation("acme", "widgets")
    assert installation.id == 77
    app_gh = Github(base_url=fake.url, auth=Auth.AppAuth("4242", pem(key)).get_installation_auth(77), **FAST)
    pr = app_gh.get_repo(REPO).create_pull(base="main", head=BRANCH, title="t", body="b")
    assert pr.user.login == "followup-bot[bot]"
    assert ("POST", "/app/installations/77/access_tokens", 201) in fake.requests
    assert installation.get_github_for_installation().get_repo(REPO).get_pull(1).number == 1
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(GithubException) as err:
        GithubIntegration(base_url=fake.url, auth=Auth.AppAuth("4242", pem(other)), **FAST).get_repo_installation(
            "acme", "widgets"
        )
    assert err.value.status == 401
