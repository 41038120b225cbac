"""One module per subcommand: each adds its parser (`add_parser`) and runs it (`main(args) -> int`).

This package's own part is the parser and the dispatch table, which `bot.cli` and `bot action` share.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType

from bot import __version__
from bot.errors import UserError

# command -> its module in bot.commands, imported only when the command line names it (or asks for help)
MODULES = {"run": "run", "watch": "watch", "compose-check": "compose_check", "launches": "launches",
           "infer": "infer", "rules": "rules", "action": "action", "upgrade": "upgrade", "pack": "pack"}


class Parser(argparse.ArgumentParser):
    """A usage error is a UserError: one line, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{self.prog}: {message}")


def command_module(command: str) -> ModuleType:
    return import_module(f"bot.commands.{MODULES[command]}")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with `argv` naming a command, only that command's (its module alone is imported)."""
    parser = Parser(prog="bot", description="Find and fix launch scripts that break upstream rules.")
    parser.add_argument("--version", action="version", version=f"bot {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    named = next((a for a in argv or () if not a.startswith("-")), None)
    for command in [named] if named in MODULES else list(MODULES):
        if command == "rules":
            command_module(command).add_parser(commands, Parser)
        else:
            command_module(command).add_parser(commands)
    return parser


def dispatch(argv: Sequence[str]) -> int:
    """Parse `argv` and run the command it names."""
    args = build_parser(argv).parse_args(list(argv))
    return int(command_module(args.command).main(args))
