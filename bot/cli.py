"""The command line: the parser, the dispatch to bot.commands, and the one error boundary.

Exit codes: 0 done; 1 findings remain (or a file could not be checked) and --check was given, or
a rule test failed; 2 usage or configuration error, printed as one line; 3 internal error, with a
crash log whose path is printed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType

from bot import __version__
from bot.commands.output import EXIT_INTERNAL, crash_header
from bot.errors import UserError
from bot.secrets import redact

# command -> its module in bot.commands, imported only when the command line names it (or asks for help)
MODULES = {"run": "run", "watch": "watch", "compose-check": "compose_check", "launches": "launches",
           "infer": "infer", "rules": "rules"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{self.prog}: {message}")


def _module(command: str) -> ModuleType:
    return import_module(f"bot.commands.{MODULES[command]}")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with `argv` naming a command, only that command's (its module alone is imported)."""
    parser = _Parser(prog="bot", description="Find and fix launch scripts that break upstream rules.")
    parser.add_argument("--version", action="version", version=f"bot {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    named = next((a for a in argv or () if not a.startswith("-")), None)
    for command in [named] if named in MODULES else list(MODULES):
        if command == "rules":
            _module(command).add_parser(commands, _Parser)
        else:
            _module(command).add_parser(commands)
    return parser


def _crash_log(exc: BaseException) -> str:
    import tempfile  # only when the bot itself fails
    import traceback

    from bot.safe_write import new_file

    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = redact(crash_header() + "\n") + redact(trace)
    return new_file(tempfile.gettempdir(), text.encode("utf-8", "surrogateescape"), "bot-crash-", ".log")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(argv).parse_args(argv)
        return int(_module(args.command).main(args))
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
