"""Watching an upstream change: read it, choose the rules it calls for (those it triggers, those the files
it edits break, those inferred from the validation code it adds, and a compose check when it edits config
YAML), then report them over the repository (a dry run) or publish their follow-up pull requests.

`bot watch` (bot.commands.watch) is its command line; `bot run --since` and the Action use it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.compose.checker import ComposeOptions, load_composing
from bot.compose.findings import RULE_ID, compose_rule
from bot.engine.before import FailingBefore
from bot.engine.drift import drift_options
from bot.engine.scan import scan
from bot.errors import UserError
from bot.model import Inferred
from bot.publish.credentials import api_url, from_environment
from bot.publish.run import PublishOptions, git_token, open_remote, publish, repo_lock
from bot.publish.vcs import NAMESPACE
from bot.upstream.change import Change, read_change, triggered

if TYPE_CHECKING:
    from bot.config import RepoConfig
    from bot.model import Baseline, Report
    from bot.publish.publisher import PublishResult
    from bot.rules.model import Rule
    from bot.upstream.config_migration import ConfigMigration
    from bot.upstream.infer import Begun


@dataclass
class WatchResult:
    change: Change
    rules: list[Rule]  # the rules that run over the whole repository
    reasons: dict[str, str]
    published: PublishResult | None = None
    report: Report | None = None
    suggestions: list[str] = field(default_factory=list)  # inferred rules not confident enough to run
    not_understood: list[str] = field(default_factory=list)  # new validation the bot could not read
    inferred_ids: set[str] = field(default_factory=set)  # the rules among `rules` inferred from the change

    def inferred(self) -> Inferred:
        return Inferred(self.suggestions, self.not_understood)


CONFIDENCE = ("high", "low", "off")


@dataclass(frozen=True)
class InferPolicy:
    """What the maintainer lets inferred rules do: the lowest confidence that runs, and how they publish."""

    confidence: str = "high"  # high | low | off
    publish: str = "draft"  # draft | dry-run | ready
    new_defaults: bool = False  # an upgrade's: a new flag guarding old code is set only where the change's launches do

    def runs(self, confidence: str) -> bool:
        return self.confidence != "off" and CONFIDENCE.index(confidence) <= CONFIDENCE.index(self.confidence)


def inferred_rules(local: Path, change: Change, rules: list[Rule], reasons: dict[str, str],
                   suggestions: list[str], not_understood: list[str], policy: InferPolicy = InferPolicy(),
                   publishing: bool = False, begun: Begun | None = None) -> list[Rule]:
    """Rules inferred from the validation code the change adds, at or above the policy's confidence, run
    at once (published only when the policy says so; the rest are suggestions). `begun`: the inference, begun
    before (begin_inference)."""
    from bot.rules.loader import parse_rule
    from bot.upstream.infer import infer

    if policy.confidence == "off":
        return []
    inference = infer(local, change.before, change.after, [r for r in rules if r.enabled], begun)
    not_understood.extend(u.describe() for u in inference.not_understood)
    out: list[Rule] = []
    for proposal in inference.proposals:
        where = proposal.check.where
        if not policy.runs(proposal.confidence) or (publishing and policy.publish == "dry-run"):
            keys = ", ".join(proposal.keys[:3]) + (", ..." if len(proposal.keys) > 3 else "")
            guard = f" (only when `{proposal.check.guard}`)" if proposal.check.guard else ""
            suggestions.append(f"{where}: `{proposal.check.text}`{guard} suggests rule {proposal.rule['id']} "
                               f"on {keys}; run `bot infer` to see it")
            continue
        try:
            rule = parse_rule(proposal.rule, Path(f"{proposal.rule['id']}.yaml"))
        except UserError as exc:  # a proposal the rule format refuses is a note, never the end of the run
            not_understood.append(f"{where}: `{proposal.check.text}` made a rule the format refuses: {exc}")
            continue
        if rule.id in {r.id for r in [*rules, *out]}:
            not_understood.append(f"{where}: rule {rule.id} is already loaded; the inferred one is not run")
            continue
        reasons[rule.id] = f"inferred from `{proposal.check.text}` at {where}"
        out.append(rule)
    return out


@dataclass(frozen=True)
class Migrations:
    """What the change says of its migrations, read (read_migrations) before the rules inferred from its checks are
    known: the config migration (bot.upstream.config_migration) and the entry points' moves, high and low."""

    config: ConfigMigration
    moved: dict[str, Any] | None
    suggested_moves: dict[str, Any] | None


