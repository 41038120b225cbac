"""The forge behind one small interface, with the GitHub client (PyGithub) in one adapter.

Everything that leaves this module is plain data. Transient faults (5xx, 429, secondary rate
limits) are retried with a bounded backoff that honours Retry-After, but only for requests that
are safe to repeat; a write whose answer was lost raises, and the next run reads the state back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from bot.errors import UserError
from bot.secrets import redact

T = TypeVar("T")


class ForgeError(UserError):
    exit_code = 3

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(redact(message))
        self.status = status


@dataclass(frozen=True)
class PullInfo:
    number: int
    state: str  # open | closed
    merged: bool
    title: str
    body: str
    head: str
    url: str
    labels: tuple[str, ...] = ()
    author: str = ""  # the login that opened it


@dataclass(frozen=True)
class CommentInfo:
    id: int
    body: str
    user: str  # the login that wrote it


class Forge(Protocol):
    @property
    def requests(self) -> int: ...

    def account(self) -> str:
        """The login the forge acts as: only its pull requests and comments are the bot's."""
        ...

    def pulls(self, branch: str) -> list[PullInfo]: ...
    def create_pull(self, branch: str, base: str, title: str, body: str, draft: bool) -> PullInfo: ...
    def update_pull(self, number: int, title: str, body: str) -> None: ...
    def close_pull(self, number: int) -> None: ...
    def add_labels(self, number: int, labels: list[str]) -> None: ...
    def comments(self, number: int) -> list[CommentInfo]: ...
    def comment(self, number: int, body: str) -> None: ...
    def edit_comment(self, comment_id: int, body: str) -> None: ...
    def delete_comment(self, comment_id: int) -> None: ...
    def commit_logins(self, number: int) -> dict[str, str]: ...


@dataclass
class RetryPolicy:
    attempts: int = 5
    base: float = 1.0
    cap: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        wanted = retry_after if retry_after is not None else self.base * (2**attempt)
        return max(0.0, min(self.cap, wanted))


