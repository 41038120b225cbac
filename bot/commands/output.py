"""What every command shares: rule options, the exit codes, the report on stdout or in a file, the crash log."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, overload

from bot import __version__
from bot.errors import UserError
from bot.secrets import redact

if TYPE_CHECKING:
    from bot.config import RepoConfig
    from bot.model import Baseline, Report
    from bot.publish.publisher import PublishResult
    from bot.rules.model import Rule

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", type=Path, action="append", default=[], metavar="DIR",
                        help="also load the rule files in DIR")
    parser.add_argument("--rule", action="append", default=[], metavar="ID", help="run only this rule")
    parser.add_argument("--enable", action="append", default=[], metavar="ID", help="enable an optional rule")
    parser.add_argument("--no-bundled", action="store_true", help="do not load the bundled rules")


def sarif_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sarif", type=Path, metavar="FILE",
                        help="also write the report as SARIF to FILE (for code scanning), whatever --format is")


def baseline_options(parser: argparse.ArgumentParser, write: bool = True) -> None:
    parser.add_argument("--baseline", type=Path, metavar="FILE",
                        help="silence the findings listed in this baseline (default: the repository's "
                             ".followup-bot-baseline.json, when it has one)")
    parser.add_argument("--no-baseline", action="store_true", help="use no baseline, not even the repository's")
    if write:
        parser.add_argument("--write-baseline", type=Path, metavar="FILE",
                            help="write the findings of this run into a baseline file (never publishes)")


def baseline_for(args: argparse.Namespace) -> Baseline | None:
    """The baseline the options name: None for the repository's own (read by the scan), empty for none."""
    from bot.model import Baseline

    if getattr(args, "no_baseline", False):
        if getattr(args, "baseline", None) is not None:
            raise UserError("--baseline and --no-baseline: expected one of them")
        return Baseline()
    if getattr(args, "baseline", None) is None:
        return None
    from bot.engine.silence import read_baseline

    if not args.baseline.is_file():
        raise UserError(f"--baseline {args.baseline}: no such file")
    return read_baseline(args.baseline)


def write_baseline(args: argparse.Namespace, report: Report, only: set[str] | None = None,
                   root: Path | None = None) -> None:
    """--write-baseline FILE: what is left to do (not what this run fixed), and what the baseline already held.

    Entries this run could not have seen (a rule it did not run, a file outside `--files`) are kept as they are.
    `root`: the local repository, below which no symlinked directory is followed to FILE.
    """
    from bot.engine.silence import write_baseline as write
    from bot.model import BASELINE, Status
    from bot.report.summary import plural

    ran = {r.id for r in report.rules if r.enabled}
    kept = [f for f in report.findings if f.status is not Status.FIXED]
    count = write(args.write_baseline, kept + [f for f in report.silenced if f.silenced == BASELINE],
                  outside=lambda rule, path: rule not in ran or (only is not None and path not in only), root=root)
    print(f"bot: wrote {plural(count, 'entry', 'entries')} to the baseline {args.write_baseline}", file=sys.stderr)


@overload
def local_repository(path: Path, given: str) -> Path: ...
@overload
def local_repository(path: None, given: str) -> None: ...
def local_repository(path: Path | None, given: str) -> Path | None:
    """The local repository a command works on (None: none, a fetched one): a directory, not inside a `.git`
    directory (one line, exit 2), and from here on off the import path (bot.isolate_path), before anything of
    a third party is imported."""
    from bot.gitfiles import refuse_git_directory
    from bot.isolate_path import forget

    if path is None:
        return None
    if not path.is_dir():
        raise UserError(f"--repo {given}: expected a local repository directory")
    refuse_git_directory(path, f"--repo {given}")
    forget(path)
    return path


def unpublishable(repo: RepoConfig) -> bool:
    """A local checkout with nowhere to publish to (RepoConfig.local_only)."""
    return repo.local_only


def say_local_dry_run(repo: RepoConfig) -> None:
    print(f"bot: dry run: {repo.path} is a local repository with no GitHub repository configured (bot.toml), so "
          "nothing is published and nothing is fetched", file=sys.stderr)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return number


def seconds(text: str) -> float:
    """An argparse type: a duration in seconds, 0 or more (0: no limit)."""
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not number >= 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds, 0 or more, got {text!r}")
    return number


def git_repository(root: Path, option: str = "--repo") -> Path:
    """`root`, when it is a directory in a git work tree; else a one-line error."""
    from bot.gitfiles import is_git_worktree

    if not root.is_dir():
        raise UserError(f"{option} {root}: expected a local repository directory")
    if not is_git_worktree(root):
        raise UserError(f"{option} {root}: not a git repository; expected a git checkout (its history is read)")
    return root


