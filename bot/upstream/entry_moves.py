"""Entry points an upstream change moved (before..after), read from git: nothing is imported or executed.

A moved entry point is a .py file with a `if __name__ == "__main__":` block or a `@hydra.main` function
(read with the stdlib's `ast` on its new text) that git's rename detection pairs with a path gone after the
change, or whose old path is left as a shim: a file that imports the new module (and may warn) where the
code was, the code itself found at the new path.

Each move is generalised to the widest module prefix the change moved as a whole: the shared trailing
components of the old and new paths go while every Python file under the old folder has its counterpart
under the new one after the change (`recipe/dapo/src/main_dapo.py -> recipe/dapo/main_dapo.py` gives
`recipe.dapo.src -> recipe.dapo`; a package that moved into another gives that package's prefixes, never
their parents' where siblings did not move). A prefix that would be empty, or a folder that did not move
whole, keeps the module's whole path. Moves of the same prefix pair are one `EntryMove`.

What else agrees is said in short phrases: the change's own launch edits (in the shell scripts, docs and
YAML it edits, a hunk's removed line naming the old module or path beside an added one naming the new) and
the shims it left.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from os import PathLike
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from bot.errors import UserError
from bot.hydra.decorator import decorator_names
from bot.pyparse import parse_ast

if TYPE_CHECKING:
    import git

SIMILAR = 0.5  # git's own rename threshold: the old text and the new are the same file past it
LAUNCH_SUFFIXES = {".sh", ".bash", ".zsh", ".md", ".rst", ".txt", ".yaml", ".yml", ".ipynb"}
FILES_PER_CALL = 200  # files (two paths each at most) handed to one `git diff`, well under the command line's limit


@dataclass(frozen=True)
class EntryMove:
    old: str  # dotted module prefix before the change ("recipe.dapo.src")
    new: str  # after ("recipe.dapo")
    files: tuple[tuple[str, str], ...]  # the (old path, new path) renames behind it
    agreeing: tuple[str, ...]  # other sources that agree, each a short phrase


@dataclass(frozen=True)
class _Moved:
    old: str  # path before
    new: str  # path after
    shim: str = ""  # the phrase for the shim left at the old path, if any


def entry_moves(history: Path, before: str, after: str) -> list[EntryMove]:
    """The entry points the change before..after moved, one per module prefix pair, sorted by old."""
    import git

    try:
        repo = git.Repo(history)
        before_commit, after_commit = repo.commit(before), repo.commit(after)
    except (git.BadName, ValueError, git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise UserError(f"{history}: cannot read the change {before[:12]}..{after[:12]}: {exc}") from None
    diffs = before_commit.diff(after_commit, M=True)
    moved = _renamed(diffs) + _shimmed(diffs)
    if not moved:
        return []
    before_py = _python_files(repo, before_commit.hexsha)
    after_paths = set(repo.git.ls_tree("-r", "--name-only", "-z", after_commit.hexsha).split("\0"))
    groups: dict[tuple[str, str], list[_Moved]] = {}
    for move in moved:
        if move.old in after_paths and not move.shim:
            continue  # the old module is still there, and not as a shim: launches of it still run it
        groups.setdefault(_prefixes(move.old, move.new, before_py, after_paths), []).append(move)
    edits = _launch_edits(before_commit, after_commit, diffs, list(groups)) if groups else {}
    found = []
    for (old, new), members in groups.items():
        shims = sorted({m.shim for m in members if m.shim})
        count = edits.get((old, new), 0)
        agreeing = ([f"the change's own launch edits ({count})"] if count else []) + shims
        files = tuple(sorted((m.old, m.new) for m in members))
        found.append(EntryMove(old, new, files, tuple(agreeing)))
    return sorted(found, key=lambda m: (m.old, m.new))


def _text(blob: git.Blob | None) -> str | None:
    if blob is None:
        return None
    data: bytes = blob.data_stream.read()
    return data.decode("utf-8", "replace")


def _tree(text: str | None) -> ast.Module | None:
    if text is None:
        return None
    try:
        return parse_ast(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def is_entry_point(text: str) -> bool:
    """Whether a module's text runs something when launched: a main block or a `@hydra.main` function."""
    tree = _tree(text)
    if tree is None:
        return False
    if any(isinstance(node, ast.If) and _is_main_test(node.test) for node in tree.body):
        return True
    if "main" not in text:
        return False
    names, owners = decorator_names(text)
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and any(_is_hydra_main(d, names, owners) for d in node.decorator_list) for node in ast.walk(tree))


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    named = any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
    return named and any(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides)


