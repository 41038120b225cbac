"""`bot compose-check`: compose every launch against the repository's Hydra config."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.commands.output import (
    EXIT_INTERNAL,
    FORMATS,
    baseline_for,
    baseline_options,
    emit,
    file_timeout_option,
    local_repository,
    remaining_code,
)


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    compose = commands.add_parser("compose-check", help="compose every launch against the repo's Hydra config")
    compose.add_argument("--repo", required=True, help="a local repository path")
    mode = compose.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="report only (the default)")
    mode.add_argument("--write", action="store_true", help="apply the verified fixes to the working tree")
    compose.add_argument("--format", choices=FORMATS, default="text")
    compose.add_argument("--output", type=Path)
    compose.add_argument("--check", action="store_true")
    compose.add_argument("--since", metavar="SHA",
                         help="report only what fails now and composed with the config at SHA (drift); "
                              "keys the YAML changed since SHA renamed are fixed")
    compose.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    baseline_options(compose, write=False)
    file_timeout_option(compose)


def main(args: argparse.Namespace) -> int:
    root = local_repository(Path(args.repo), args.repo)  # first: before Hydra is imported
    from bot.engine.compose_check import compose_scan
    from bot.engine.drift import failing_before
    from bot.engine.write import write_changes, write_summary

    seconds = args.file_timeout or None
    known = failing_before(root.resolve(), args.since, seconds) if args.since else None
    report, stats = compose_scan(root, label=str(root.resolve()), since=args.since, seconds=seconds, known=known,
                                 baseline=baseline_for(args))
    if args.write:
        write_changes(root, report)
    emit(args, report)
    for path, line, reason in stats.unresolved:
        what = reason if reason.startswith("partly checked") else f"not checked: {reason}"
        print(f"{path}:{line}: launch {what}", file=sys.stderr)
    whole = {(path, line) for path, line, reason in stats.unresolved if not reason.startswith("partly")}
    print(f"compose-check: {stats.launches - len(whole)} of {stats.launches} launches composed, "
          f"{stats.readings} ways through their branches", file=sys.stderr)
    if stats.stand_ins:
        print(f"compose-check: composed with an empty config for {', '.join(sorted(stats.stand_ins))}, which a "
              "Hydra plugin not installed here provides", file=sys.stderr)
    if args.since:
        print(f"compose-check: {stats.known} failures that the config at {args.since} gave too are not "
              "reported (--since: only what changed since)", file=sys.stderr)
    if args.write and (unwritten := write_summary(report)) is not None:  # as for run: exit 3, naming the files
        print(f"bot: {unwritten}", file=sys.stderr)
        return remaining_code(args, report, EXIT_INTERNAL)
    return remaining_code(args, report)
