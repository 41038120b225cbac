"""A launch through a command group (a typer app, a click group: bot.hydra.command_groups): its first words name
the command it runs (`tool data prepare a=b`), and a word that names none of a complete group's commands fails
there, with click's words (`Error: No such command 'X'.`), before any Hydra app runs.

The group is the console script's target (with what the modules run at its start register), or the `NAME()` a
file's `if __name__ == "__main__":` block runs (that file's own commands only: other modules that import the
group get another copy of the module). The words are walked while they are written out and are not options
(`--help`, the group's own options); a word naming a command that is read no further ends the walk, and one
naming a function ends it at that command (`Route.leaf`): what it runs is for the caller to read
(bot.hydra.app: a command that composes with Hydra's compose API, its words its overrides).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.hydra.command_groups import Group, Leaf, Start, SubGroup, read_group, start_of
from bot.hydra.python_file import PythonFile, python_file
from bot.ir import Launch

if TYPE_CHECKING:
    from bot.context import ScanContext

_MISSING = object()
_LISTS = {"List", "list"}


@dataclass(frozen=True)
class Route:
    """Where the launch's words lead: click's error (`failure`), or the command they name (`leaf`, with `words`)."""

    failure: str | None = None
    refused: str | None = None  # the word `failure` refuses
    leaf: Leaf | None = None
    words: tuple[str, ...] = ()


def command_route(context: ScanContext, launch: Launch, path: Path, function: str | None,
                  file: PythonFile | None = None) -> Route | None:
    """Where the launch's words lead through the command group the entry file (`path`; `file`: its text as the
    caller read it) is; None when it is no group, or the words are not judged. `function`: the console script's
    target in the file (None: a script or module run as `__main__`)."""
    if not launch.args or (launch.caller_args and all(static for _, static in launch.args)):
        return None  # the caller's words, placed where they are not seen
    name = function or _main_call(file or python_file(context, path))
    if name is None:
        return None
    start: Start = _cached(context, ("command-start", str(path), launch.module if function else None),
                    lambda: start_of(context, path, launch.module if function else None))
    group = _group(context, path, name, start)
    if group is None or group.single or group.takes_words or not group.commands:
        return None
    words: list[str] = []
    for text, static in launch.args:
        if not static or not text or text.startswith("-"):
            return None
        child = group.commands.get(text, _MISSING)
        if child is _MISSING:
            return Route(failure=_refused(context, group, text), refused=text) if group.complete else None
        words.append(text)
        if isinstance(child, Leaf):
            return Route(leaf=child, words=tuple(words))
        if not isinstance(child, SubGroup):
            return None
        group = _group(context, child.path, child.name, start)
        if group is None or group.takes_words:
            return None
    return None  # the words end at a group (typer: "Missing command."): not judged


def rest_parameter(context: ScanContext, leaf: Leaf) -> str | None:
    """The one parameter of the command's function, when it takes every word after the command (`overrides:
    List[str]`, no default: typer's variadic argument); None otherwise."""
    tree = python_file(context, leaf.path).tree
    if tree is None:
        return None
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == leaf.function]
    if len(defined) != 1:
        return None
    arguments = defined[0].args
    if arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg or arguments.defaults \
            or len(arguments.args) != 1:
        return None
    (only,) = arguments.args
    annotation = only.annotation
    if isinstance(annotation, ast.Subscript) and _list_name(annotation.value) and isinstance(
            annotation.slice, ast.Name) and annotation.slice.id == "str":
        return only.arg
    return None


def _list_name(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in _LISTS) or (
        isinstance(node, ast.Attribute) and node.attr == "List" and isinstance(node.value, ast.Name)
        and node.value.id == "typing")


def _group(context: ScanContext, path: Path, name: str, start: Start) -> Group | None:
    found: Group | None = _cached(context, ("command-group", str(path), name, start),
                                  lambda: read_group(context, path, name, start))
    return found


def _cached(context: ScanContext, key: tuple[object, ...], read: Callable[[], Any]) -> Any:
    """What the scan found of the repository's files, read once per scan."""
    if key not in context.apps:
        context.apps[key] = read()
    return context.apps[key]


def _refused(context: ScanContext, group: Group, word: str) -> str:
    commands = ", ".join(sorted(group.commands))
    where = group.path.relative_to(context.root).as_posix() if group.path.is_relative_to(context.root) \
        else group.path.name
    return (f"Error: No such command '{word}'. ({group.kind}: `{group.name}` at {where}:{group.line} has the "
            f"commands {commands}; it refuses the word before Hydra composes)")


def _main_call(file: PythonFile) -> str | None:
    """`NAME` of a `NAME()` statement the file's `if __name__ == "__main__":` block runs, if it is its only call."""
    tree = file.tree
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.If) and _is_main_test(node.test):
            calls = [s.value for s in node.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]
            if len(calls) == 1 and isinstance(calls[0].func, ast.Name) and not calls[0].args \
                    and not calls[0].keywords:
                return calls[0].func.id
    return None


def _is_main_test(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")
