"""Which of a doc's launches that a command line parser refuses before Hydra composes are judged.

A doc's launch illustrates (`python train.py`, `tool <config>`), so a certain failure there is not judged in
general (bot.compose.launches). A refusal by the entry's own parser is, where nothing in it is left for the
reader to fill in: the entry is the repository's own (a console script it declares, or a file of its tree),
and the refused word is written out as a literal, no placeholder (`<config>`, `[PATH]`, `{name}`, `$VAR`,
`...`, an upper-case `CONFIG`); then whatever the reader runs as written fails there, as in a script. The
parsers: argparse's `parse_args()` (bot.hydra.argparse_gate) and a typer app's or click group's commands
(bot.hydra.command_gate). A missing config directory is not one of them: a doc often names one the reader
makes first.
"""

from __future__ import annotations

import re

from bot.compose.context import ComposeContext
from bot.hydra.app import AppProblem, HydraApp, entry_path
from bot.ir import Launch

_MARKS = re.compile(r"[<>\[\]{}$…]|\.\.\.")
_UPPER = re.compile(r"^[A-Z][A-Z0-9_]*(\.[A-Za-z0-9]+)?$")  # `CONFIG`, `MY_FILE.yaml`: a name the reader picks


def judged(context: ComposeContext, launch: Launch, app: HydraApp | AppProblem) -> bool:
    """Whether the doc's launch, refused by its entry's own parser, is judged as a script's would be."""
    if launch.console_target is None and entry_path(context, launch) is None:
        return False  # not the repository's own entry
    if isinstance(app, AppProblem):
        return app.refused is not None and literal(app.refused)  # a command group refusing a word
    return bool(launch.args) and all(static and literal(text) for text, static in launch.args)  # argparse


def literal(word: str) -> bool:
    """Whether a word is written out, no placeholder for the reader to fill in."""
    return bool(word) and _MARKS.search(word) is None and _UPPER.match(word.rpartition("/")[2]) is None