def commit_in(root: Path, ref: str, option: str) -> str:
    """The commit `ref` names in `root`, or a one-line error naming the option."""
    from bot.gitfiles import resolve_commit

    found = resolve_commit(root, ref)
    if found is None:
        raise UserError(f"{option} {ref}: no such commit in {root}; expected a commit of its history")
    return found


def file_timeout_option(parser: argparse.ArgumentParser) -> None:
    from bot.engine.isolation import DEFAULT_SECONDS

    parser.add_argument("--file-timeout", type=seconds, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"give up on a file after this long and report it (default {DEFAULT_SECONDS:g}; 0: never)")


def load_rules(args: argparse.Namespace) -> list[Rule]:
    from bot.rules.loader import load_rules as load

    return load(args.rules, include_bundled=not args.no_bundled, only=args.rule, enable=args.enable)


def relative(root: Path, path: str) -> str:
    """The repository path of a `--files` argument: relative to the working directory (as pre-commit
    passes them), or, where no such file is there, to the repository (`--repo R --files a/b.sh`)."""
    if not os.path.isabs(path) and not Path(path).exists() and (root / path).exists():
        path = str(root / path)
    try:
        found = Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UserError(f"--files {path}: expected a file inside {root}") from None
    if not Path(path).exists():  # a file deleted since it was listed: nothing to check, but say so
        print(f"bot: --files {path}: no such file; skipped", file=sys.stderr)
    return found


def use_color(choice: str, stream: object) -> bool:
    """--color always|never, else NO_COLOR (off), FORCE_COLOR (on, unless "0"), a dumb terminal (off), a TTY."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def color(args: argparse.Namespace) -> bool:
    return args.output is None and args.format == "text" and use_color(args.color, sys.stdout)


def render_text(args: argparse.Namespace, report: Report) -> str:
    """The report in the chosen format, secrets removed; one line per report for JSON Lines."""
    from bot.report import render

    text = redact(render(args.format, report, color=color(args)))
    if args.format == "json" and getattr(args, "json_lines", False) and args.output is None:
        text = json.dumps(json.loads(text), ensure_ascii=False) + "\n"
    return text


def report_file(args: argparse.Namespace, option: str, path: Path, text: str) -> None:
    """A report written to `path`: inside the repository the command works on, as the bot writes every file
    there (bot.safe_write: never through a link the repository planted); elsewhere, as given (a device such
    as /dev/stdout included)."""
    from bot.safe_write import replace_file

    data = redact(text).encode("utf-8", "surrogateescape")
    repo = getattr(args, "repo", None)
    root = Path(repo) if isinstance(repo, str) and os.path.isdir(repo) else None
    inside = root is not None and any(
        os.path.abspath(path).startswith(base.rstrip(os.sep) + os.sep)
        for base in (os.path.abspath(root), os.path.realpath(root)))
    try:
        if inside or (path.is_file() and not path.is_symlink()):
            replace_file(path, data, root if inside else None)
        else:
            path.write_bytes(data)
    except UserError as exc:
        raise UserError(f"{option} {exc}") from None
    except OSError as exc:
        raise UserError(f"{option} {path}: cannot write: {exc.strerror or exc}") from None


def write_out(args: argparse.Namespace, text: str) -> None:
    text = redact(text)
    if args.output is not None:
        report_file(args, "--output", args.output, text)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()


def emit(args: argparse.Namespace, report: Report) -> None:
    write_out(args, render_text(args, report))
    sarif = getattr(args, "sarif", None)
    if sarif is not None:
        from bot.report import render

        report_file(args, "--sarif", sarif, render("sarif", report))
    announce_errors(report)


def crash_header() -> str:
    import platform  # only a crash needs it

    return f"bot {__version__}\npython {sys.version}\nplatform {platform.platform()}\nargv {sys.argv!r}\n"


def announce_errors(report: Report) -> None:
    """Files that could not be checked: one crash log for the run, its path on stderr (a change a --write
    did not write is told by the write's own line)."""
    errors = report.check_errors
    if not errors:
        return
    from bot.engine.isolation import write_crash_log

    log = write_crash_log(errors, crash_header())
    print(f"bot: {len(errors)} file(s) could not be checked; the others were (details in {log})", file=sys.stderr)


def remaining_code(args: argparse.Namespace, report: Report, code: int = EXIT_OK) -> int:
    """With --check, 1 while findings (not notes) remain or a file could not be checked; else the code as it is."""
    from bot.model import Status

    remaining = [f for f in report.findings if f.status is not Status.FIXED and not f.is_note]
    if code == EXIT_OK and getattr(args, "check", False) and (remaining or report.errors):
        return EXIT_FINDINGS
    return code


def record_publish(report: Report, result: PublishResult) -> int:
    """Put the publishing decisions into the report; the exit code says whether any failed."""
    from bot.model import PublishSummary

    report.publish = PublishSummary(list(result.decisions), result.api_requests)
    return EXIT_INTERNAL if result.failed else EXIT_OK
