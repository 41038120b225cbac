"""The file a launch runs in the repository (its run directory, `python -m` module or script), or why it is not there.

Paths outside the repository are not followed.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.ir import CONSOLE, DORA, ROOT, Launch, Workdir, moved_entry
from bot.lang import is_document, kind_for_path

if TYPE_CHECKING:
    from bot.context import ScanContext

SOURCE_ROOTS = ("", "src")  # where `python -m pkg.mod` finds pkg: the repository root, or a src/ layout
# packaging under these is an example, a fixture or a template, not a package the repository installs
_NOT_PACKAGES = {"docs", "doc", "examples", "example", "tests", "test", "testing", "fixtures", "templates",
                 "template", "benchmarks", "third_party", "vendor"}


def package_roots(directories: list[str]) -> tuple[str, ...]:
    """Where a package of a monorepo lives, from the directories of the repository's packaging files below
    its root (`habitat-baselines/setup.py`): an installed package of theirs is found there or in their src/."""
    return tuple(r for d in sorted(set(directories)) if d and not (set(d.split("/")) & _NOT_PACKAGES)
                 for r in (d, f"{d}/src"))


def source_roots(context: ScanContext) -> tuple[str, ...]:
    """Where `python -m pkg` finds pkg: the root, src/, and the scan's package roots."""
    return (*SOURCE_ROOTS, *context.package_roots)


