"""An entry file that runs a function it imports (`from .entrypoint import main`, then `main()`).

`python -m pkg` runs pkg/__main__.py, which often only imports the app and calls it; a console script may
name such a re-export too. Hydra reads the `@hydra.main` where the function is defined, and its
config_path relative to that file, so that is the file the bot must read. Read with `ast` (never
imported); followed through a few re-exports (`pkg/__init__.py` importing from `pkg.app`).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from bot.hydra.decorator import decorator_names
from bot.hydra.entry import imported_module_file, source_roots
from bot.hydra.python_file import python_file

if TYPE_CHECKING:
    from bot.context import ScanContext

MAX_HOPS = 3


def imported_app(context: ScanContext, path: Path, function: str | None) -> tuple[Path, str] | None:
    """(file, function) the entry file runs through an import from the repository, a function that
    carries `@hydra.main` where it is defined; each name the file runs is tried in turn."""
    for target in _imported(context, path, function):
        seen = {path}
        current: tuple[Path, str | None] = target
        for _ in range(MAX_HOPS):  # through re-exports (`pkg/__init__.py` importing from `pkg.app`)
            if current[0] in seen:
                break
            seen.add(current[0])
            definition = _definition(context, *current)
            if definition is not None:
                names = decorator_names(python_file(context, current[0]).text or "")
                if any(_is_hydra_main(d, names) for d in definition.decorator_list):
                    return current[0], current[1] or ""
                break  # defined here without the decorator: not a Hydra app
            onward = _imported(context, *current)
            if not onward:
                break
            current = onward[0]
    return None


def _definition(context: ScanContext, path: Path,
                function: str | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    tree = python_file(context, path).tree
    for node in tree.body if tree is not None else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return node
    return None


def _is_hydra_main(decorator: ast.expr, names: tuple[set[str], set[str]]) -> bool:
    """`@hydra.main(...)` or `@main(...)` (imported from hydra), as bot.hydra.decorator reads them;
    `names`: decorator_names of the file."""
    func = decorator.func if isinstance(decorator, ast.Call) else None
    if isinstance(func, ast.Attribute):
        return func.attr == "main" and isinstance(func.value, ast.Name) and func.value.id in names[1]
    return isinstance(func, ast.Name) and func.id in names[0]


def _imported(context: ScanContext, path: Path, function: str | None) -> list[tuple[Path, str | None]]:
    """Where the names the file runs (`function`, else what its `__main__` block calls) are imported from."""
    tree = python_file(context, path).tree
    if tree is None:
        return []
    names: dict[str, tuple[int, str, str | None]] = {}  # local name -> (level, module, its name there)
    for node in _top_level(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                names[alias.asname or alias.name] = (node.level, node.module or "", alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = (0, alias.name, None)
    wanted = [function] if function else _called(tree)
    found: list[tuple[Path, str | None]] = []
    for name in wanted:
        local, _, attribute = name.partition(".")
        if local not in names:
            continue
        level, module, original = names[local]
        if original is None:  # `import pkg.app as app` then `app.main()`
            if not attribute:
                continue
            original = attribute
        elif attribute:  # `from pkg import app` then `app.main()`: a module, or a name of the package
            target = _module_file(context, path, level, f"{module}.{original}" if module else original)
            if target is not None:
                found.append((target, attribute))
                continue
        target = _module_file(context, path, level, module)
        if target is not None:
            found.append((target, original))
    return found


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements, with those of its `if __name__ == "__main__":` block and `try:` blocks."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if (isinstance(node, ast.If) and _is_main_test(node.test)) or isinstance(node, ast.Try):
            todo.extend(node.body)
    return out


def _is_main_test(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def _called(tree: ast.Module) -> list[str]:
    """Names called when the file runs as a program: in its `__main__` block, else at its top level."""
    blocks = [node.body for node in tree.body if isinstance(node, ast.If) and _is_main_test(node.test)]
    statements = [s for block in blocks for s in block] or list(tree.body)
    calls = []
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name):
                calls.append(func.id)
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                calls.append(f"{func.value.id}.{func.attr}")
    return calls


def _module_file(context: ScanContext, path: Path, level: int, module: str) -> Path | None:
    """The repository file of an imported module (relative imports from the file's own package)."""
    return imported_module_file(context.root, source_roots(context), path, level, module)
