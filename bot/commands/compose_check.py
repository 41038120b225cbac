"""`bot compose-check`: compose every launch against the repository's Hydra config."""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from bot.commands.action import report_to_actions
from bot.commands.output import (
    EXIT_INTERNAL,
    baseline_for,
    baseline_options,
    commit_in,
    emit,
    file_timeout_option,
    git_repository,
    local_repository,
    relative,
    remaining_code,
    sarif_option,
)
from bot.errors import UserError
from bot.report import FORMATS


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    compose = commands.add_parser(
        "compose-check", help="compose every launch against the repo's Hydra config",
        epilog="Dev only, not for everyday use: with BOT_COMPOSE_INDEX_CROSS_CHECK=1 in the environment, every "
               "override list the compose index decides is also applied with Hydra, and a verdict Hydra does not "
               "share is an internal error naming the launch and key (the real-world check sets it).")
    compose.add_argument("--repo", required=True, help="a local repository path")
    mode = compose.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="report only (the default)")
    mode.add_argument("--write", action="store_true", help="apply the verified fixes to the working tree")
    compose.add_argument("--format", choices=FORMATS, default="text")
    compose.add_argument("--output", type=Path)
    sarif_option(compose)
    compose.add_argument("--check", action="store_true")
    compose.add_argument("--since", metavar="SHA",
                         help="report only what fails now and composed with the config at SHA (drift); "
                              "keys the YAML changed since SHA renamed are fixed")
    compose.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    compose.add_argument("--verbose", action="store_true", help="list each launch not checked, and why")
    compose.add_argument("--files", nargs="*", metavar="PATH",
                         help="compose only these files' launches (against the whole repository's config)")
    baseline_options(compose, write=False)
    file_timeout_option(compose)


def main(args: argparse.Namespace) -> int:
    root = local_repository(Path(args.repo), args.repo)  # first: before Hydra is imported
    from bot.commands.run import jobs_for
    from bot.engine.drift import drift_scan
    from bot.engine.scan import compose_scan
    from bot.engine.write import write_changes, write_summary

    if args.since:
        if args.files is not None:
            raise UserError("--files: not with --since (drift is reported for the whole repository)")
        commit_in(git_repository(root), args.since, "--since")
    only = {relative(root, f) for f in args.files} if args.files is not None else None
    seconds = args.file_timeout or None
    from bot.commands.progress import Progress

    jobs = jobs_for(None)  # a scan with only compose-check's checker: on the usable cores, as `run`
    with Progress("composing") as progress:
        if args.since:
            report, stats = drift_scan(root, args.since, args.repo, seconds, baseline_for(args), progress, jobs)
        else:
            report, stats = compose_scan(root, label=args.repo, seconds=seconds, baseline=baseline_for(args),
                                         progress=progress, jobs=jobs, paths=only)
    if args.write:
        write_changes(root, report)
    emit(args, report)
    report_to_actions(args, report)
    if args.verbose:
        for path, line, reason in stats.unresolved:
            what = reason if reason.startswith("partly checked") else f"not checked: {reason}"
            print(f"{path}:{line}: launch {what}", file=sys.stderr)
    whole = {(path, line) for path, line, reason in stats.unresolved if not reason.startswith("partly")}
    print(f"compose-check: {stats.launches - len(whole)} of {stats.launches} launches composed, "
          f"{stats.readings} ways through their branches", file=sys.stderr)
    if stats.unresolved:
        print(f"compose-check: {not_checked_line(stats.unresolved)}"
              f"{'' if args.verbose else ' (--verbose lists each launch)'}", file=sys.stderr)
    if stats.stand_ins:
        print(f"compose-check: composed with an empty config for {', '.join(sorted(stats.stand_ins))}, which a "
              "Hydra plugin not installed here provides", file=sys.stderr)
    if stats.schema_stand_ins:
        print("compose-check: composed with an empty, open node for "
              f"{', '.join(f'{m} ({w})' for m, w in sorted(stats.schema_stand_ins.items()))}, which the repository "
              "registers under a name it computes when it runs: the schema's fields and types were not checked",
              file=sys.stderr)
    if args.since:
        print(f"compose-check: {stats.known} failures that the config at {args.since} gave too are not "
              "reported (--since: only what changed since)", file=sys.stderr)
    if args.write and (unwritten := write_summary(report)) is not None:  # as for run: exit 3, naming the files
        print(f"bot: {unwritten}", file=sys.stderr)
        return remaining_code(args, report, EXIT_INTERNAL)
    return remaining_code(args, report)


# why a launch was not composed, in kinds a reader can count (the first pattern that matches names it)
_WHY = [
    (re.compile(r"has no @hydra\.main decorator"), "the entry is no Hydra app"),
    (re.compile(r"^(module|script) .* is not in the repository"), "the entry is not in the repository"),
    (re.compile(r"^runs .*, which receives the overrides"), "a repository script receives the overrides"),
    (re.compile(r"^partly checked"), "partly checked: more ways through the branches than are composed"),
    (re.compile(r"leaves some of its arguments out"), "a doc leaves arguments out"),
    (re.compile(r"search path .* is not in the repository|outside the repository"),
     "its config is outside the repository"),
    (re.compile(r"does not compose \(see the errors\)|broken"), "its config is broken (see the errors)"),
    (re.compile(r"run time|chosen when the script runs"), "its config is chosen at run time"),
]


def reason_kind(reason: str) -> str:
    return next((kind for pattern, kind in _WHY if pattern.search(reason)), reason)


def not_checked_line(unresolved: list[tuple[str, int, str]]) -> str:
    """E.g. `not checked: 120 the entry is no Hydra app, 40 the entry is not in the repository, ...`."""
    counts = Counter(reason_kind(reason) for _, _, reason in unresolved)
    return "launches not (or partly) checked: " + ", ".join(
        f"{count} {kind}" for kind, count in sorted(counts.items(), key=lambda t: (-t[1], t[0])))
