"""`bot run`: scan one repository or many, fix what breaks the rules, report, or publish."""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.commands.action import report_to_actions
from bot.commands.output import (
    EXIT_INTERNAL,
    EXIT_OK,
    baseline_for,
    baseline_options,
    emit,
    file_timeout_option,
    load_rules,
    local_repository,
    positive_int,
    record_publish,
    relative,
    remaining_code,
    rule_options,
    sarif_option,
    say_local_dry_run,
    unpublishable,
    write_baseline,
)
from bot.errors import UserError
from bot.report import FORMATS
from bot.secrets import redact

if TYPE_CHECKING:
    from bot.cache.reuse import CachedResults
    from bot.config import RepoConfig
    from bot.model import Report
    from bot.rules.model import Rule


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    run = commands.add_parser(
        "run", help="scan a repository, fix what breaks the rules, report; without --dry-run or --write it "
                    "publishes pull requests",
        description="Scan a repository with the enabled rules and report what breaks them. Without --dry-run or "
                    "--write it PUBLISHES: it opens, updates or closes a pull request per rule on GitHub "
                    "(a local path with no GitHub repository configured is only reported, as a dry run).")
    run.add_argument("--repo", action="append", default=[],
                     help="a local path, owner/name, or a name from the config file (repeatable)")
    run.add_argument("--repos", type=Path, metavar="FILE", help="a file of repositories, one per line (# comments)")
    run.add_argument("--shard", metavar="I/N", help="only the I-th of N deterministic parts of the repository list")
    run.add_argument("--config", type=Path, help="the repository registry (default: ./bot.toml if present)")
    run.add_argument("--group", choices=("rule", "all"), help="one pull request per rule (default) or one for all")
    run.add_argument("--allow-dirty", action="store_true", help="publish from a local path with uncommitted changes")
    rule_options(run)
    mode = run.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true",
                      help="change nothing anywhere, publish nothing; print the report (with the fixes it would make)")
    mode.add_argument("--write", action="store_true",
                      help="apply the verified fixes to the local working tree; publish nothing")
    run.add_argument("--format", choices=FORMATS, default="text")
    run.add_argument("--output", type=Path, help="write the report to this file instead of stdout")
    sarif_option(run)
    run.add_argument("--check", action="store_true",
                     help="exit 1 while findings (not notes) remain or a file could not be checked (a CI gate)")
    run.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                     help="parse files in N processes (default: the usable cores, at most 8; a repository of "
                          "fewer than 400 files to check is read in one)")
    run.add_argument("--cache-dir", type=Path, metavar="DIR",
                     help="keep per-file results here (default: $BOT_CACHE_DIR or ~/.cache/followup-bot)")
    run.add_argument("--no-cache", action="store_true", help="check every file from scratch; keep no results")
    run.add_argument("--compose", action="store_true",
                     help="also compose every launch against the repo's Hydra config (rule hydra-compose)")
    run.add_argument("--since", metavar="SHA",
                     help="act as watch does on the change SHA..default branch (a local repository: SHA..HEAD): "
                          "run only the rules the change triggers")
    run.add_argument("--files", nargs="*", metavar="PATH", help="scan only these files (pre-commit passes them)")
    run.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    baseline_options(run)
    file_timeout_option(run)


def main(args: argparse.Namespace) -> int:
    from bot.repolist import repositories

    names = repositories(args.repo, args.repos, args.shard)
    if len(names) == 1 and not args.shard and not args.repos:
        args.repo = names[0]
        return run_one(args)
    forget_all(args, names)
    return run_many(args, names)


def forget_all(args: argparse.Namespace, names: list[str]) -> None:
    """Every local repository of the list off the import path before the first is scanned (bot.isolate_path):
    the first one's imports must not come from the others'. A name that does not resolve fails in its turn."""
    from bot.config import load_config
    from bot.isolate_path import forget

    try:
        config = load_config(args.config)
    except UserError:
        return
    for name in names:
        try:
            path = config.resolve(name).path
        except UserError:
            continue
        if path is not None:
            forget(path)