def _is_hydra_main(decorator: ast.expr, names: set[str], owners: set[str]) -> bool:
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(called, ast.Name):
        return called.id in names
    return (isinstance(called, ast.Attribute) and called.attr == "main"
            and isinstance(called.value, ast.Name) and called.value.id in owners)


def _module(path: str) -> str:
    return str(PurePosixPath(path).with_suffix("")).replace("/", ".")


def _renamed(diffs: git.DiffIndex[git.Diff]) -> list[_Moved]:
    """The renames git detected whose new text is an entry point."""
    out = []
    for diff in diffs:
        if not diff.renamed_file or not diff.a_path or not diff.b_path:
            continue
        if diff.a_path.endswith(".py") and diff.b_path.endswith(".py"):
            text = _text(diff.b_blob)
            if text is not None and is_entry_point(text):
                out.append(_Moved(diff.a_path, diff.b_path))
    return out


def _shimmed(diffs: git.DiffIndex[git.Diff]) -> list[_Moved]:
    """Entry points added where a modified file's code was, that file now a shim importing the new module."""
    entries = []
    for diff in diffs:
        text = _text(diff.b_blob) if diff.change_type == "A" and (diff.b_path or "").endswith(".py") else None
        if text is not None and is_entry_point(text):
            entries.append((diff.b_path or "", text))
    if not entries:
        return []
    modified = [d for d in diffs if d.change_type == "M" and (d.b_path or "").endswith(".py")]
    nows = {d.b_path or "": _text(d.b_blob) or "" for d in modified}
    wases = {d.b_path or "": d.a_blob for d in modified}
    chosen: dict[str, tuple[float, _Moved]] = {}  # an old path -> the new file most like its old text
    for path, text in entries:
        module = _module(path)
        for old, now in nows.items():
            phrase = _shim_phrase(old, now, module) if module.rpartition(".")[2] in now else ""
            score = _similarity(_text(wases[old]) or "", text) if phrase else 0.0
            if score >= SIMILAR and _similarity(now, text) < SIMILAR and score > chosen.get(old, (0.0,))[0]:
                chosen[old] = (score, _Moved(old, path, phrase))
    return [moved for _, moved in chosen.values()]


def _similarity(a: str, b: str) -> float:
    """How alike two texts' code lines are (blank and comment lines, such as a licence header, left out)."""
    matcher = difflib.SequenceMatcher(None, _code(a), _code(b), autojunk=False)
    if matcher.real_quick_ratio() < SIMILAR or matcher.quick_ratio() < SIMILAR:
        return matcher.quick_ratio()
    return matcher.ratio()


def _code(text: str) -> list[str]:
    return [line for line in map(str.strip, text.splitlines()) if line and not line.startswith("#")]