def read_migrations(history: Path, tree: Path, change: Change, policy: InferPolicy = InferPolicy()
                    ) -> Migrations | None:
    """The change's migrations read (None when the policy runs no inferred rule, or the change edits neither config
    nor Python)."""
    from bot.upstream.config_migration import ConfigMigration, read_migration
    from bot.upstream.entry_migration import entry_migration

    if policy.confidence == "off" or not (_edits_config(change) or _edits_python(change)):
        return None
    upstream = f"#{change.pull_number}" if change.pull_number is not None else change.after[:12]
    migration = read_migration(history, tree, change.before, change.after, change.paths, upstream,
                               policy.new_defaults) if _edits_config(
        change) else ConfigMigration(None, None)
    moved, suggested_moves = entry_migration(history, change.before, change.after, upstream) if _edits_python(
        change) else (None, None)
    return Migrations(migration, moved, suggested_moves)


def migrated_rules(history: Path, tree: Path, change: Change, rules: list[Rule], reasons: dict[str, str],
                   suggestions: list[str], not_understood: list[str], policy: InferPolicy = InferPolicy(),
                   publishing: bool = False, read: Migrations | None = None) -> list[Rule]:
    """The migrations read from the change: what it did to its apps' composed configs (bot.upstream.config_migration)
    and the entry points it moved (bot.upstream.entry_migration). Their high-confidence steps run, each kind as one
    rule, when the policy lets inferred rules run; the rest are suggestions. `read`: them read before
    (read_migrations)."""
    from bot.rules.loader import parse_rule
    from bot.upstream.migration_rule import HIGH, LOW

    if policy.confidence == "off":
        return []
    read = read if read is not None else read_migrations(history, tree, change, policy)
    if read is None:
        return []
    migration = read.config
    out: list[Rule] = []
    for proposed, confidence in ((migration.rule, HIGH), (read.moved, HIGH), (migration.suggested, LOW),
                                 (read.suggested_moves, LOW)):
        if proposed is None:
            continue
        if not policy.runs(confidence) or (publishing and policy.publish == "dry-run"):
            suggestions.append(f"the change: `{proposed['title']}` suggests rule {proposed['id']}; "
                               "run `bot infer` to see it")
            continue
        try:
            rule = parse_rule(proposed, Path(f"{proposed['id']}.yaml"))
        except UserError as exc:
            not_understood.append(f"the change made a migration the format refuses: {exc}")
            continue
        if rule.id in {r.id for r in [*rules, *out]}:
            continue
        reasons[rule.id] = f"inferred from the change: {proposed['title']}"
        out.append(rule)
    not_understood.extend(f"the change's config: apps read `{key}` differently; left to a person"
                          for key in migration.disagreeing)
    return out


def watch(repo: RepoConfig, rules: list[Rule], before: str, after: str | None, options: PublishOptions,
          dry_run: bool, baseline: Baseline | None = None, policy: InferPolicy = InferPolicy(),
          jobs: int = 1) -> WatchResult:
    """Read the change, choose the rules it calls for, then scan (dry-run, on `jobs` processes) or publish with
    them.

    A local repository with nowhere to publish to is read where it is: the change from its own
    history (`after` defaults to HEAD), its working tree as it is; no fetch, always a dry run.
    """
    if repo.local_only:
        assert repo.path is not None
        change = read_change(repo.path, before, after or "HEAD")
        prepared = prepared_compose(repo.path, change, options)
        try:
            result, _, selected = choose(repo.path, repo.path, rules, change, options, policy)
            if result.rules:
                dry_report(result, repo.path, selected, repo, options, baseline, jobs, prepared)
        finally:
            close_compose(prepared)
        return result
    credentials = from_environment()
    token = git_token(credentials, repo)
    remote = open_remote(repo, token, repo.fetch_url(api_url()))
    default = repo.default_branch or remote.default_branch()
    with repo_lock(repo):
        remote.fetch(default, repo.branch_prefix)
    change = read_change(remote.local, before, after or f"{NAMESPACE}{default}")
    begun = begin_inference(remote.local, change, policy)  # read while git checks out the tree
    try:
        with remote.worktree(default) as worktree:
            if begun is not None:
                begun.widen()  # git has checked the tree out: its core reads too
            prepared = prepared_compose(worktree, change, options) if dry_run else None
            try:
                result, rules, selected = choose(remote.local, worktree, rules, change, options, policy,
                                                 publishing=not dry_run, begun=begun)
                if not result.rules:
                    return result
                if dry_run:
                    dry_report(result, worktree, selected, repo, options, baseline, jobs, prepared)
                    return result
            finally:
                close_compose(prepared)
    finally:
        if begun is not None:
            begun.close()
    pull = change.pull_number
    if pull is not None and options.upstream_ref is None:
        options.upstream_ref = f"#{pull}"
    group = options.group or repo.group
    if policy.publish == "draft" and any(r.id in result.inferred_ids for r in result.rules):
        repo = replace(repo, draft=True)  # a rule the bot inferred is reviewed before it is merged
    # one PR for all rules always carries every enabled rule: a subset would drop or close the others' fixes
    result.published = publish(repo, rules if group == "all" else selected, options, credentials)
    result.report = result.published.report
    if result.suggestions or result.not_understood:
        result.report.inferred = result.inferred()
    return result


