"""Which modules a Python module imports, and what an entry module reaches through its imports, read with the
statement's own grammar on the text (nothing is imported; a line is enough, so no parse of the whole file).

A check in a module only runs for launches whose entry point loads that module; the static import closure is
how the bot tells them apart. It counts every `import` statement wherever it stands (inside functions too:
entry points often import their trainers lazily), the packages an import runs (`import a.b.c` runs `a` and
`a.b` first), and `from pkg import name` as both `pkg` and `pkg.name` (name may be a submodule). Imports made
at run time (importlib, a registry, `_target_` strings) are not edges.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

MAX_MODULES = 20_000  # a closure larger than this is cut off (a guard; verl's largest is about 600)


def module_of(path: str, roots: Iterable[str] = ("", "src")) -> tuple[str, bool] | None:
    """(dotted module name, whether it is a package) of a repository-relative `.py` path under one of the
    source roots (the deepest that holds it: `src/pkg` is `pkg`); None for a path that is no importable module."""
    if not path.endswith(".py"):
        return None
    for root in sorted(roots, key=len, reverse=True):
        prefix = root.rstrip("/") + "/" if root else ""
        if prefix and not path.startswith(prefix):
            continue
        parts = path[len(prefix):-len(".py")].split("/")
        package = parts[-1] == "__init__"
        if package:
            parts = parts[:-1]
        if parts and all(part.isidentifier() for part in parts):
            return ".".join(parts), package
    return None


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]*(?:\(([^)]*)\)|([^\n#;]*))", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]*)", re.MULTILINE)
_NAME = re.compile(r"^[A-Za-z_][\w.]*$")


def imported(text: str, module: str, is_package: bool) -> set[str]:
    """The dotted names the module's import statements may load (the candidates: which exist is the
    caller's to say), with the parent packages each runs first. Read line by line: a statement inside a
    string counts too, which only ever adds a module."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for match in _IMPORT.finditer(text):
        found.update(_names(match.group(1)))
    for match in _FROM.finditer(text):
        base = _absolute(package, len(match.group(1)), match.group(2))
        if base is None:
            continue
        if base:
            found.add(base)
        names = _names(match.group(3) if match.group(3) is not None else match.group(4).rstrip("\\"))
        found.update(f"{base}.{name}" if base else name for name in names if name != "*")
    with_parents = set(found)
    for name in found:
        parts = name.split(".")
        with_parents.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return with_parents


def _names(listed: str) -> list[str]:
    """The names of an import list (`a as b, c.d`), aliases dropped."""
    names = []
    for item in re.sub(r"#[^\n]*", "", listed).replace("\\\n", " ").split(","):
        words = item.split()
        if words and _NAME.match(words[0]):
            names.append(words[0])
    return names


def _absolute(package: str, level: int, module: str) -> str | None:
    """The absolute name of a relative import (`from ..x import y` in package a.b: a.x); None above the top."""
    if not level:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[:len(parts) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def closure(start: str, imports_of: Callable[[str], set[str] | None]) -> set[str]:
    """Every module of the tree that `start` loads, itself and its parent packages included; `imports_of(m)`
    gives the names m imports, or None when m is not a module of the tree (a library: not followed)."""
    parts = start.split(".")
    pending = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
    seen: set[str] = set()
    while pending and len(seen) < MAX_MODULES:
        name = pending.pop()
        if name in seen:
            continue
        names = imports_of(name)
        if names is None:
            continue
        seen.add(name)
        pending.extend(n for n in names if n not in seen)
    return seen
