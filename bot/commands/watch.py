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
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.commands.action import report_to_actions
from bot.commands.output import (
    EXIT_INTERNAL,
    EXIT_OK,
    baseline_for,
    baseline_options,
    commit_in,
    emit,
    git_repository,
    load_rules,
    local_repository,
    record_publish,
    remaining_code,
    rule_options,
    sarif_option,
    say_local_dry_run,
    unpublishable,
)
from bot.engine.scan import scan
from bot.errors import UserError
from bot.publish.run import PublishOptions, publish
from bot.report import FORMATS
from bot.upstream.watching import CONFIDENCE, InferPolicy, WatchResult, watch

if TYPE_CHECKING:
    from bot.config import RepoConfig
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
    watch.add_argument("--upstream", nargs="?", const="", metavar="NAME|PATH|URL",
                       help="the change is the upstream's (a registry name, a checkout, a git URL or owner/name; bare: "
                            "the upstream the repository's bot.toml names): its rules run over --repo, the downstream, "
                            "whose launches of the upstream compose against the upstream at --after")
    watch.add_argument("--write", action="store_true",
                       help="with --upstream: write the fixes into the downstream's working tree (a local path)")
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

    if getattr(args, "upstream", None) is not None:
        return upstream_main(args)
    if getattr(args, "write", False):
        raise UserError("watch: --write works with --upstream; for the repository's own change use --dry-run or "
                        "bot run --write")
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
    result = watch(repo, rules, span[0], span[1], options, args.dry_run, baseline_for(args), policy, _jobs(args))
    if not result.rules:
        return nothing_triggered(result)
    report = result.report
    assert report is not None
    for rule_id, reason in sorted(result.reasons.items()):
        print(f"{rule_id}: {reason}", file=sys.stderr)
    code = record_publish(report, result.published) if result.published is not None else EXIT_OK
    emit(args, report)
    if actions.in_actions():
        report_to_actions(args, report, sorted(result.reasons), annotate=True)
    return remaining_code(args, report, code)


def upstream_main(args: argparse.Namespace) -> int:
    """`watch --upstream`: the upstream's change, over the downstream --repo (bot.upstream.downstream_watch)."""
    from bot import actions
    from bot.config import load_config
    from bot.upstream.downstream_watch import watch_downstream

    if not args.before:
        raise UserError("watch --upstream: expected --before SHA, the upstream's commit before the change")
    name = args.repo or os.environ.get("GITHUB_REPOSITORY")
    if not name:
        raise UserError("watch --upstream: expected --repo, the downstream (or GITHUB_REPOSITORY in GitHub Actions)")
    repo = load_config(args.config, repo=Path(name) if Path(name).is_dir() else None).resolve(name)
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if repo.path is None and actions.in_actions() and workspace and (Path(workspace) / ".git").exists():
        repo = replace(repo, path=Path(workspace))
    local_repository(repo.path, name)
    if args.write and repo.path is None:
        raise UserError(f"--repo {name}: --write edits a local working tree; give a local path")
    if repo.path is not None:
        git_repository(repo.path)
    if not (args.dry_run or args.write) and unpublishable(repo):
        say_local_dry_run(repo)
        args.dry_run = True
    elif not (args.dry_run or args.write) and (args.baseline is not None or args.no_baseline):
        raise UserError("--baseline and --no-baseline work with --dry-run or --write; publishing uses the baseline "
                        "committed in the repository (.followup-bot-baseline.json)")
    rules = load_rules(args)
    options = PublishOptions(group=args.group, allow_dirty=actions.in_actions(), compose_all=args.compose_all)
    policy = InferPolicy(args.infer_confidence, args.inferred_as)
    result = watch_downstream(repo, lambda root: load_config(args.config, repo=root), args.upstream or None, rules,
                              args.before, args.after, options, bool(args.dry_run or args.write), baseline_for(args),
                              policy, _jobs(args))
    if not result.rules:
        return nothing_triggered(result)
    report = result.report
    assert report is not None
    for rule_id, reason in sorted(result.reasons.items()):
        print(f"{rule_id}: {reason}", file=sys.stderr)
    code = record_publish(report, result.published) if result.published is not None else EXIT_OK
    if args.write:
        from bot.engine.write import write_changes, write_summary

        assert repo.path is not None
        write_changes(repo.path, report)
        if (unwritten := write_summary(report)) is not None:
            print(f"bot: {unwritten}", file=sys.stderr)
            code = EXIT_INTERNAL
    emit(args, report)
    if actions.in_actions():
        report_to_actions(args, report, sorted(result.reasons), annotate=True)
    return remaining_code(args, report, code)


def _jobs(args: argparse.Namespace) -> int:
    """The processes a dry run's scan runs on: `run --since`'s --jobs, else the usable cores (at most 8, as `run`)."""
    from bot.engine.forks import usable_cores

    asked = getattr(args, "jobs", None)
    return max(1, asked) if asked is not None else max(1, min(usable_cores(), 8))


def nothing_triggered(result: WatchResult) -> int:
    """Say that the change triggers no rule (with the rules it suggests and what it did not understand)."""
    from bot import actions

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
