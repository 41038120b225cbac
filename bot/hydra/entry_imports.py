"""The modules a launch's entry point loads through its import statements, in the repository (`when.imports`):
the entry file's module and the static import closure from it (bot.lang.python.imports), each module read
once per scan from the repository's own files (bot.confined)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from bot import confined
from bot.hydra.entry import entry_file, source_roots
from bot.lang.python.imports import closure, imported, module_of

if TYPE_CHECKING:
    from bot.context import ScanContext
    from bot.ir import Launch


MAX_BYTES = 2_000_000  # a larger module is not read for its imports (it still counts as loaded)


class EntryImports:
    """Per scan: module name -> the names it imports (None: not a module of the repository)."""

    def __init__(self, context: ScanContext) -> None:
        self.context = context
        self.roots = tuple(dict.fromkeys(source_roots(context)))
        self._imports: dict[str, set[str] | None] = {}

    def loads(self, launch: Launch) -> set[str] | None:
        """The modules the launch's entry point loads, itself included; None where the repository holds no
        entry file for it."""
        path = entry_file(self.context, launch)
        if path is None:
            return None
        relative = os.path.relpath(path, self.context.root).replace(os.sep, "/")
        found = module_of(relative, self.roots)
        if found is None:
            return None
        return closure(found[0], self._imports_of)

    def _imports_of(self, name: str) -> set[str] | None:
        if name not in self._imports:
            self._imports[name] = self._read(name)
        return self._imports[name]

    def _read(self, name: str) -> set[str] | None:
        root = str(self.context.root)
        parts = name.split(".")
        for base in self.roots:
            stem = Path(root, base, *parts) if base else Path(root, *parts)
            for candidate, package in ((stem.with_name(stem.name + ".py"), False), (stem / "__init__.py", True)):
                if confined.is_file(root, candidate):
                    data = confined.read(root, candidate, MAX_BYTES)
                    return imported(data.decode("utf-8", "replace"), name, package) if data is not None else set()
        return None
