"""An entry that parses its command line with argparse's `parse_args()` before Hydra composes: argparse
exits on a flag its parser does not define, or a word it takes no positional for, so the launch fails there.

Read with the stdlib's `ast` (nothing of the repository is imported or run): one `ArgumentParser` built in
the entry file, its `add_argument` calls with literal names, `nargs` and `action`, and an argless
`parser.parse_args()` run unconditionally when the file runs as a script (a statement of its
`if __name__ == "__main__":` block, or of a function that block calls by name). Whatever else it does (sub-
commands, argument groups, parent parsers, `@file` arguments, computed names, a custom action,
`parse_known_args()`, which accepts unknown words) is not read: no gate, no finding.

The parser is then rebuilt with the stdlib's argparse from what was read, and the launch's words parsed
with it, so the error is argparse's own.
"""

from __future__ import annotations

import argparse
import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.hydra.python_file import PythonFile, called_name, python_file
from bot.ir import Launch

if TYPE_CHECKING:
    from bot.context import ScanContext

_ZERO = {"store_true", "store_false", "store_const", "count", "append_const", "help", "version"}
_TAKES = {None, "store", "append", "extend"}
_NARGS = {"?", "*", "+"}


@dataclass(frozen=True)
class Argument:
    names: tuple[str, ...]
    nargs: int | str | None
    action: str | None


@dataclass(frozen=True)
class Gate:
    """A parser the entry runs `parse_args()` with before composing: its arguments, and where it parses."""

    arguments: tuple[Argument, ...]
    allow_abbrev: bool
    line: int


def gate(file: PythonFile) -> Gate | None:
    """The entry's argparse gate, read once per text of the file."""
    return file.fact(("argparse-gate",), lambda: _read(file.tree)) if file.tree is not None else None


def rejected(found: Gate, words: list[str]) -> str | None:
    """argparse's error for the launch's words (`unrecognized arguments: ...`), or None when it takes them."""
    parser = _Parser(prog="app", allow_abbrev=found.allow_abbrev, add_help=False)
    for argument in found.arguments:
        options: dict[str, Any] = {}
        if argument.action is not None:
            options["action"] = "store_true" if argument.action in ("help", "version") else argument.action
            if argument.action in ("store_const", "append_const"):
                options["const"] = None
        if argument.nargs is not None:
            options["nargs"] = argument.nargs
        if not argument.names[0].startswith("-"):
            options["nargs"] = options.get("nargs") or "?"  # a missing positional is not what is judged here
        parser.add_argument(*argument.names, **options)
    try:
        _, extras = parser.parse_known_args(words)
    except _Refused:
        return None  # another argparse error (an option without its value): not what is judged here
    if extras:
        return "error: unrecognized arguments: " + " ".join(extras)
    return None


class _Refused(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        """argparse's hook: raised instead of exiting."""
        raise _Refused(message)


def _read(tree: ast.Module) -> Gate | None:
    built = _parser(tree)
    if built is None:
        return None
    name, allow_abbrev = built
    arguments: list[Argument] = []
    parse_line = None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            continue
        method = node.func.attr
        if method == "add_argument":
            argument = _argument(node)
            if argument is None:
                return None
            arguments.append(argument)
        elif method == "parse_args":
            if node.args or node.keywords or parse_line is not None:
                return None  # words of its own, not the command line's
            parse_line = node.lineno
        elif method != "set_defaults":  # sub-commands, groups, parse_known_args, ...: not read
            return None
    if parse_line is None or not _runs_first(tree, parse_line):
        return None
    return Gate(tuple(arguments), allow_abbrev, parse_line)


def _parser(tree: ast.Module) -> tuple[str, bool] | None:
    """The name of the file's one `ArgumentParser(...)` and its allow_abbrev, if it is built plainly."""
    parsers: list[tuple[str, ast.Call]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and called_name(node.value.func).endswith("ArgumentParser"):
            parsers.append((node.targets[0].id, node.value))
    if len(parsers) != 1:
        return None  # none, or several not told apart
    (name, built), = parsers
    if not _only_its_methods(tree, name) or _touches_argv(tree):
        return None
    allow_abbrev = True
    for keyword in built.keywords:
        if keyword.arg == "allow_abbrev" and isinstance(keyword.value, ast.Constant):
            allow_abbrev = bool(keyword.value.value)
        elif keyword.arg in ("parents", "fromfile_prefix_chars", "prefix_chars", "allow_abbrev", None):
            return None
    return name, allow_abbrev


def _only_its_methods(tree: ast.Module, name: str) -> bool:
    """The parser's name is bound once and only its methods are called: never handed to a function that may
    add arguments of its own (`add_model_args(parser)`), nor rebound."""
    methods = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    stores = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Store):
                stores += 1
            elif id(node) not in methods:
                return False
    return stores == 1


def _touches_argv(tree: ast.Module) -> bool:
    """The file reads or rewrites `sys.argv` itself (Hydra's overrides taken out before argparse sees them)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "argv":
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "sys" and any(a.name == "argv" for a in node.names):
            return True
    return False


def _argument(call: ast.Call) -> Argument | None:
    names = tuple(a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    if not names or len(names) != len(call.args):
        return None
    nargs: int | str | None = None
    action: str | None = None
    for keyword in call.keywords:
        value = keyword.value.value if isinstance(keyword.value, ast.Constant) else keyword.value
        if keyword.arg == "nargs":
            if not ((isinstance(value, int) and not isinstance(value, bool)) or value in _NARGS):
                return None  # argparse.REMAINDER, or computed
            nargs = value
        elif keyword.arg == "action":
            if not (isinstance(value, str) and (value in _ZERO or value in _TAKES)):
                return None  # a custom action, or BooleanOptionalAction: not read
            action = value
        elif keyword.arg is None:
            return None
    return Argument(names, nargs, action)


def _runs_first(tree: ast.Module, line: int) -> bool:
    """Whether the `parse_args()` at `line` is a statement the script runs whenever it runs: one of its
    `__main__` block's, or of a module-level function that block calls by name."""
    if _parses_at(tree.body, line):  # at module level: run on every start
        return True
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for node in tree.body:
        if not (isinstance(node, ast.If) and _is_main_test(node.test)):
            continue
        if _parses_at(node.body, line):
            return True
        for statement in node.body:
            value = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                function = functions.get(value.func.id)
                if function is not None and not function.decorator_list and _parses_at(function.body, line):
                    return True
    return False


def _parses_at(body: list[ast.stmt], line: int) -> bool:
    """A statement of `body` itself (not nested in a branch) is the parse at `line`."""
    for statement in body:
        value = statement.value if isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Call) and value.lineno == line and isinstance(value.func, ast.Attribute) \
                and value.func.attr == "parse_args":
            return True
    return False


def _is_main_test(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def argparse_failure(context: ScanContext, launch: Launch, path: Path | None) -> str | None:
    """argparse's error for the launch, when its entry file (`path`) parses the command line with
    `parse_args()` before composing and refuses the launch's words; None when it takes them or is not read."""
    if path is None or launch.caller_args or not all(static for _, static in launch.args):
        return None
    found = gate(python_file(context, path))
    if found is None:
        return None
    error = rejected(found, [text for text, _ in launch.args])
    if error is None:
        return None
    return f"{error} (argparse, parse_args() at line {found.line} of {path.name}, before Hydra composes)"