def inside(root: Path, path: Path) -> bool:
    """Whether `path` (symlinks resolved) lies in the repository `root`."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def run_dir(launch: Launch) -> str | None:
    """Where the launch runs: a directory of the repository ("" for its root), "/..." outside it, None unknown.

    Scripts of a repository are run from its root (`bash examples/x/run.sh`) unless they `cd`.
    """
    return repository_dir(launch.workdir, launch.source_path)


def repository_dir(workdir: Workdir | None, source_path: str | None) -> str | None:
    """A directory the script names, relative to the repository ("/..." outside it); None unknown."""
    if workdir is None:
        return None
    base, rest = workdir
    if base == "absolute":
        return rest
    if base == "script":
        if source_path is None:
            return None
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(source_path), rest))
        return "" if joined == "." else joined
    return rest


def module_file(context: ScanContext, module: str, directory: str | None = None,
                imported: bool = False) -> Path | None:
    """The repository file `python -m module` runs from `directory`, if the module is the repository's own;
    `imported`: the file `import module` reads (a package's `__init__.py`, as a console script imports it)."""
    root = context.root
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    places = [directory] if directory and not directory.startswith("/") else []
    top = os.fspath(root)

    def found(source_root: str) -> Path | None:
        base = os.path.join(top, *source_root.split("/"), *parts) if source_root else os.path.join(top, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py" if imported else "__main__.py")):
            if os.path.isfile(candidate) and inside(root, Path(candidate)):
                return Path(candidate)
        return None

    for source_root in (*places, *SOURCE_ROOTS):  # python -m looks in its working directory first
        if (hit := found(source_root)) is not None:
            return hit
    hits = {hit for r in context.package_roots if (hit := found(r)) is not None}
    return hits.pop() if len(hits) == 1 else None  # two packages of the monorepo hold it: which one is unknown


def script_file(root: Path, launch: Launch) -> Path | None:
    """The script a launch runs: beside the launching script when it says so (`$(dirname "$0")/x.py`),
    else from the directory it runs in; where that is unknown, the root, then beside the script."""
    assert launch.entry is not None
    entry = launch.entry
    places: list[str] = []
    here = run_dir(launch)
    if launch.entry_base == "script-dir" and launch.source_path is not None:
        places.append(posixpath.join(posixpath.dirname(launch.source_path), entry))
    elif here is not None:
        places.append(posixpath.join(here, entry))
    if here is None or (launch.entry_base is None and _in_docs(launch)) or (
            launch.workdir is ROOT and launch.entry_base is None):
        # unknown, a doc's snippets (run from wherever the doc's `cd`s leave the reader), or a script
        # without a `cd`, which is run from the root unless the script beside it says otherwise
        places.append(entry)
        if launch.source_path is not None:
            places.append(posixpath.join(posixpath.dirname(launch.source_path), entry))
    for place in places:
        if place.startswith("/"):
            continue  # an absolute path is a machine's, not the repository's
        candidate = root / posixpath.normpath(place)
        if candidate.is_file() and inside(root, candidate):
            return candidate
    return None


def _in_docs(launch: Launch) -> bool:
    return launch.source_path is not None and is_document(kind_for_path(launch.source_path))


def entry_file(context: ScanContext, launch: Launch) -> Path | None:
    root = context.root
    if launch.entry is None:
        return None
    if launch.entry_kind == "module":
        return module_file(context, launch.entry, run_dir(launch))
    if launch.entry_kind == DORA:
        return dora_main(root, launch.entry, run_dir(launch))
    if launch.entry_kind == CONSOLE:  # installed: found in the package's sources, wherever it runs
        target = launch.console_target or ""
        if target.startswith("./"):  # a script file the packaging installs as a command
            candidate = root / target[2:]
            return candidate if candidate.is_file() and inside(root, candidate) else None
        return module_file(context, launch.module, imported=True) if launch.module else None
    return script_file(root, launch)


def dora_main(root: Path, main: str, directory: str | None) -> Path | None:
    """The module dora runs without `-P`: `main` (`train.py`) of the one package in the directory it runs in
    (where that is unknown, the root, then src/) that has one."""
    if not main.isidentifier():
        return None
    for place in ([directory] if directory is not None and not directory.startswith("/") else ["", "src"]):
        base = root / place if place else root
        try:
            found = [child / f"{main}.py" for child in sorted(base.iterdir()) if (child / "__init__.py").is_file()
                     and (child / f"{main}.py").is_file() and inside(root, child / f"{main}.py")]
        except OSError:
            continue
        if len(found) == 1:
            return found[0]
    return None


def missing_reason(context: ScanContext, launch: Launch) -> str:
    """Why the entry point is not in the repository, with what the repository says about it."""
    assert launch.entry is not None
    root = context.root
    if launch.entry_kind == CONSOLE:
        return f"console script {launch.entry} runs {launch.module}, which is not in the repository"
    if launch.entry_kind == DORA:
        return (f"dora runs the {launch.entry} module of its package (-P or DORA_PACKAGE), and no single package"
                " beside where the launch runs has one")
    what = "module" if launch.entry_kind == "module" else "script"
    text = f"{what} {launch.entry} is not in the repository"
    path = launch.entry.replace(".", "/") if launch.entry_kind == "module" else launch.entry
    here = run_dir(launch)
    if here is not None and here.startswith("/") and not (launch.entry_kind != "module" and path.startswith("/")):
        return f"{text}: it runs in {here}, outside the repository"
    places = [path] + ([posixpath.normpath(posixpath.join(here, path))] if here and not path.startswith("/") else [])
    submodules = _submodules(root)
    submodule = next((s for s in submodules for p in places if p == s or p.startswith(s + "/")), None)
    if submodule is not None:
        return f"{text}: it is in the git submodule {submodule}, which is not checked out"
    if launch.entry_kind == "script" and "/" not in launch.entry and module_file(context, launch.entry) is not None:
        return f"{text}; a module of that name is (`-m` missing?)"
    top = launch.entry.split(".")[0]
    if launch.entry_kind == "module" and "." in launch.entry and any(
            (root / r / top).is_dir() for r in source_roots(context)):
        return f"{text}, though its package {top} is (moved or removed?)"
    return text


def _submodules(root: Path) -> list[str]:
    """Paths of the git submodules that `.gitmodules` declares."""
    from bot import confined

    data = confined.read(confined.real(root), ".gitmodules")  # the repository's own file, no link out of it
    try:
        text = data.decode("utf-8") if data is not None else ""
    except UnicodeDecodeError:
        return []
    return [line.split("=", 1)[1].strip().strip("/") for line in text.splitlines()
            if line.strip().startswith("path") and "=" in line]


@dataclass(frozen=True)
class RepositoryEntries:
    """Whether a repository checkout holds a launch's entry point once its module prefix moved (EntryTargets)."""

    context: ScanContext
    looked: set[str] = field(default_factory=set)  # files whose presence decided an answer (the caches' reads)

    def has(self, launch: Launch, old: str, new: str) -> bool:
        where = moved_entry(launch.entry or "", launch.entry_kind, old, new)
        if where is None:
            return False
        start, end, text = where
        assert launch.entry is not None
        moved = replace(launch, entry=launch.entry[:start] + text + launch.entry[end:])
        found = entry_file(self.context, moved)
        entry = moved.entry or ""
        if found is None and "/" not in entry and not entry.endswith(".py"):
            found = module_file(self.context, entry, run_dir(moved))  # a module named without `-m`
        if found is not None:
            self.looked.add(found.resolve().relative_to(self.context.root).as_posix())
        elif moved.module is not None:
            path = moved.module.replace(".", "/")
            self.looked.update(posixpath.join(base, path + ".py") for base in source_roots(self.context))
        return found is not None


def imported_module_file(root: Path, roots: Iterable[str], path: Path, level: int, module: str) -> Path | None:
    """The repository file of a module imported by the file at `path`: relative imports (`level` dots) from its
    package, absolute ones from its directory and the source roots (`roots`, relative to `root`)."""
    parts = [p for p in module.split(".") if p]
    if not all(p.isidentifier() for p in parts):
        return None
    if level:
        base = path.parent
        for _ in range(level - 1):
            base = base.parent
        bases = [base]
    else:
        bases = [path.parent, *(root / r if r else root for r in roots)]
    for base in bases:
        stem = os.path.join(base, *parts)
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if os.path.isfile(candidate) and inside(root, Path(candidate)):
                return Path(candidate)
    return None
