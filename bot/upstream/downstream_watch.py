"""`bot watch --upstream U --repo D`: an upstream's change acted on in a downstream repository (issue 43, item 2).

The change is read from U's history (its checkout, or a clone of its URL); the rules it triggers or infers
(bot.upstream.watching.choose: its trigger paths, its new validation, the migration its config edits and entry
point moves call for) run over D, laid beside U's packages (bot.upstream.laid_tree) so D's launches of U's entry
points and configs extending U's compose against U at the change's end. A dry run reports, --write writes the
fixes into D's working tree, publishing opens D's pull requests (bot.publish.run, its scanned tree laid the same
way). The upstream comes from --upstream NAME|PATH|URL or the `upstream` of D's bot.toml.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UserError
from bot.upstream.change import Change, read_change
from bot.upstream.laid_tree import Laid, has_dir, laid_tree

_MODULE = re.compile(r"(?:^|\s)-m\s+([A-Za-z_]\w*)(?:\.\w+)*")

if TYPE_CHECKING:
    from bot.config import Config, RepoConfig
    from bot.downstream.model import Upstream
    from bot.model import Baseline, Report
    from bot.publish.run import PublishOptions
    from bot.rules.model import Rule
    from bot.upstream.watching import InferPolicy, WatchResult


@dataclass(frozen=True)
class Named:
    """The upstream, and the setting that names it (for messages: `--upstream` or `bot.toml: upstream`)."""

    upstream: Upstream
    setting: str


def named_upstream(config: Config, root: Path, given: str | None) -> Named:
    """`--upstream NAME|PATH|URL`, else the upstream the downstream's bot.toml names; a one-line error otherwise."""
    from bot.downstream.spec import PLAIN, UpstreamSpec
    from bot.downstream.upstream import resolve_upstream

    if given:
        if not PLAIN.match(given):
            raise UserError(f"--upstream: expected a registry name, a path, a git URL or owner/name, got {given!r}")
        named = config.downstream_of(root)
        packages = named.upstream.packages if named is not None and named.upstream.source == given else ()
        spec = UpstreamSpec(given, packages, None, "--upstream")
        return Named(resolve_upstream(config, spec, Path.cwd()), "--upstream")
    spec_of = config.downstream_of(root)
    if spec_of is None:
        raise UserError(f"--upstream: no upstream given and {root / 'bot.toml'} names none; expected --upstream "
                        "NAME|PATH|URL or upstream = \"...\" in the downstream's bot.toml")
    upstream = resolve_upstream(config, spec_of.upstream, Path(spec_of.file).parent)
    return Named(upstream, spec_of.upstream.setting)


