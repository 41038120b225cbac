"""`bot watch`: act on an upstream change: the rules it triggers (and infers), over the repository.

The change is read with GitPython; a rule runs when the change touches its trigger paths or text,
or when a file the change edits breaks it; config YAML changes compose every launch again; rules
inferred with high confidence from new validation code run at once. Then a dry-run report, or the
follow-up pull requests. In GitHub Actions the push event gives the change and the workspace.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.commands.output import (
    EXIT_OK,
    FORMATS,
    baseline_for,
    baseline_options,
    commit_in,
    emit,
    git_repository,
    load_rules,
    local_repository,
    record_publish,
    remaining_code,
    report_to_actions,
    rule_options,
    sarif_option,
    say_local_dry_run,
    unpublishable,
)
from bot.engine.compose_check import RULE_ID, compose_rule, compose_scan, merge_into
from bot.engine.drift import drift_scan
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


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    watch = commands.add_parser(
        "watch", help="act on an upstream change: the rules it triggers, over the repo",
        description="Read an upstream change and run the rules it triggers over the repository; without --dry-run "
                    "it publishes pull requests. A local path with no GitHub repository configured is read where "
                    "it is, as a dry run: the change from its own history (default: its last commit), its working "
                    "tree as it is, no fetch, no token.")
    watch.add_argument("--repo", help="as for run; in GitHub Actions the event's repository by default")
    watch.add_argument("--before", help="the commit before the change (in Actions: from the push event)")
    watch.add_argument("--after", help="the commit after the change (default: the default branch's tip)")
    watch.add_argument("--config", type=Path)
    watch.add_argument("--group", choices=("rule", "all"))
    watch.add_argument("--dry-run", action="store_true", help="report only; open no pull request")
    watch.add_argument("--format", choices=FORMATS, default="text")
    watch.add_argument("--output", type=Path)
    watch.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    watch.add_argument("--check", action="store_true")
    watch.add_argument("--compose-all", action="store_true",
                       help="when the change edits config YAML, report every launch that does not compose, not only "
                            "those the change broke")
    watch.add_argument("--infer-confidence", choices=CONFIDENCE, default="high",
                       help="run rules inferred from the change's new validation at or above this confidence "
                            "(off: never; default high)")
    watch.add_argument("--inferred-as", choices=("draft", "dry-run", "ready"), default="draft",
                       help="how pull requests of inferred rules are published: draft (default), dry-run (report "
                            "them, publish nothing for them) or ready")
    rule_options(watch)
    sarif_option(watch)
    baseline_options(watch, write=False)


def main(args: argparse.Namespace) -> int:
    from bot import actions
    from bot.config import load_config

    payload = actions.event() if actions.in_actions() else {}
    span = (args.before, args.after) if args.before else actions.push_range(payload)
    name = args.repo or (payload.get("repository") or {}).get("full_name") or os.environ.get("GITHUB_REPOSITORY")
    if not name:
        raise UserError("watch: expected --repo (or GITHUB_REPOSITORY in GitHub Actions)")
    repo = load_config(args.config).resolve(name)
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if repo.path is None and actions.in_actions() and workspace and (Path(workspace) / ".git").exists():
        repo = replace(repo, path=Path(workspace))
    local_repository(repo.path, name)
    rules = load_rules(args)
    options = PublishOptions(group=args.group, allow_dirty=actions.in_actions(),
                             compose_all=getattr(args, "compose_all", False))
    if unpublishable(repo):
        assert repo.path is not None
        git_repository(repo.path)
        if span is not None:  # a local change that cannot be read is one line, before anything else is said
            if span[0]:
                commit_in(repo.path, span[0], "--before")
            commit_in(repo.path, span[1] or "HEAD", "--after")
        say_local_dry_run(repo)
        args.dry_run = True
        if span is None:
            print("bot: watch: no --before given: the change is the last commit (HEAD~1..HEAD)", file=sys.stderr)
            span = ("", "HEAD")
    elif not args.dry_run and (args.baseline is not None or args.no_baseline):
        raise UserError("--baseline and --no-baseline work with --dry-run; publishing uses the baseline committed "
                        "in the repository (.followup-bot-baseline.json)")
    if span is None:
        if not actions.in_actions():
            raise UserError("watch: expected --before SHA (or a push event in GITHUB_EVENT_PATH); "
                            "for a full run use bot run")
        return full_run_in_actions(args, repo, rules, options)
    # `bot run --since` hands its own arguments, without these
    policy = InferPolicy(getattr(args, "infer_confidence", "high"), getattr(args, "inferred_as", "draft"))
    result = watch(repo, rules, span[0], span[1], options, args.dry_run, baseline_for(args), policy)
    if not result.rules:
        print(f"no rule triggered by {result.change.before[:12]}..{result.change.after[:12]}, and the files it "
              f"edits break none: nothing to do")
        for line in result.suggestions:
            print(f"suggested rule (not run): {line}")
        for line in result.not_understood:
            print(line)
        if actions.in_actions():
            actions.set_outputs({"findings": "0", "notes": "0", "pr-urls": "[]", "triggered": "[]",
                                 "sarif-file": ""})
            actions.write_summary("### followup-bot\n\nNo rule triggered by this change; nothing to do.\n")
        return EXIT_OK
    report = result.report
    assert report is not None
    for rule_id, reason in sorted(result.reasons.items()):
        print(f"{rule_id}: {reason}", file=sys.stderr)
    code = record_publish(report, result.published) if result.published is not None else EXIT_OK
    emit(args, report)
    if actions.in_actions():
        report_to_actions(args, report, sorted(result.reasons), annotate=True)
    return remaining_code(args, report, code)


def full_run_in_actions(args: argparse.Namespace, repo: RepoConfig, rules: list[Rule], options: PublishOptions) -> int:
    """workflow_dispatch has no push range: run the chosen (or every enabled) rule over the repository."""
    if args.dry_run:
        if repo.path is None:
            raise UserError("watch: a dry-run without a push range needs the checked-out workspace")
        report = scan(repo.path, rules, label=repo.github or repo.name, baseline=baseline_for(args))
        code = EXIT_OK
    else:
        published = publish(repo, rules, options)
        report = published.report
        code = record_publish(report, published)
    emit(args, report)
    report_to_actions(args, report, sorted(r.id for r in rules if r.enabled), annotate=True)
    return code


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

    def runs(self, confidence: str) -> bool:
        return self.confidence != "off" and CONFIDENCE.index(confidence) <= CONFIDENCE.index(self.confidence)


def inferred_rules(local: Path, change: Change, rules: list[Rule], reasons: dict[str, str],
                   suggestions: list[str], not_understood: list[str], policy: InferPolicy = InferPolicy(),
                   publishing: bool = False) -> list[Rule]:
    """Rules inferred from the validation code the change adds, at or above the policy's confidence, run
    at once (published only when the policy says so; the rest are suggestions)."""
    from bot.rules.loader import parse_rule
    from bot.upstream.infer import infer

    if policy.confidence == "off":
        return []
    inference = infer(local, change.before, change.after, [r for r in rules if r.enabled])
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


def watch(repo: RepoConfig, rules: list[Rule], before: str, after: str | None, options: PublishOptions,
          dry_run: bool, baseline: Baseline | None = None, policy: InferPolicy = InferPolicy()) -> WatchResult:
    """Read the change, choose the rules it calls for, then scan (dry-run) or publish with them.

    A local repository with nowhere to publish to is read where it is: the change from its own
    history (`after` defaults to HEAD), its working tree as it is; no fetch, always a dry run.
    """
    if unpublishable(repo):
        assert repo.path is not None
        change = read_change(repo.path, before, after or "HEAD")
        result, _, selected = choose(repo.path, repo.path, rules, change, options, policy)
        if result.rules:
            dry_report(result, repo.path, selected, repo, options, baseline)
        return result
    credentials = from_environment()
    token = git_token(credentials, repo)
    remote = open_remote(repo, token, repo.fetch_url(api_url()))
    default = repo.default_branch or remote.default_branch()
    with repo_lock(repo):
        remote.fetch(default, repo.branch_prefix)
    change = read_change(remote.local, before, after or f"{NAMESPACE}{default}")
    with remote.worktree(default) as worktree:
        result, rules, selected = choose(remote.local, worktree, rules, change, options, policy,
                                         publishing=not dry_run)
        if not result.rules:
            return result
        if dry_run:
            dry_report(result, worktree, selected, repo, options, baseline)
            return result
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


def choose(history: Path, tree: Path, rules: list[Rule], change: Change, options: PublishOptions,
           policy: InferPolicy = InferPolicy(), publishing: bool = False) -> tuple[WatchResult, list[Rule], list[Rule]]:
    """The rules the change calls for: (the result so far, every rule with the inferred ones, the selection)."""
    reasons = {r.id: "triggered by the change" for r in triggered(rules, change)}
    if any(path.endswith((".yaml", ".yml")) for path in change.paths):
        reasons[RULE_ID] = "the change edits config YAML: every launch is composed again"
    suggestions: list[str] = []
    not_understood: list[str] = []
    inferred: list[Rule] = []
    if any(path.endswith(".py") for path in change.paths):
        inferred = inferred_rules(history, change, rules, reasons, suggestions, not_understood, policy, publishing)
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
               baseline: Baseline | None) -> None:
    result.report = scan(tree, selected, label=repo.github or repo.name, baseline=baseline)
    if result.suggestions or result.not_understood:
        result.report.inferred = result.inferred()
    if options.compose:
        if options.compose_since:
            composed = drift_scan(tree, options.compose_since, result.report.repo, baseline=result.report.baseline)
        else:
            composed = compose_scan(tree, label=result.report.repo, baseline=result.report.baseline)
        merge_into(result.report, composed[0])
