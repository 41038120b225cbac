"""`bot upgrade --repo D --to REF [--upstream U]`: every migration between D's pins of its upstream and REF, in the
upstream's history order, each step verified against the upstream at its own commit; the pins bumped
(bot.upstream.upgrade). A dry run prints it, --write writes D's working tree, and a downstream with a GitHub
repository gets one pull request per upgrade (bot.publish.upgrade_pr), updated when REF moves and closed when the
downstream made the upgrade by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.commands.output import (
    EXIT_INTERNAL,
    EXIT_OK,
    git_repository,
    local_repository,
    rule_options,
    say_local_dry_run,
    unpublishable,
    write_out,
)
from bot.errors import UserError
from bot.upstream.watching import CONFIDENCE

if TYPE_CHECKING:
    from bot.model import FileChange
    from bot.rules.model import Rule
    from bot.upstream.pack import Pack
    from bot.upstream.watching import InferPolicy


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    upgrade = commands.add_parser(
        "upgrade", help="upgrade a downstream's pins of its upstream to REF, with every migration on the way",
        description="Walk the upstream's first-parent commits from each pin of the downstream to REF, run the "
                    "migrations each calls for (inferred from the change, and --rules) over the downstream as the "
                    "steps before left it, and bump the pins. Without --dry-run or --write, a downstream with a "
                    "GitHub repository gets one pull request for the upgrade.")
    upgrade.add_argument("--repo", required=True, help="the downstream: a local path or a configured name")
    upgrade.add_argument("--to", required=True, metavar="REF", help="the upstream's commit, tag, branch or version")
    upgrade.add_argument("--upstream", metavar="NAME|PATH|URL",
                         help="the upstream (default: the one the downstream's bot.toml names)")
    upgrade.add_argument("--config", type=Path)
    upgrade.add_argument("--dry-run", action="store_true", help="report only; change nothing anywhere")
    upgrade.add_argument("--write", action="store_true", help="write the upgrade into the downstream's working tree")
    upgrade.add_argument("--format", choices=("text", "json", "diff"), default="text")
    upgrade.add_argument("--output", type=Path)
    upgrade.add_argument("--infer-confidence", choices=CONFIDENCE, default="high",
                         help="run rules inferred from each change at or above this confidence (default high)")
    upgrade.add_argument("--jobs", type=int, help="processes each step's scan runs on (default: the usable cores)")
    upgrade.add_argument("--keep-old-defaults", action="store_true",
                         help="set every new flag an upstream change puts in front of code that ran before to its old "
                              "behaviour (as watch does); by default only where the change's own launches set it")
    upgrade.add_argument("--no-verify", action="store_true",
                         help="do not compose the edited files' launches against the upstream at REF at the end")
    upgrade.add_argument("--quiet", action="store_true", help="do not print each upstream commit as it is read")
    upgrade.add_argument("--pack", type=Path, metavar="DIR",
                         help="run the rules of this rule pack (`bot pack build`) instead of inferring them; only "
                              "a pack of the upstream the downstream names")
    rule_options(upgrade)


def main(args: argparse.Namespace) -> int:
    from bot.config import load_config
    from bot.upstream.downstream_watch import named_upstream

    if args.dry_run and args.write:
        raise UserError("upgrade: --dry-run and --write exclude each other")
    pack = _pack(args)
    repo = load_config(args.config, repo=Path(args.repo) if Path(args.repo).is_dir() else None).resolve(args.repo)
    local_repository(repo.path, args.repo)
    if args.write and repo.path is None:
        raise UserError(f"--repo {args.repo}: --write edits a local working tree; give a local path")
    if repo.path is not None:
        git_repository(repo.path)
    if not (args.dry_run or args.write) and unpublishable(repo):
        say_local_dry_run(repo)
        args.dry_run = True
    rules = _rules(args)
    policy = _policy(args)
    jobs = _jobs(args)
    progress = None if args.quiet else (lambda line: print(f"bot: upgrade: {line}", file=sys.stderr))
    if not (args.dry_run or args.write):
        from bot.publish.upgrade_pr import publish_upgrade

        decision = publish_upgrade(repo, lambda root: load_config(args.config, repo=root), args.upstream, args.to,
                                   rules, policy, jobs, progress, pack)
        print(f"{decision.group}: {decision.action}: {decision.detail}"
              + (f" ({decision.url})" if decision.url else ""))
        return EXIT_INTERNAL if decision.action == "failed" else EXIT_OK
    from bot.upstream.upgrade import upgrade
    from bot.upstream.upgrade_text import render

    assert repo.path is not None
    config = load_config(args.config, repo=repo.path)
    named = named_upstream(config, repo.path, args.upstream)
    result = upgrade(repo.path, config, named, args.to, rules, policy, jobs, repo.github or repo.name, progress,
                     verify=not args.no_verify, pack=pack)
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in result.seconds.items())
    print(f"bot: upgrade: {result.walked} upstream commits, {result.checked} read, {len(result.steps)} steps; "
          f"{parts}", file=sys.stderr)
    code = EXIT_OK
    if args.write and result.changes:
        code = _write(repo.path, result.changes)
    write_out(args, render(result, args.format))
    return code


def _write(root: Path, changes: list[FileChange]) -> int:
    from bot.engine.write import write_changes
    from bot.model import Report

    report = Report(repo=str(root), commit=None, rules=[], changes=changes)
    write_changes(root, report)
    if report.unwritten():
        print(f"bot: upgrade: not written: {', '.join(report.unwritten())}", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK


def _rules(args: argparse.Namespace) -> list[Rule]:
    """The rules given (--rules, --rule, --enable; the bundled ones only with --rules): none by default, the
    upgrade then runs what each change infers."""
    from bot.commands.output import load_rules

    return load_rules(args) if args.rules else []


def _pack(args: argparse.Namespace) -> Pack | None:
    """--pack's pack (checked against the upstream when it is known: bot.upstream.upgrade)."""
    from bot.upstream.pack import load_pack

    if args.pack is None:
        return None
    pack = load_pack(args.pack)
    if pack.keep_old_defaults != args.keep_old_defaults:
        said = "with" if pack.keep_old_defaults else "without"
        raise UserError(f"--pack {args.pack}: built {said} --keep-old-defaults; expected the upgrade {said} it too")
    return pack


def _policy(args: argparse.Namespace) -> InferPolicy:
    from bot.upstream.watching import InferPolicy

    return InferPolicy(args.infer_confidence, "draft", new_defaults=not args.keep_old_defaults)


def _jobs(args: argparse.Namespace) -> int:
    from bot.engine.forks import usable_cores

    return max(1, args.jobs) if args.jobs is not None else max(1, min(usable_cores(), 8))