@contextmanager
def upstream_history(named: Named) -> Iterator[Path]:
    """A git history of the upstream: its directory, or a clone of its URL (removed after)."""
    upstream = named.upstream
    if upstream.source_kind == "path":
        where = Path(upstream.source)
        if not _is_git(where):
            raise UserError(f"{named.setting}: {upstream.source} is not a git repository (expected a checkout of the "
                            "upstream with its history)")
        yield where
        return
    url = upstream.source if upstream.source_kind == "git" else _github_url(upstream.source)
    scratch = Path(tempfile.mkdtemp(prefix="bot-upstream-"))
    try:
        cloned = subprocess.run(["git", "clone", "--quiet", "--no-checkout", "--", url, str(scratch / "u")],
                                capture_output=True, text=True, check=False,
                                env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
        if cloned.returncode != 0:
            said = cloned.stderr.strip().splitlines()
            raise UserError(f"{named.setting}: cannot clone {url}: {said[-1] if said else 'git failed'}")
        yield scratch / "u"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _github_url(owner_name: str) -> str:
    from bot.config import RepoConfig
    from bot.publish.credentials import api_url

    return RepoConfig(name=owner_name, github=owner_name, path=None).fetch_url(api_url())


def _is_git(path: Path) -> bool:
    found = subprocess.run(["git", "-C", str(path), "rev-parse", "--git-dir"], capture_output=True, check=False)
    return path.is_dir() and found.returncode == 0


def upstream_change(named: Named, history: Path, before: str, after: str | None) -> Change:
    """The change in the upstream's history; commits it lacks are one line naming the setting."""
    try:
        return read_change(history, before, after or "HEAD")
    except UserError as exc:
        raise UserError(f"{named.setting}: {named.upstream.source}: {str(exc).split(': ', 1)[-1]}") from None


def package_dirs(named: Named, history: Path, commits: tuple[str, ...], downstream: Path) -> tuple[str, ...]:
    """Where the upstream's packages are in its tree (`pkg`, or `src/pkg`) at any of `commits`: those it is named
    for (bot.toml's `packages`, else its name), else those of its top-level packages the downstream runs or
    searches (`-m pkg.main`, `pkg://pkg.config`); none the downstream holds a directory of."""
    from bot.gitfiles import git_files

    own = {f.split("/", 1)[0] for f in git_files(downstream) if "/" in f} | {
        f.split("/", 2)[1] for f in git_files(downstream) if f.startswith("src/") and f.count("/") >= 2}
    found = _present(history, commits, tuple(p for p in named.upstream.packages if p not in own))
    if not found:  # never a package the downstream holds itself (its own `recipe`, where the upstream had one too)
        found = _present(history, commits, tuple(sorted(_named_in(downstream) - own)))
    if not found:
        raise UserError(f"{named.setting}: {named.upstream.name} holds no package "
                        f"{', '.join(named.upstream.packages)} at {commits[-1][:12]}, nor one the downstream's "
                        "launches run (expected a directory of that name, or packages = [...] in the upstream table "
                        "of bot.toml)")
    return found


def _present(history: Path, commits: tuple[str, ...], packages: tuple[str, ...]) -> tuple[str, ...]:
    found: list[str] = []
    for package in packages:
        for where in (package, f"src/{package}"):
            if any(has_dir(history, commit, where) for commit in commits) and where not in found:
                found.append(where)
                break
    return tuple(found)


def _named_in(downstream: Path) -> set[str]:
    """The top-level packages the downstream's files launch (`-m pkg.x`) or search (`pkg://pkg...`)."""
    from bot.downstream.detect import SEARCH
    from bot.gitfiles import git_files

    names: set[str] = set()
    for rel in git_files(downstream):
        path = downstream / rel
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > 1 << 20:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        names.update(m[1] for m in _MODULE.finditer(text))
        names.update(m["package"] for m in SEARCH.finditer(text))
    return names


@contextmanager
def reading(named: Named, before: str, after: str | None, downstream: Path
            ) -> Iterator[tuple[Path, Change, tuple[str, ...]]]:
    """The upstream's history, its change and where its packages are."""
    with upstream_history(named) as history:
        change = upstream_change(named, history, before, after)
        packages = package_dirs(named, history, tuple(c for c in (change.before, change.after) if c), downstream)
        yield history, change, packages


def watch_downstream(repo: RepoConfig, config_at: Callable[[Path], Config], given: str | None, rules: list[Rule],
                     before: str, after: str | None, options: PublishOptions, local: bool,
                     baseline: Baseline | None = None, policy: InferPolicy | None = None, jobs: int = 1
                     ) -> WatchResult:
    """The upstream's change acted on in the downstream `repo`: reported over its working tree (`local`: a dry run
    or a write) or published as its pull requests. `config_at`: the configuration with the downstream's own bot.toml
    (at a root), which may name the upstream when `given` does not."""
    from bot.upstream.watching import InferPolicy

    policy = policy or InferPolicy()
    if local:
        assert repo.path is not None
        return _local(repo, repo.path, config_at(repo.path), given, rules, before, after, options, baseline, policy,
                      jobs)
    return _published(repo, config_at, given, rules, before, after, options, policy)


def _local(repo: RepoConfig, root: Path, config: Config, given: str | None, rules: list[Rule], before: str,
           after: str | None, options: PublishOptions, baseline: Baseline | None, policy: InferPolicy,
           jobs: int) -> WatchResult:
    from bot.gitfiles import head_commit
    from bot.upstream.watching import choose

    named = named_upstream(config, root, given)
    with reading(named, before, after, root) as (history, change, packages), \
            laid_tree(root, history, change.before, change.after, packages) as laid:
        result, _, selected = choose(history, laid.root, rules, change, options, policy)
        if not result.rules:
            return result
        compose_since(options, laid)
        report = scan_laid(laid, selected, repo.github or repo.name, options, baseline, jobs)
    result.report = replace(report, commit=head_commit(root))
    if result.suggestions or result.not_understood:
        result.report.inferred = result.inferred()
    return result


def compose_since(options: PublishOptions, laid: Laid) -> None:
    """compose-check reports what the upstream's change broke: since the laid tree's first commit (or, asked,
    every launch that fails)."""
    if options.compose:
        options.compose_since = None if options.compose_all else laid.before


def scan_laid(laid: Laid, selected: list[Rule], label: str, options: PublishOptions, baseline: Baseline | None,
          jobs: int) -> Report:
    from bot.compose.checker import ComposeOptions
    from bot.engine.drift import drift_options
    from bot.engine.scan import scan
    from bot.upstream.watching import close_compose

    composing = None
    if options.compose:
        composing = drift_options(laid.root, options.compose_since) if options.compose_since else ComposeOptions()
    try:
        report = scan(laid.root, selected, label=label, paths=set(laid.own), baseline=baseline, compose=composing,
                      jobs=jobs)  # the downstream's files; the upstream's are read only as what they run
    finally:
        close_compose(composing)
    return laid.own_only(report)


def _published(repo: RepoConfig, config_at: Callable[[Path], Config], given: str | None, rules: list[Rule],
               before: str, after: str | None, options: PublishOptions, policy: InferPolicy) -> WatchResult:
    """Choose the rules over the default branch laid beside the upstream, then publish them (bot.publish.run, its
    worktree laid the same way)."""
    from bot.publish.credentials import api_url, from_environment
    from bot.publish.run import git_token, open_remote, publish, repo_lock
    from bot.upstream.watching import choose

    credentials = from_environment()
    remote = open_remote(repo, git_token(credentials, repo), repo.fetch_url(api_url()))
    default = repo.default_branch or remote.default_branch()
    with repo_lock(repo):
        remote.fetch(default, repo.branch_prefix)
    with ExitStack() as stack:
        with remote.worktree(default) as worktree:
            named = named_upstream(config_at(worktree), worktree, given)
            history, change, packages = stack.enter_context(reading(named, before, after, worktree))
            with laid_tree(worktree, history, change.before, change.after, packages) as laid:
                result, every, selected = choose(history, laid.root, rules, change, options, policy, publishing=True)
        if not result.rules:
            return result
        if options.upstream_ref is None:
            options.upstream_ref = upstream_ref(named, change)
        group = options.group or repo.group
        if policy.publish == "draft" and any(r.id in result.inferred_ids for r in result.rules):
            repo = replace(repo, draft=True)  # a rule the bot inferred is reviewed before it is merged
        result.published = publish(repo, every if group == "all" else selected, options, credentials,
                                   laid=_laying(history, change, packages, options))
    result.report = result.published.report
    if result.suggestions or result.not_understood:
        result.report.inferred = result.inferred()
    return result


def upstream_ref(named: Named, change: Change) -> str:
    """How the pull request names the upstream's change: `owner/name#N` (GitHub links it), else name and commit."""
    pull = change.pull_number
    upstream = named.upstream
    if pull is not None:
        return f"{upstream.source}#{pull}" if upstream.source_kind == "github" else f"{upstream.name} #{pull}"
    return f"{upstream.name} {change.after[:12]}"


def _laying(history: Path, change: Change, packages: tuple[str, ...], options: PublishOptions
            ) -> Callable[[Path], AbstractContextManager[tuple[Path, Callable[[Report], Report]]]]:
    """publish's `laid`: the worktree it checks out laid beside the upstream (compose-check's `since` its first
    commit), and the report kept to its files."""

    @contextmanager
    def lay(worktree: Path) -> Iterator[tuple[Path, Callable[[Report], Report]]]:
        with laid_tree(worktree, history, change.before, change.after, packages) as laid:
            compose_since(options, laid)
            yield laid.root, laid.own_only

    return lay
