"""Command line: argument parsing and exit codes only.

Exit codes: 0 done; 1 findings remain and --check was given (or a rule test failed); 2 usage
or configuration error, printed as one line; 3 internal error, with a crash log.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot import __version__
from bot.errors import UserError
from bot.secrets import redact

if TYPE_CHECKING:
    from bot.cache.store import ResultCache
    from bot.config import RepoConfig
    from bot.model import Report
    from bot.publish.publisher import PublishResult
    from bot.publish.run import PublishOptions
    from bot.rules.model import Rule

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
FORMATS = ("text", "markdown", "json", "sarif", "diff", "github")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="bot", description="Find and fix launch scripts that break upstream rules.")
    parser.add_argument("--version", action="version", version=f"bot {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser("run", help="scan a repository, fix what breaks the rules, report")
    run.add_argument("--repo", action="append", default=[],
                     help="a local path, owner/name, or a name from the config file (repeatable)")
    run.add_argument("--repos", type=Path, metavar="FILE", help="a file of repositories, one per line (# comments)")
    run.add_argument("--shard", metavar="I/N", help="only the I-th of N deterministic parts of the repository list")
    run.add_argument("--config", type=Path, help="the repository registry (default: ./bot.toml if present)")
    run.add_argument("--group", choices=("rule", "all"), help="one pull request per rule (default) or one for all")
    run.add_argument("--allow-dirty", action="store_true", help="publish from a local path with uncommitted changes")
    _rule_options(run)
    mode = run.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="change nothing anywhere; print the report")
    mode.add_argument("--write", action="store_true", help="edit the local working tree only")
    run.add_argument("--format", choices=FORMATS, default="text")
    run.add_argument("--output", type=Path, help="write the report to this file instead of stdout")
    run.add_argument("--check", action="store_true", help="exit 1 when findings remain")
    run.add_argument("--jobs", type=int, default=1, metavar="N", help="parse files in N processes (default 1)")
    run.add_argument("--cache-dir", type=Path, metavar="DIR",
                     help="keep per-file results here (default: $BOT_CACHE_DIR or ~/.cache/followup-bot)")
    run.add_argument("--no-cache", action="store_true", help="check every file from scratch; keep no results")
    run.add_argument("--compose", action="store_true",
                     help="also compose every launch against the repo's Hydra config (rule hydra-compose)")
    run.add_argument("--since", metavar="SHA", help="act as watch does on the change SHA..default branch")
    run.add_argument("--files", nargs="*", metavar="PATH", help="scan only these files (pre-commit passes them)")
    run.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _file_timeout(run)

    watch = commands.add_parser("watch", help="act on an upstream change: the rules it triggers, over the repo")
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
    _rule_options(watch)

    compose = commands.add_parser("compose-check", help="compose every launch against the repo's Hydra config")
    compose.add_argument("--repo", required=True, help="a local repository path")
    compose_mode = compose.add_mutually_exclusive_group()
    compose_mode.add_argument("--dry-run", action="store_true", help="report only (the default)")
    compose_mode.add_argument("--write", action="store_true", help="apply the verified fixes to the working tree")
    compose.add_argument("--format", choices=FORMATS, default="text")
    compose.add_argument("--output", type=Path)
    compose.add_argument("--check", action="store_true")
    compose.add_argument("--since", metavar="SHA", help="learn key renames from the config YAML changed since SHA")
    compose.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _file_timeout(compose)

    launches = commands.add_parser("launches", help="list every launch and how the bot understood it")
    launches.add_argument("--repo", required=True, help="a local repository path")
    launches.add_argument("--format", choices=("text", "json"), default="text")
    launches.add_argument("--output", type=Path)
    launches.add_argument("--files", nargs="*", metavar="PATH", help="only these files")
    _file_timeout(launches)

    infer = commands.add_parser("infer", help="propose rules from validation code a change adds")
    infer.add_argument("--repo", required=True, help="a local repository path")
    infer.add_argument("--before", required=True)
    infer.add_argument("--after", required=True)
    infer.add_argument("--output", type=Path, help="write the proposed rule files into this directory")
    _rule_options(infer)

    rules = commands.add_parser("rules", help="list or test rules")
    rule_commands = rules.add_subparsers(dest="rules_command", required=True, parser_class=_Parser)
    listing = rule_commands.add_parser("list", help="list the rules that would run")
    _rule_options(listing)
    testing = rule_commands.add_parser("test", help="run rule fixtures: <tests>/<rule-id>/<case>.before.sh ...")
    _rule_options(testing)
    testing.add_argument("--tests", type=Path, action="append", default=[],
                         help="a directory of rule fixtures (default: tests/rules)")
    return parser


def _file_timeout(parser: argparse.ArgumentParser) -> None:
    from bot.engine.isolation import DEFAULT_SECONDS

    parser.add_argument("--file-timeout", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"give up on a file after this long and report it (default {DEFAULT_SECONDS:g}; 0: never)")


def _rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", type=Path, action="append", default=[], metavar="DIR",
                        help="also load the rule files in DIR")
    parser.add_argument("--rule", action="append", default=[], metavar="ID", help="run only this rule")
    parser.add_argument("--enable", action="append", default=[], metavar="ID", help="enable an optional rule")
    parser.add_argument("--no-bundled", action="store_true", help="do not load the bundled rules")


def _load(args: argparse.Namespace) -> list:  # type: ignore[type-arg]
    from bot.rules.loader import load_rules

    return load_rules(args.rules, include_bundled=not args.no_bundled, only=args.rule, enable=args.enable)


def _use_color(choice: str, stream: object) -> bool:
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def cmd_run(args: argparse.Namespace) -> int:
    from bot.repolist import repositories

    names = repositories(args.repo, args.repos, args.shard)
    if len(names) == 1 and not args.shard and not args.repos:
        args.repo = names[0]
        return cmd_run_one(args)
    return cmd_run_many(args, names)


def cmd_run_many(args: argparse.Namespace, names: list[str]) -> int:
    """Each repository in turn; one that fails is reported and the others still run."""
    import copy

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
            code = cmd_run_one(one)
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


def cmd_run_one(args: argparse.Namespace) -> int:
    from bot.config import load_config

    if args.since:
        if args.write:
            raise UserError("--since works with --dry-run or publishing, not --write")
        args.before, args.after = args.since, None
        return cmd_watch(args)
    repo = load_config(args.config).resolve(args.repo)
    rules = _load(args)

    if args.dry_run or args.write:
        from bot.publish.run import warn_actions_token

        if args.dry_run:
            warn_actions_token()
        if repo.path is not None:
            only = {_relative(repo.path, f) for f in args.files} if args.files is not None else None
            from bot.engine.scan import scan
            from bot.engine.write import write_changes

            report = scan(repo.path, rules, label=_label(args.repo, repo), paths=only, jobs=max(1, args.jobs),
                          cache=_open_cache(args, repo.path, rules), reuse_changes=args.dry_run,
                          seconds=args.file_timeout or None)
            if args.compose:
                _add_compose_section(report, repo.path)
            if args.write:
                write_changes(repo.path, report)
        elif args.write:
            raise UserError(f"--repo {args.repo}: --write edits a local working tree; give a local path")
        else:
            from bot.engine.scan import scan
            from bot.publish.run import fetch_for_scan

            remote, default = fetch_for_scan(repo)
            with remote.worktree(default) as worktree:
                report = scan(worktree, rules, label=repo.github or args.repo)
        code = EXIT_OK
    else:
        from bot.publish.run import PublishOptions, publish

        result = publish(repo, rules, PublishOptions(group=args.group, allow_dirty=args.allow_dirty,
                                                     compose=args.compose))
        report = result.report
        code = _record_publish(report, result)
    from bot.model import Status

    text = _render_text(args, report)
    remaining = [f for f in report.findings if f.status is not Status.FIXED]
    _write_out(args, text)
    _announce_errors(report)
    if code == EXIT_OK and args.check and (remaining or report.errors):
        return EXIT_FINDINGS
    return code


def _label(name: str, repo: RepoConfig) -> str:
    """The report's name for the repository: a local path not in the registry reads as its absolute path,
    so reports do not depend on the working directory they were made from."""
    if repo.path is not None and repo.name == name and repo.github is None:
        return str(repo.path.resolve())
    return name


def _open_cache(args: argparse.Namespace, root: Path, rules: list[Rule]) -> ResultCache | None:
    """The per-file result store for `root`, unless --no-cache."""
    if args.no_cache:
        return None
    from bot.cache.store import ResultCache, default_directory, fingerprint

    return ResultCache(args.cache_dir or default_directory(), root, fingerprint([r for r in rules if r.enabled]))


def _relative(root: Path, path: str) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UserError(f"--files {path}: expected a file inside {root}") from None


def _emit(args: argparse.Namespace, report: Report) -> None:
    _write_out(args, _render_text(args, report))
    _announce_errors(report)


def _announce_errors(report: Report) -> None:
    """Files that could not be checked: one crash log for the run, its path on stderr."""
    if not report.errors:
        return
    from bot.engine.isolation import write_crash_log

    header = redact(f"bot {__version__}\npython {sys.version}\nplatform {platform.platform()}\nargv {sys.argv!r}\n")
    log = write_crash_log(report.errors, header)
    print(f"bot: {len(report.errors)} file(s) could not be checked; the others were (details in {log})",
          file=sys.stderr)


def _color(args: argparse.Namespace) -> bool:
    return args.output is None and args.format == "text" and _use_color(args.color, sys.stdout)


def _render_text(args: argparse.Namespace, report: object) -> str:
    """The report in the chosen format, secrets removed; one line per report for JSON Lines."""
    from bot.report import render

    text = redact(render(args.format, report, color=_color(args)))  # type: ignore[arg-type]
    if args.format == "json" and getattr(args, "json_lines", False) and args.output is None:
        text = json.dumps(json.loads(text), ensure_ascii=False) + "\n"
    return text


def _write_out(args: argparse.Namespace, text: str) -> None:
    text = redact(text)
    if args.output is not None:
        try:
            args.output.write_bytes(text.encode("utf-8", "surrogateescape"))
        except OSError as exc:
            raise UserError(f"--output {args.output}: cannot write: {exc.strerror or exc}") from None
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()


def cmd_watch(args: argparse.Namespace) -> int:
    from bot import actions
    from bot.config import load_config
    from bot.model import Report, Status
    from bot.publish.run import PublishOptions, watch

    payload = actions.event() if actions.in_actions() else {}
    span = (args.before, args.after) if args.before else actions.push_range(payload)
    name = args.repo or (payload.get("repository") or {}).get("full_name") or os.environ.get("GITHUB_REPOSITORY")
    if not name:
        raise UserError("watch: expected --repo (or GITHUB_REPOSITORY in GitHub Actions)")
    repo = load_config(args.config).resolve(name)
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if repo.path is None and actions.in_actions() and workspace and (Path(workspace) / ".git").exists():
        from dataclasses import replace

        repo = replace(repo, path=Path(workspace))
    rules = _load(args)
    options = PublishOptions(group=args.group, allow_dirty=actions.in_actions())
    if span is None:
        if not actions.in_actions():
            raise UserError("watch: expected --before SHA (or a push event in GITHUB_EVENT_PATH); "
                            "for a full run use bot run")
        return _full_run_in_actions(args, repo, rules, options)
    result = watch(repo, rules, span[0], span[1], options, args.dry_run)
    if not result.rules:
        print(f"no rule triggered by {result.change.before[:12]}..{result.change.after[:12]}, and the files it "
              f"edits break none: nothing to do")
        for line in result.suggestions:
            print(f"suggested rule (not run): {line}")
        for line in result.not_understood:
            print(line)
        if actions.in_actions():
            actions.set_outputs({"findings": "0", "pr-urls": "[]", "triggered": "[]"})
            actions.write_summary("### followup-bot\n\nNo rule triggered by this change; nothing to do.\n")
        return EXIT_OK
    report = result.report
    assert isinstance(report, Report)
    for rule_id, reason in sorted(result.reasons.items()):
        print(f"{rule_id}: {reason}", file=sys.stderr)
    code = _record_publish(report, result.published) if result.published is not None else EXIT_OK
    _emit(args, report)
    if actions.in_actions():
        _report_to_actions(args, report, sorted(result.reasons))
    remaining = [f for f in report.findings if f.status is not Status.FIXED]
    return EXIT_FINDINGS if code == EXIT_OK and args.check and (remaining or report.errors) else code


def _full_run_in_actions(args: argparse.Namespace, repo: RepoConfig, rules: list[Rule],
                         options: PublishOptions) -> int:
    """workflow_dispatch has no push range: run the chosen (or every enabled) rule over the repository."""
    from bot.engine.scan import scan
    from bot.publish.run import publish

    if args.dry_run:
        if repo.path is None:
            raise UserError("watch: a dry-run without a push range needs the checked-out workspace")
        report = scan(repo.path, rules, label=repo.github or repo.name)
        code = EXIT_OK
    else:
        published = publish(repo, rules, options)
        report = published.report
        code = _record_publish(report, published)
    _emit(args, report)
    _report_to_actions(args, report, sorted(r.id for r in rules if r.enabled))
    return code


def _add_compose_section(report: Report, root: Path) -> None:
    """compose-check's findings and verified fixes, merged into a scan's report (files already changed stay)."""
    from bot.hydra.compose import compose_rule, compose_scan
    from bot.model import RuleInfo

    composed, _ = compose_scan(root, label=report.repo)
    rule = compose_rule()
    report.rules.append(RuleInfo(rule.id, True, rule.title, rule.severity))
    report.findings.extend(composed.findings)
    report.findings.sort(key=lambda f: f.sort_key())
    taken = {c.path for c in report.changes}
    report.changes.extend(c for c in composed.changes if c.path not in taken)
    report.extra["compose"] = composed.extra.get("compose")


def _record_publish(report: Report, result: PublishResult) -> int:
    """Put the publishing decisions into the report; the exit code says whether any failed."""
    report.extra["publish"] = {"decisions": [d.as_dict() for d in result.decisions],
                               "api_requests": result.api_requests}
    return EXIT_INTERNAL if result.failed else EXIT_OK


def _report_to_actions(args: argparse.Namespace, report: Report, triggered: list[str]) -> None:
    """Annotations on stdout, the markdown report in the step summary, and the workflow outputs."""
    from bot import actions
    from bot.report import render

    if args.format != "github":
        sys.stdout.write(redact(render("github", report)))
    actions.write_summary(redact(render("markdown", report)))
    decisions = report.extra.get("publish", {}).get("decisions", [])
    urls = [d["url"] for d in decisions if d.get("url")]
    actions.set_outputs({"findings": str(len(report.findings)), "pr-urls": json.dumps(urls),
                         "triggered": json.dumps(triggered)})


def cmd_compose_check(args: argparse.Namespace) -> int:
    from bot.engine.write import write_changes
    from bot.hydra.compose import compose_scan
    from bot.model import Status

    root = Path(args.repo)
    if not root.is_dir():
        raise UserError(f"--repo {args.repo}: expected a local repository directory")
    report, stats = compose_scan(root, label=str(root.resolve()), since=args.since, seconds=args.file_timeout or None)
    if args.write:
        write_changes(root, report)
    _emit(args, report)
    for path, line, reason in stats.unresolved:
        print(f"{path}:{line}: launch not checked: {reason}", file=sys.stderr)
    remaining = [f for f in report.findings if f.status is not Status.FIXED]
    return EXIT_FINDINGS if args.check and (remaining or report.errors) else EXIT_OK


def cmd_launches(args: argparse.Namespace) -> int:
    from bot.engine.launches import collect, render

    root = Path(args.repo)
    if not root.is_dir():
        raise UserError(f"--repo {args.repo}: expected a local repository directory")
    only = {_relative(root, f) for f in args.files} if args.files is not None else None
    found = collect(root, str(root.resolve()), only, args.file_timeout or None)
    _write_out(args, redact(render(found, args.format)))
    if found.errors:
        from bot.engine.isolation import write_crash_log

        log = write_crash_log(found.errors, f"bot {__version__}\nargv {sys.argv!r}\n")
        print(f"bot: {len(found.errors)} file(s) could not be read (details in {log})", file=sys.stderr)
    return EXIT_OK


def cmd_infer(args: argparse.Namespace) -> int:
    from io import StringIO

    from ruamel.yaml import YAML

    from bot.upstream.infer import infer

    root = Path(args.repo)
    if not root.is_dir():
        raise UserError(f"--repo {args.repo}: expected a local repository directory")
    inference = infer(root, args.before, args.after, _load(args))
    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 4096
    for rule_id in sorted(set(inference.covered)):
        print(f"# already covered by {rule_id}")
    for item in inference.not_understood:
        print(f"# {item.describe()}")
    if inference.unchanged or inference.loosened:
        print(f"# no rule from {inference.unchanged} check(s) that moved or stayed the same and "
              f"{inference.loosened} that were loosened")
    for proposal in inference.proposals:
        buffer = StringIO()
        yaml.dump({**proposal.rule, "enabled": proposal.confidence == "high"}, buffer)
        text = buffer.getvalue()
        print(f"# confidence: {proposal.confidence}\n{text}---")
        if args.output is not None:
            args.output.mkdir(parents=True, exist_ok=True)
            (args.output / f"{proposal.rule['id']}.yaml").write_text(text, encoding="utf-8")
    return EXIT_OK


def cmd_rules_list(args: argparse.Namespace) -> int:
    for rule in _load(args):
        state = "enabled" if rule.enabled else "optional"
        print(f"{rule.id:32} {state:9} {rule.severity:8} {rule.title}")
    return EXIT_OK


def cmd_rules_test(args: argparse.Namespace) -> int:
    from bot.rules.fixtures import collect_cases, run_case

    rules = {r.id: r for r in _load(args)}
    dirs = args.tests or [Path("tests/rules")]
    cases = []
    for directory in dirs:
        if not directory.is_dir():
            raise UserError(f"--tests {directory}: no such directory; expected <dir>/<rule-id>/<case>.before.sh")
        cases.extend(collect_cases(directory, rules if args.rule else None))
    if not cases:
        raise UserError(f"no rule fixtures found under {', '.join(map(str, dirs))}")
    failed = 0
    for case in cases:
        result = run_case(case, rules)
        if result.ok:
            print(f"ok    {case.label}")
            continue
        failed += 1
        print(f"FAIL  {case.label}")
        for problem in result.problems:
            print("      " + problem.replace("\n", "\n      "))
    print(f"{len(cases) - failed} passed, {failed} failed")
    return EXIT_FINDINGS if failed else EXIT_OK


def _crash_log(exc: BaseException) -> str:
    fd, path = tempfile.mkstemp(prefix="bot-crash-", suffix=".log")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(f"bot {__version__}\npython {sys.version}\nplatform {platform.platform()}\n")
        handle.write(redact(f"argv {sys.argv!r}\n\n"))
        handle.write(redact("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))
    return path


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "run":
            return cmd_run(args)
        if args.command == "watch":
            return cmd_watch(args)
        if args.command == "compose-check":
            return cmd_compose_check(args)
        if args.command == "infer":
            return cmd_infer(args)
        if args.command == "launches":
            return cmd_launches(args)
        if args.rules_command == "list":
            return cmd_rules_list(args)
        return cmd_rules_test(args)
    except UserError as exc:
        print(redact(f"bot: error: {exc}"), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("bot: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the one place that turns a crash into a log file
        path = _crash_log(exc)
        print(redact(f"bot: internal error: {type(exc).__name__}: {exc} (details in {path})"), file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