def _shim_phrase(path: str, text: str, module: str) -> str:
    """"a shim at PATH that imports MODULE" (and warns) when the text imports the module, else ""."""
    tree = _tree(text)
    if tree is None:
        return ""
    package = _module(path).rpartition(".")[0].split(".")
    imports = warns = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports = imports or any(_names(alias.name, module) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package[: len(package) - node.level + 1]
                base = ".".join([*kept, base] if base else kept)
            imports = imports or _names(base, module) or any(_names(f"{base}.{a.name}", module) for a in node.names)
        elif isinstance(node, ast.Call):
            warns = warns or _called_name(node.func) in ("warn", "warning")
    if not imports:
        return ""
    return f"a shim at {path} that imports {module}" + (" and warns" if warns else "")


def _called_name(called: ast.expr) -> str:
    return called.id if isinstance(called, ast.Name) else called.attr if isinstance(called, ast.Attribute) else ""


def _names(imported: str, module: str) -> bool:
    return imported == module or imported.startswith(module + ".")


def _python_files(repo: git.Repo, sha: str) -> list[str]:
    listing: str = repo.git.ls_tree("-r", "--name-only", "-z", sha)
    return [path for path in listing.split("\0") if path.endswith(".py")]


def _prefixes(old: str, new: str, before_py: list[str], after_paths: set[str]) -> tuple[str, str]:
    """The widest (old, new) module prefixes the change moved whole; the modules' own where none."""
    old_parts, new_parts = PurePosixPath(old).parts, PurePosixPath(new).parts
    whole = (_module(old), _module(new))
    if old_parts[-1] != new_parts[-1]:
        return whole
    old_dir, new_dir = old_parts[:-1], new_parts[:-1]
    if not old_dir or not new_dir or not _moved_whole(old_dir, new_dir, before_py, after_paths):
        return whole
    while (len(old_dir) > 1 and len(new_dir) > 1 and old_dir[-1] == new_dir[-1]
           and _moved_whole(old_dir[:-1], new_dir[:-1], before_py, after_paths)):
        old_dir, new_dir = old_dir[:-1], new_dir[:-1]
    return ".".join(old_dir), ".".join(new_dir)


def _moved_whole(old_dir: tuple[str, ...], new_dir: tuple[str, ...], before_py: list[str],
                 after_paths: set[str]) -> bool:
    """Whether every Python file under old_dir before the change has its counterpart under new_dir after."""
    old_folder, new_folder = "/".join(old_dir) + "/", "/".join(new_dir) + "/"
    return all(new_folder + path[len(old_folder):] in after_paths
               for path in before_py if path.startswith(old_folder))


def _launch_edits(before: git.Commit, after: git.Commit, diffs: git.DiffIndex[git.Diff],
                  moves: list[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Per (old, new) prefix pair: the pairs of a removed line naming the old module or path and an added line
    naming the new (and not the old), hunk by hunk, in the launch-bearing files the change edits."""
    edited = [d for d in diffs if not d.deleted_file and d.b_path and PurePosixPath(d.b_path).suffix in LAUNCH_SUFFIXES]
    patterns = {move: (_naming(move[0]), _naming(move[1])) for move in moves}
    counts = dict.fromkeys(moves, 0)
    for start in range(0, len(edited), FILES_PER_CALL):
        # a renamed file's old path too: without it git would not pair the two, and would show every line added
        paths: list[str | PathLike[str]] = [p for d in edited[start:start + FILES_PER_CALL]
                                            for p in dict.fromkeys((d.a_path, d.b_path)) if p]
        for diff in before.diff(after, paths=paths, create_patch=True, M=True):
            patch = diff.diff.decode("utf-8", "replace") if isinstance(diff.diff, bytes) else str(diff.diff or "")
            for hunk in re.split(r"^@@[^\n]*\n?", patch, flags=re.MULTILINE):
                lines = hunk.splitlines()
                removed = [line[1:] for line in lines if line.startswith("-")]
                added = [line[1:] for line in lines if line.startswith("+")]
                for move, (old, new) in patterns.items():
                    gone = sum(1 for line in removed if old.search(line))
                    came = sum(1 for line in added if new.search(line) and not old.search(line))
                    counts[move] += min(gone, came)
    return counts


def _naming(module: str) -> re.Pattern[str]:
    """A line naming the module (or a module under it) dotted or as a path."""
    forms = "|".join(re.escape(form) for form in (module, module.replace(".", "/")))
    return re.compile(rf"(?<![\w.])(?:{forms})(?![\w])")
