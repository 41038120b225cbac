"""A Python file of the repository as hydra/ reads it: its stdlib `ast`, parsed once per scan and per text.

The `@hydra.main` arguments (bot.hydra.decorator), the compose-API calls (bot.hydra.api_app) and the
imports an entry file runs through (bot.hydra.imported) are all read from this one tree; nothing is
imported or run. It is kept in the scan's context (`ScanContext.apps`), keyed by the file's text, never
by its path: two scans never share it, and a file that changed between two scans is read again.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.pyparse import TooDeep, parse_ast, too_deep

if TYPE_CHECKING:
    from bot.context import ScanContext


@dataclass
class PythonFile:
    """One Python text: its tree (None: not UTF-8, or not Python), and what was read of it (`facts`, by name)."""

    text: str | None
    tree: ast.Module | None
    facts: dict[tuple[object, ...], Any] = field(default_factory=dict)
    _deep: tuple[str | None] | None = None

    @property
    def too_deep(self) -> str | None:
        """Why the bot does not read the text's apps (bot.pyparse.too_deep: nested deeper than it parses), or None.

        The limit is libcst's, which read the apps before; kept so a file is an app, or unreadable, as it was.
        """
        if self._deep is None:
            self._deep = (too_deep(self.text) if self.text is not None else None,)
        return self._deep[0]

    def fact(self, key: tuple[object, ...], read: Any) -> Any:
        """What `read()` finds in this text, read once."""
        if key not in self.facts:
            self.facts[key] = read()
        return self.facts[key]


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _parse(text: str | None) -> ast.Module | None:
    if not text:
        return None
    try:
        return parse_ast(text)
    except (SyntaxError, ValueError, TooDeep):
        return None


def python_file(context: ScanContext, path: Path) -> PythonFile:
    """The file as this scan reads it (parsed once per distinct text)."""
    text = _text(path)
    key = ("python", text)
    found = context.apps.get(key)
    if found is None:
        found = context.apps[key] = PythonFile(text, _parse(text))
    assert isinstance(found, PythonFile)
    return found


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")  # the fields that hold statements


def _statements(tree: ast.AST) -> list[ast.AST]:
    """The tree's statements, at any depth, and the nodes that hold them (an `except` clause, a `case`):
    a statement is never inside an expression, so the expressions are not walked."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if block:
                todo.extend(block)
    return out


def in_order(tree: ast.AST, kinds: type | tuple[type, ...]) -> list[Any]:
    """The nodes of these kinds, in the order a walk of the source visits them (an enclosing node first)."""
    wanted = kinds if isinstance(kinds, tuple) else (kinds,)
    walk = _statements(tree) if all(issubclass(kind, ast.stmt) for kind in wanted) else ast.walk(tree)
    nodes = [node for node in walk if isinstance(node, kinds)]
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset, -(n.end_lineno or 0), -(n.end_col_offset or 0)))


def call_arguments(call: ast.Call) -> list[tuple[str | None, ast.expr]]:
    """A call's arguments as written, in order: (keyword or None, value); `*x` and `**x` are given as x."""
    written: list[tuple[tuple[int, int], str | None, ast.expr]] = []
    for arg in call.args:
        value = arg.value if isinstance(arg, ast.Starred) else arg
        written.append(((arg.lineno, arg.col_offset), None, value))
    for keyword in call.keywords:
        written.append(((keyword.lineno, keyword.col_offset), keyword.arg, keyword.value))
    return [(name, value) for _, name, value in sorted(written, key=lambda w: w[0])]


def argument(call: ast.Call, keyword: str, position: int) -> ast.expr | None:
    """The value of the argument named `keyword`, or the one at `position` when none before it is named so."""
    for index, (name, value) in enumerate(call_arguments(call)):
        if name == keyword or (name is None and index == position):
            return value
    return None


def string(node: ast.expr | None) -> str | None:
    """A string literal's value (None for anything else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def called_name(func: ast.expr) -> str:
    """`f` of `f(...)` and of `x.f(...)`; "" for anything else."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def dotted(node: ast.expr) -> str | None:
    """`os.path.join` as written (names and attributes only), else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