def begin_inference(history: Path, change: Change, policy: InferPolicy) -> Begun | None:
    """The inference from the change's Python files begun (read on forked workers while the caller goes on), when
    choose will ask for it."""
    from bot.upstream.infer import begin

    if policy.confidence == "off" or not _edits_python(change):
        return None
    return begin(history, change.before, change.after, beside=1)  # git's checkout keeps a core


def _edits_config(change: Change) -> bool:
    return any(path.endswith((".yaml", ".yml")) for path in change.paths)


def _edits_python(change: Change) -> bool:
    return any(path.endswith(".py") for path in change.paths)


def choose(history: Path, tree: Path, rules: list[Rule], change: Change, options: PublishOptions,
           policy: InferPolicy = InferPolicy(), publishing: bool = False, begun: Begun | None = None
           ) -> tuple[WatchResult, list[Rule], list[Rule]]:
    """The rules the change calls for: (the result so far, every rule with the inferred ones, the selection);
    `begun`: the inference from the change, begun before (begin_inference)."""
    reasons = {r.id: "triggered by the change" for r in triggered(rules, change)}
    if _edits_config(change):
        reasons[RULE_ID] = "the change edits config YAML: every launch it reaches is composed again"
    suggestions: list[str] = []
    not_understood: list[str] = []
    inferred: list[Rule] = []
    migrations = read_migrations(history, tree, change, policy)  # while the change's checks are read (`begun`)
    if _edits_config(change):
        load_composing()  # what the scan's compose check imports, loaded meanwhile too (before its workers fork)
    if _edits_python(change):
        inferred = inferred_rules(history, change, rules, reasons, suggestions, not_understood, policy, publishing,
                                  begun)
    if _edits_config(change) or _edits_python(change):
        inferred += migrated_rules(history, tree, change, [*rules, *inferred], reasons, suggestions, not_understood,
                                   policy, publishing, migrations)
    rules = [*rules, *inferred]
    options.notes = [*options.notes, *(f"Suggested rule (not applied): {s}" for s in suggestions),
                     *(f"Validation changed upstream, not understood: {u}" for u in not_understood)]
    enabled = [r for r in rules if r.enabled]
    edited = scan(tree, enabled, paths=set(change.edited))
    for finding in edited.findings:
        reasons.setdefault(finding.rule, f"the change edits {finding.path}, which breaks it")
    selected = [r if r.id in reasons else replace(r, enabled=False) for r in rules]
    options.compose = RULE_ID in reasons
    if options.compose and not options.compose_all:  # what the change broke, not what failed before it too
        options.compose_since = change.before
    result = WatchResult(change, [r for r in selected if r.enabled], reasons, suggestions=suggestions,
                         not_understood=not_understood, inferred_ids={r.id for r in inferred})
    if options.compose:
        result.rules.append(compose_rule())
    return result, rules, selected


def dry_report(result: WatchResult, tree: Path, selected: list[Rule], repo: RepoConfig, options: PublishOptions,
               baseline: Baseline | None, jobs: int = 1, prepared: ComposeOptions | None = None) -> None:
    """The report of the selected rules over the tree, on `jobs` processes (with compose-check's findings when the
    change edits config YAML: from `prepared`, made before the rules were chosen, when there is one)."""
    composing = None
    if options.compose:  # compose-check in the same scan, what the change broke (or all of it: --compose-all)
        composing = prepared if prepared is not None else _compose_options(tree, options.compose_since)
    try:
        result.report = scan(tree, selected, label=repo.github or repo.name, baseline=baseline, compose=composing,
                             jobs=jobs)
    finally:
        close_compose(composing)  # the tree before the change, if it was exported
    if result.suggestions or result.not_understood:
        result.report.inferred = result.inferred()


def prepared_compose(tree: Path, change: Change, options: PublishOptions) -> ComposeOptions | None:
    """compose-check's options for a dry run's scan, made as soon as the tree is there when the change edits config
    YAML (choose then asks for compose-check, since the change's first commit unless `compose_all`), so the tree
    before the change is exported while the rules are chosen; None otherwise. close_compose ends it."""
    if not _edits_config(change):
        return None
    return _compose_options(tree, options.compose_since if options.compose_all else change.before)


def _compose_options(tree: Path, since: str | None) -> ComposeOptions:
    """compose-check's options: what the change since `since` broke (the tree before it begun exporting), or
    every launch that fails (no `since`)."""
    if not since:
        return ComposeOptions()
    composing = drift_options(tree, since)
    if isinstance(composing.known, FailingBefore):
        composing.known.begin()  # the tree before the change exported once, while the work goes on
    return composing


def close_compose(composing: ComposeOptions | None) -> None:
    """The tree before the change removed, if it was exported (again: nothing)."""
    if composing is not None and isinstance(composing.known, FailingBefore):
        composing.known.close()
