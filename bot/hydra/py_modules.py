"""The repository's Python modules as the structured-config reader follows them: each file parsed once, a name
looked up where it is defined (a top-level class, function or assignment) or imported from (`from pkg.mod
import X`, relative too; `import pkg.mod as m` then `m.X`), through a few hops. Nothing is imported or run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from bot.hydra.entry import SOURCE_ROOTS, imported_module_file
from bot.pyparse import TooDeep, parse_ast

MAX_HOPS = 6
_MAX_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Defined:
    """A name's definition: the top-level statement that binds it, in the file it is in."""

    path: Path
    node: ast.stmt  # a ClassDef, a FunctionDef, or an Assign / AnnAssign of the name
    name: str


class Modules:
    """The Python files of one repository, parsed when first asked."""

    def __init__(self, root: Path, roots: tuple[str, ...] = SOURCE_ROOTS) -> None:
        self.root = root
        self.roots = roots  # where an absolute import is looked for, relative to the root (bot.hydra.entry)
        self._trees: dict[Path, ast.Module | None] = {}

    def tree(self, path: Path) -> ast.Module | None:
        if path not in self._trees:
            self._trees[path] = _parse(path)
        return self._trees[path]

    def module_file(self, path: Path, level: int, module: str) -> Path | None:
        """The repository file of a module imported by the file at `path` (relative imports from its package)."""
        return imported_module_file(self.root, self.roots, path, level, module)

    def lookup(self, path: Path, name: str) -> Defined | Path | None:
        """Where `name`, as the file at `path` binds it at its top level, is defined: a Defined, a module file
        (`from pkg import mod`, `import pkg.mod as mod`), or None (not the repository's, or not found)."""
        for _ in range(MAX_HOPS):
            tree = self.tree(path)
            if tree is None:
                return None
            found = self._bound(path, tree, name)
            if found is None or isinstance(found, (Defined, Path)):
                return found
            path, name = found  # imported from another module of the repository: looked up there
        return None

    def _bound(self, path: Path, tree: ast.Module, name: str) -> Defined | Path | tuple[Path, str] | None:
        found: Defined | Path | tuple[Path, str] | None = None
        for node in _top_level(tree):
            if _defines(node, name):
                found = Defined(path, node, name)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) != name:
                        continue
                    module = self.module_file(path, node.level, node.module or "")
                    if module is not None and alias.name in self._names(module):
                        found = (module, alias.name)
                    else:  # `from pkg import mod`: a module of the package, or nothing of the repository's
                        found = self.module_file(path, node.level,
                                                 f"{node.module}.{alias.name}" if node.module else alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname == name:
                        found = self.module_file(path, 0, alias.name)
        return found

    def _names(self, path: Path) -> set[str]:
        """The names a module binds at its top level, however (not followed)."""
        tree = self.tree(path)
        names: set[str] = set()
        for node in _top_level(tree) if tree is not None else []:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
        return names


def _defines(node: ast.stmt, name: str) -> bool:
    """Whether the statement defines `name`: a class, a function, an assignment with a value."""
    if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    return (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name
            and node.value is not None)


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements with those of its top-level `if` and `try` blocks (`try: import x except: ...`)."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if isinstance(node, ast.If):
            todo[:0] = [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            todo[:0] = [*node.body, *[s for h in node.handlers for s in h.body], *node.orelse]
    return out


def _parse(path: Path) -> ast.Module | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > _MAX_BYTES:
        return None
    try:
        return parse_ast(data)
    except (SyntaxError, ValueError, TooDeep):
        return None