def run_many(args: argparse.Namespace, names: list[str]) -> int:
    """Each repository in turn; one that fails is reported and the others still run."""
    if args.output is not None and "{repo}" not in str(args.output):
        raise UserError(f"--output {args.output}: with several repositories, expected a path with {{repo}} in it")
    failed: list[str] = []
    worst = EXIT_OK
    for name in names:
        print(f"== {name}", file=sys.stderr)
        one = copy.copy(args)
        one.repo = name
        one.json_lines = True  # one report per line on stdout: JSON Lines
        if args.output is not None:
            one.output = Path(str(args.output).replace("{repo}", re.sub(r"[^A-Za-z0-9_.-]+", "_", name)))
        try:
            code = run_one(one)
        except UserError as exc:
            print(redact(f"bot: error: {name}: {exc}"), file=sys.stderr)
            failed.append(name)
            continue
        if code == EXIT_INTERNAL:
            failed.append(name)
        worst = max(worst, code if code != EXIT_INTERNAL else EXIT_OK)
    if failed:
        print(f"bot: {len(failed)} of {len(names)} repositories failed: {', '.join(failed)}", file=sys.stderr)
        return EXIT_INTERNAL
    return worst


def run_one(args: argparse.Namespace) -> int:
    from bot.config import load_config

    if args.since:
        from bot.commands import watch

        if args.write or args.write_baseline is not None:
            raise UserError("--since works with --dry-run or publishing, not --write or --write-baseline")
        args.before, args.after = args.since, None
        return watch.main(args)
    repo = load_config(args.config).resolve(args.repo)
    local_repository(repo.path, args.repo)
    rules = load_rules(args)
    code = EXIT_OK
    if not (args.dry_run or args.write):
        if unpublishable(repo):
            say_local_dry_run(repo)
            args.dry_run = True
        elif args.write_baseline is not None:
            args.dry_run = True  # writing a baseline never publishes
        elif args.baseline is not None or args.no_baseline:
            raise UserError("--baseline and --no-baseline work with --dry-run or --write; publishing uses the "
                            "baseline committed in the repository (.followup-bot-baseline.json)")
    if args.dry_run or args.write:
        report = local_report(args, repo, rules)
    else:
        from bot.publish.run import PublishOptions, publish

        result = publish(repo, rules, PublishOptions(group=args.group, allow_dirty=args.allow_dirty,
                                                     compose=args.compose))
        report = result.report
        code = record_publish(report, result)
    emit(args, report)
    report_to_actions(args, report)
    if args.write_baseline is not None:
        only = {relative(repo.path, f) for f in args.files} if args.files is not None and repo.path else None
        write_baseline(args, report, only, repo.path)
    if args.write:  # a write that left a change unwritten exits 3, naming the files it wrote
        from bot.engine.write import write_summary

        if (unwritten := write_summary(report)) is not None:
            print(f"bot: {unwritten}", file=sys.stderr)
            code = EXIT_INTERNAL
    return remaining_code(args, report, code)


def local_report(args: argparse.Namespace, repo: RepoConfig, rules: list[Rule]) -> Report:
    """A dry run or a write: of a local path, or (dry run) of a shallow fetch of the default branch."""
    from bot.engine.scan import scan
    from bot.publish.credentials import warn_actions_token

    if args.dry_run:
        warn_actions_token()
    if repo.path is None:
        if args.write:
            raise UserError(f"--repo {args.repo}: --write edits a local working tree; give a local path")
        from bot.publish.run import fetch_for_scan

        remote, default = fetch_for_scan(repo)
        with remote.worktree(default) as worktree:
            return scan(worktree, rules, label=repo.github or args.repo, baseline=baseline_for(args))
    only = {relative(repo.path, f) for f in args.files} if args.files is not None else None
    baseline = baseline_for(args)
    from bot.commands.progress import Progress

    composing = None
    if args.compose:  # compose-check's checker in the same scan: every launch composed (rule hydra-compose)
        from bot.compose.checker import ComposeOptions

        composing = ComposeOptions()
    with Progress("checking") as progress:
        report = scan(repo.path, rules, label=args.repo, paths=only, jobs=jobs_for(args.jobs),
                      memo=cached_results(args, repo.path, rules), seconds=args.file_timeout or None,
                      baseline=baseline, progress=progress, compose=composing)
    if args.write:
        from bot.engine.write import write_changes

        write_changes(repo.path, report)
    return report


def jobs_for(asked: int | None) -> int:
    """--jobs, or the cores this process may run on (at most 8): on two cores a cold run of 20,000
    scripts takes 0.54 of the time of one process (docs/dev/benchmarks.md)."""
    if asked is not None:
        return max(1, asked)
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, 8))


def cached_results(args: argparse.Namespace, root: Path, rules: list[Rule]) -> CachedResults | None:
    """Earlier results for `root`, unless --no-cache; a dry run may take cached fixes, a write re-checks them."""
    if args.no_cache:
        return None
    from bot.cache.reuse import CachedResults
    from bot.cache.store import ResultCache, default_directory, fingerprint

    store = ResultCache(args.cache_dir or default_directory(), root, fingerprint([r for r in rules if r.enabled]))
    return CachedResults(store, reuse_changes=args.dry_run)