class _RequestCounter(logging.Handler):
    """PyGithub logs every HTTP request it makes at DEBUG: counting the records counts requests."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        if args and args[0] in ("GET", "POST", "PATCH", "PUT", "DELETE", "HEAD"):  # not "sleeping ..." notes
            self.count += 1


def _transient(exc: Exception) -> tuple[bool, float | None, bool]:
    """(retry it, Retry-After seconds, the request may have been applied)."""
    from github import GithubException, RateLimitExceededException
    from requests.exceptions import ConnectionError as RequestsConnectionError
    from requests.exceptions import Timeout

    if isinstance(exc, (RequestsConnectionError, Timeout, ConnectionError)):
        return True, None, True
    if isinstance(exc, GithubException):
        headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
        retry_after = headers.get("retry-after")
        after = float(retry_after) if retry_after and str(retry_after).isdigit() else None
        message = str(exc.data.get("message", "")) if isinstance(exc.data, dict) else ""
        if exc.status == 429 or isinstance(exc, RateLimitExceededException) or (
            exc.status == 403 and ("rate limit" in message.lower() or after is not None)
        ):
            return True, after, False
        if exc.status >= 500:
            return True, after, True
    return False, None, False


class GitHubForge:
    def __init__(self, api_url: str, full_name: str, auth: Any, policy: RetryPolicy | None = None,
                 throttle: bool = True, account: str | None = None) -> None:
        """`account`: the bot's login when the credentials tell it (a GitHub App's `<slug>[bot]`); else it
        is asked (GET /user) the first time it is needed."""
        from github import Github

        self._account = account
        self.policy = policy or RetryPolicy()
        self._counter = _RequestCounter()
        logger = logging.getLogger("github.Requester")
        logger.addHandler(self._counter)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        between_requests, between_writes = (0.25, 1.0) if throttle else (None, None)
        self._github = Github(base_url=api_url, auth=auth, retry=None, timeout=30, lazy=True,
                              seconds_between_requests=between_requests, seconds_between_writes=between_writes)
        self._repo = self._github.get_repo(full_name)  # lazy: objects make no request until used
        self.full_name = full_name
        self.owner = full_name.split("/")[0]

    @property
    def requests(self) -> int:
        return self._counter.count

    def close(self) -> None:
        logger = logging.getLogger("github.Requester")
        logger.removeHandler(self._counter)
        if not logger.handlers:
            logger.propagate = True
            logger.setLevel(logging.NOTSET)
        self._github.close()

    def _call(self, what: str, fn: Callable[[], T], *, repeatable: bool) -> T:
        from github import GithubException

        for attempt in range(self.policy.attempts):
            try:
                return fn()
            except Exception as exc:
                retry, after, maybe_applied = _transient(exc)
                last = attempt == self.policy.attempts - 1
                if not retry or last or (maybe_applied and not repeatable):
                    status = exc.status if isinstance(exc, GithubException) else None
                    detail = _message(exc)
                    raise ForgeError(f"GitHub API: {what} failed: {detail}", status) from None
                self.policy.sleep(self.policy.delay(attempt, after))
        raise AssertionError("unreachable")

    def account(self) -> str:
        if self._account is None:
            login = self._call("reading which account the token is (GET /user)",
                               lambda: str(self._github.get_user().login), repeatable=True)
            self._account = login
        return self._account

    # ---- pulls ---------------------------------------------------------------------
    def pulls(self, branch: str) -> list[PullInfo]:
        def run() -> list[PullInfo]:
            found = self._repo.get_pulls(state="all", head=f"{self.owner}:{branch}", sort="created",
                                         direction="desc")
            return [_pull(p) for p in found]

        return self._call(f"listing pull requests for {branch}", run, repeatable=True)

    def create_pull(self, branch: str, base: str, title: str, body: str, draft: bool) -> PullInfo:
        return self._call(
            f"opening a pull request from {branch}",
            lambda: _pull(self._repo.create_pull(base=base, head=branch, title=title, body=body, draft=draft)),
            repeatable=False,
        )

    def update_pull(self, number: int, title: str, body: str) -> None:
        self._call(f"editing pull request #{number}",
                   lambda: self._pull_lazy(number).edit(title=title, body=body), repeatable=True)

    def close_pull(self, number: int) -> None:
        self._call(f"closing pull request #{number}", lambda: self._pull_lazy(number).edit(state="closed"),
                   repeatable=True)

    def add_labels(self, number: int, labels: list[str]) -> None:
        self._call(f"labelling pull request #{number}",
                   lambda: self._issue_lazy(number).add_to_labels(*labels), repeatable=True)

    # ---- comments ------------------------------------------------------------------
    def comments(self, number: int) -> list[CommentInfo]:
        def run() -> list[CommentInfo]:
            return [CommentInfo(c.id, c.body or "", c.user.login if c.user else "")
                    for c in self._issue_lazy(number).get_comments()]

        return self._call(f"reading the comments of #{number}", run, repeatable=True)

    def comment(self, number: int, body: str) -> None:
        self._call(f"commenting on #{number}", lambda: self._issue_lazy(number).create_comment(body),
                   repeatable=False)

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._call(f"editing comment {comment_id}", lambda: self._issue_lazy(0).get_comment(comment_id).edit(body),
                   repeatable=True)

    def delete_comment(self, comment_id: int) -> None:
        def run() -> None:
            try:
                self._issue_lazy(0).get_comment(comment_id).delete()
            except Exception as exc:  # gone already (another run removed it): nothing left to do
                if getattr(exc, "status", None) != 404:
                    raise

        self._call(f"deleting comment {comment_id}", run, repeatable=True)

    def commit_logins(self, number: int) -> dict[str, str]:
        """sha -> GitHub login of the author (the commit's author name where GitHub knows none)."""

        def run() -> dict[str, str]:
            out = {}
            for commit in self._pull_lazy(number).get_commits():
                login = commit.author.login if commit.author else commit.commit.author.name
                out[commit.sha] = login
            return out

        return self._call(f"reading the commits of #{number}", run, repeatable=True)

    # ---- lazy objects: no request until they are used ------------------------------
    def _pull_lazy(self, number: int) -> Any:
        return self._repo.get_pull(number)

    def _issue_lazy(self, number: int) -> Any:
        return self._repo.get_issue(number)


def _pull(raw: Any) -> PullInfo:
    return PullInfo(
        # listed pulls carry merged_at but not merged: reading `merged` would cost a request per pull
        number=raw.number, state=raw.state, merged=raw.merged_at is not None, title=raw.title or "",
        body=raw.body or "",
        head=raw.head.ref, url=raw.html_url or "", labels=tuple(label.name for label in raw.labels),
        author=raw.user.login if raw.user else "",
    )


def _message(exc: Exception) -> str:
    from github import GithubException

    if isinstance(exc, GithubException):
        data = exc.data if isinstance(exc.data, dict) else {}
        message = str(data.get("message", "")) or type(exc).__name__
        errors = data.get("errors")
        if isinstance(errors, list) and errors:
            first = errors[0]
            message += ": " + str(first.get("message", first) if isinstance(first, dict) else first)
        return f"{exc.status} {message}"
    return f"{type(exc).__name__}: {exc}"


ACTIONS_ACCOUNT = "github-actions[bot]"  # who the Actions GITHUB_TOKEN writes as (it cannot read GET /user)


def auth_for(credentials: Any, api_url: str, full_name: str) -> tuple[Any, str | None, str | None]:
    """PyGithub auth, the token git should push with, and the bot's login when the credentials tell it."""
    from github import Auth, GithubIntegration

    if credentials.kind == "token":
        return Auth.Token(credentials.token), credentials.token, (
            ACTIONS_ACCOUNT if credentials.is_actions_token else None)
    app = Auth.AppAuth(credentials.app_id, credentials.private_key)
    try:
        integration = GithubIntegration(auth=app, base_url=api_url)
        owner, name = full_name.split("/")
        installation = integration.get_repo_installation(owner, name)
        token = integration.get_access_token(installation.id).token
        slug = installation.app_slug
    except Exception as exc:
        raise ForgeError(f"GitHub App {credentials.app_id}: cannot get an installation token for {full_name}: "
                         f"{_message(exc)}") from None
    from bot.secrets import register

    register(token)
    return Auth.Token(token), token, f"{slug}[bot]" if slug else None
