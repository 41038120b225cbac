"""`bot run` against a repository by name: fetch, scan at the default branch, publish."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from bot.cache.store import default_directory
from bot.config import RepoConfig
from bot.engine.scan import recheck, scan_all
from bot.errors import UserError
from bot.model import Report
from bot.publish.credentials import Credentials, api_url, from_environment
from bot.publish.forge import Forge, GitHubForge, RetryPolicy, auth_for
from bot.publish.publisher import Group, Publisher, PublishResult, scan_errors
from bot.publish.vcs import Remote, is_dirty, prepare_local
from bot.rules.model import Rule

# a tree to scan made from the worktree, with what keeps a report to the worktree's own files (publish's `laid`)
Laying = Callable[[Path], AbstractContextManager[tuple[Path, Callable[[Report], Report]]]]


@dataclass
class PublishOptions:
    group: str | None = None
    compose: bool = False  # also compose-check every launch (the built-in hydra-compose rule)
    compose_since: str | None = None  # then report only what composed at this commit and fails now (drift)
    compose_all: bool = False  # watch: every launch that fails to compose, not only those the change broke
    allow_dirty: bool = False
    command: str = ""
    upstream_ref: str | None = None
    notes: list[str] = field(default_factory=list)  # said in the PR body: inferred suggestions and the like
    retry: RetryPolicy | None = None
    throttle: bool = True


def git_token(credentials: Credentials | None, repo: RepoConfig) -> str | None:
    """The token git fetches with: the token itself, or a GitHub App's installation token."""
    if credentials is None:
        return None
    if credentials.kind == "token":
        return credentials.token
    if repo.github is None:
        return None
    return auth_for(credentials, api_url(), repo.github)[1]


def forge_host(base_url: str) -> str | None:
    """The git host the API's token belongs to: github.com for api.github.com, else the API's own host."""
    host = urlsplit(base_url).hostname
    return "github.com" if host == "api.github.com" else host


def open_remote(repo: RepoConfig, token: str | None, url: str, shallow: bool = False) -> Remote:
    name = repo.name + ("-shallow" if shallow and repo.path is None else "")
    return prepare_local(repo.path, default_directory(), name, url, token, forge_host(api_url()))


def publish(repo: RepoConfig, rules: list[Rule], options: PublishOptions,
            credentials: Credentials | None = None, forge: Forge | None = None, laid: Laying | None = None
            ) -> PublishResult:
    """Scan the default branch and publish its follow-ups. `laid`: the tree to scan made from the worktree (`watch
    --upstream` lays the upstream's packages beside it; it may set `options.compose_since` to a commit of that
    tree), with what keeps a report to the worktree's own files."""
    if repo.github is None:
        raise UserError(f"--repo {repo.name}: publishing needs the GitHub repository: set github = \"owner/name\" "
                        "for it in bot.toml")
    base_url = api_url()
    credentials = credentials or from_environment()
    if credentials is None and forge is None:
        raise UserError("publishing needs credentials: set BOT_GITHUB_TOKEN (or GITHUB_TOKEN), or "
                        "BOT_GITHUB_APP_ID with BOT_GITHUB_APP_PRIVATE_KEY")
    token = None
    if forge is None:
        assert credentials is not None
        auth, token, account = auth_for(credentials, base_url, repo.github)
        github: Forge = GitHubForge(base_url, repo.github, auth, options.retry, throttle=options.throttle,
                                    account=account)
    else:
        github = forge
        if credentials is not None and credentials.kind == "token":
            token = credentials.token
    if repo.path is not None and not options.allow_dirty and is_dirty(repo.path):
        raise UserError(f"{repo.path}: has uncommitted changes; commit or stash them, or pass --allow-dirty")
    with repo_lock(repo):
        return _publish_locked(repo, rules, options, github, token, base_url, laid)


def _as_is(worktree: Path) -> AbstractContextManager[tuple[Path, Callable[[Report], Report]]]:
    return nullcontext((worktree, lambda report: report))


def _publish_locked(repo: RepoConfig, rules: list[Rule], options: PublishOptions, github: Forge,
                    token: str | None, base_url: str, laid: Laying | None = None) -> PublishResult:
    remote = open_remote(repo, token, repo.fetch_url(base_url))
    default = repo.default_branch or remote.default_branch()
    remote.fetch(default, repo.branch_prefix)
    command = options.command
    publisher = Publisher(remote, repo, github, default, command, options.upstream_ref, options.notes)
    try:
        with remote.worktree(default) as worktree, (laid or _as_is)(worktree) as (scanned, own):
            full, groups = group_reports(scanned, rules, options.group or repo.group, options.compose,
                                         repo.github or repo.name, options.compose_since)
            full = own(full)
            groups = [replace(g, report=own(g.report)) for g in groups]
            return publisher.run(worktree, full, groups)
    finally:
        if isinstance(github, GitHubForge):
            github.close()


def group_reports(worktree: Path, rules: list[Rule], group: str, compose: bool,
                  label: str, compose_since: str | None = None) -> tuple[Report, list[Group]]:
    """One scan of the repository, and from it the report of each follow-up pull request: one per rule
    (or one for all fixes and one for all chores), plus the built-in hydra-compose rule's with `compose`
    (with `compose_since`, only what the config change since that commit broke)."""
    composing = None
    if compose:
        from bot.compose.checker import ComposeOptions
        from bot.engine.drift import drift_options

        composing = drift_options(worktree, compose_since) if compose_since else ComposeOptions()
    scanned = scan_all(worktree, rules, label=label, compose=composing)
    full = scanned.report  # compose-check's findings joined to the rules' (bot.engine.assemble.merge)
    enabled = [r for r in rules if r.enabled]
    if group == "all":  # one pull request for the fixes, a second (typed chore) for the optional changes
        fixes = [r for r in enabled if r.change_type == "fix"]
        chores = [r for r in enabled if r.change_type != "fix"]
        groups = []
        for name, members in (("all", fixes), ("all-chore", chores)):
            if members:
                report = full if len(members) == len(enabled) else recheck(worktree, full, members)
                groups.append(Group(name, members, report, scan_errors(full, members)))
    else:
        groups = [Group(r.id, [r], recheck(worktree, full, [r]), scan_errors(full, [r])) for r in enabled]
    if scanned.composed is not None:
        from bot.compose.findings import RULE_ID, compose_rule

        groups.append(Group(RULE_ID, [compose_rule()], scanned.composed,
                            scan_errors(scanned.composed, [compose_rule()])))
    return full, groups


@contextmanager
def repo_lock(repo: RepoConfig) -> Iterator[None]:
    """One publishing run per repository at a time on this machine (Actions adds a concurrency group)."""
    import fcntl

    directory = default_directory()
    directory.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", repo.github or repo.name)
    # never truncated, never opened through a symlink: only held
    fd = os.open(directory / f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def fetch_for_scan(repo: RepoConfig) -> tuple[Remote, str]:
    """A shallow fetch of the default branch, enough to scan it (dry-run by name)."""
    token = git_token(from_environment(), repo)
    remote = open_remote(repo, token, repo.fetch_url(api_url()), shallow=True)
    default = repo.default_branch or remote.default_branch()
    remote.fetch(default, repo.branch_prefix, shallow=True)
    return remote, default

