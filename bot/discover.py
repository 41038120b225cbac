"""Which files of a repository the bot reads, and which it skips (with the reason).

In a git work tree: the files git tracks plus untracked files that are not ignored. Elsewhere:
a walk that never descends into symlinked directories. Each file gets a kind (registered in bot.lang):
shell by suffix or by a shell shebang, whatever its permissions or name; docs, notebooks,
workflows, YAML configs and Python files by suffix.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.gitfiles import list_files, tracked_paths
from bot.lang import KindsBySuffix, kind_for_path, kinds_by_suffix
from bot.lang.consoles import PACKAGING_NAMES, is_packaging
from bot.lang.kinds import SHELL
from bot.model import SkipKind, Skipped
from bot.safe_write import LEFTOVER, is_temp_name

SHEBANG = re.compile(rb"^#![ \t]*(?:/usr)?(?:/local)?/bin/(?:env[ \t]+(?:-\S+[ \t]+)*)?(?:ba|z|k|da)?sh\b")
NOT_SHELL_SUFFIXES = {".py", ".pyc", ".md", ".rst", ".txt", ".json", ".yaml", ".yml", ".toml", ".ipynb",
                      ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".gz", ".zip", ".tar", ".whl",
                      ".so", ".o", ".a", ".bin", ".pt", ".safetensors", ".parquet", ".csv", ".html",
                      ".css", ".js", ".ts", ".c", ".h", ".cc", ".cpp", ".rs", ".go", ".java", ".cfg",
                      ".ini", ".lock", ".in", ".mo", ".po"}
MAX_BYTES = 8 * 1024 * 1024
SHEBANG_BYTES = 128  # read of a file without a known suffix, to look for a shell shebang


@dataclass(frozen=True)
class SourceFile:
    path: str  # relative to the repository root, forward slashes
    root: Path
    kind: str  # a kind registered in bot.lang.FRONT_ENDS
    size: int = -1  # bytes on disk when it was listed

    @property
    def absolute(self) -> Path:
        return self.root / self.path

    @property
    def location(self) -> str:
        """The absolute path as a string: cheaper than `absolute` where many files are read."""
        return f"{self.root}/{self.path}"


def _inside(root_real: str, target: str) -> bool:
    return target == root_real or target.startswith(root_real.rstrip(os.sep) + os.sep)


def suffix_of(rel: str) -> str:
    """The lower-cased suffix of a relative path, as os.path.splitext gives it (a name's leading dots
    start none: `.bashrc` has none), without its cost."""
    name = rel.rfind("/") + 1
    dot = rel.rfind(".")
    if dot <= name or not rel[name:dot].strip("."):
        return ""
    return rel[dot:].lower()


def classify(root: Path, rel: str, skipped: list[Skipped], symlinked_dirs: dict[str, bool] | None = None,
             root_text: str | None = None, table: KindsBySuffix | None = None) -> SourceFile | None:
    """A SourceFile for a file the bot may read, or None (with a reason where it matters).

    `symlinked_dirs` memoises, per directory, whether it or a parent is a symlink; `root_text` is
    str(root); `table` is bot.lang.kinds_by_suffix(). They only save work when many files are classified.
    """
    base = root_text if root_text is not None else str(root)
    absolute = base + "/" + rel
    suffix = suffix_of(rel)
    named_kind = kind_for_path(rel, suffix, table)
    if named_kind is None and suffix in NOT_SHELL_SUFFIXES:
        return None  # never read: no need to look at it on disk either
    try:
        info = os.lstat(absolute)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return None  # tracked but deleted in the work tree
        if _has_symlinked_parent(base, rel, {} if symlinked_dirs is None else symlinked_dirs):
            skipped.append(Skipped(rel, "inside a symlinked directory: not followed", SkipKind.LINK))
        else:
            closed = _closed_directory(base, rel)
            where = f"in a directory the bot cannot read: {closed}/" if closed else "cannot read"
            skipped.append(Skipped(rel, f"{where} ({exc.strerror or exc})", SkipKind.UNREADABLE))
        return None
    if stat.S_ISLNK(info.st_mode):
        if named_kind is not None:
            target = os.path.realpath(absolute)
            root_real = os.path.realpath(root)
            reason = ("symlink to outside the repository: not followed" if not _inside(root_real, target)
                      else "symlink: its target is read under its own name")
            skipped.append(Skipped(rel, reason, SkipKind.LINK))
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    if named_kind is None:
        try:
            with open(absolute, "rb") as handle:
                head = handle.read(SHEBANG_BYTES)
        except OSError as exc:
            skipped.append(Skipped(rel, f"cannot read to look for a shell shebang: {exc.strerror or exc}"))
            return None
        if not SHEBANG.match(head):
            return None
    if _has_symlinked_parent(base, rel, {} if symlinked_dirs is None else symlinked_dirs):
        skipped.append(Skipped(rel, "inside a symlinked directory: not followed", SkipKind.LINK))
        return None
    return SourceFile(rel, root, named_kind or SHELL, info.st_size)


def _closed_directory(base: str, rel: str) -> str | None:
    """The first directory on the way to `rel` whose entries cannot be looked up, if one is."""
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        try:
            os.lstat(base + "/" + "/".join(parts[:depth + 1]))
        except OSError as exc:
            return "/".join(parts[:depth]) if exc.errno in (errno.EACCES, errno.EPERM) else None
    return None


def _has_symlinked_parent(base: str, rel: str, memo: dict[str, bool]) -> bool:
    directory = rel.rpartition("/")[0]
    if not directory:
        return False
    known = memo.get(directory)
    if known is None:
        known = _has_symlinked_parent(base, directory, memo) or os.path.islink(base + "/" + directory)
        memo[directory] = known
    return known


def read_source(source: SourceFile, skipped: list[Skipped]) -> bytes | None:
    """The file's bytes, or None after recording why it cannot be read as text."""
    try:
        location = source.location
        size = os.lstat(location).st_size
        if size > MAX_BYTES:
            skipped.append(Skipped(source.path, f"larger than {MAX_BYTES // (1024 * 1024)} MB ({size} bytes)"))
            return None
        # O_NOFOLLOW: a file swapped for a symlink after it was listed is refused, not followed
        with open(os.open(location, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as handle:
            data = handle.read()
    except OSError as exc:
        skipped.append(Skipped(source.path, f"cannot read: {exc.strerror or exc}"))
        return None
    if b"\0" in data:
        skipped.append(Skipped(source.path, "binary file (contains NUL bytes)"))
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        skipped.append(Skipped(source.path, f"not valid UTF-8 (byte {exc.start})"))
        return None
    return data


def sources(root: Path, skipped: list[Skipped], kinds: Collection[str] | None = None,
            sized: set[str] | None = None, packaging: list[str] | None = None) -> Iterator[SourceFile]:
    """Every file the bot reads, of the given kinds (all by default).

    `sized`: the files whose size is wanted (None: all). The others are told by their directory's
    listing, one per directory instead of a look-up per file, and have size -1. `packaging`: collects
    the paths of the packaging metadata files (bot.lang.consoles), whatever their kind.
    """
    memo: dict[str, bool] = {}
    root_text = str(root)
    table = kinds_by_suffix()
    entries = _Entries(root_text)
    listed = list_files(root, skipped)
    leftovers = _leftovers(root_text, listed, skipped)
    for rel in listed:
        if rel in leftovers:
            continue
        if packaging is not None and rel.endswith(PACKAGING_NAMES) and is_packaging(rel):
            packaging.append(rel)
        if sized is None or rel in sized:
            source = classify(root, rel, skipped, memo, root_text, table)
        else:
            source = _classify_listed(root, rel, skipped, memo, root_text, table, entries)
        if source is not None and (kinds is None or source.kind in kinds):
            yield source


def _leftovers(root: str, listed: list[str], skipped: list[Skipped]) -> set[str]:
    """The temp files a stopped --write left: untracked regular files named as the bot names its own
    (bot.safe_write.TEMP_NAME). Each is an entry in `skipped`, never read; the next --write removes them."""
    named = [rel for rel in listed if ".bot-" in rel and is_temp_name(rel.rpartition("/")[2])]
    if not named:
        return set()
    tracked = tracked_paths(Path(root), named)  # a file the project committed is its own, whatever its name
    found = set()
    for rel in named:
        try:
            regular = rel not in tracked and stat.S_ISREG(os.lstat(f"{root}/{rel}").st_mode)
        except OSError:
            continue
        if regular:
            skipped.append(Skipped(rel, f"{LEFTOVER}: not read; the next --write removes it", SkipKind.LEFTOVER))
            found.add(rel)
    return found


class _Entries:
    """Each directory's entries, listed once: name -> whether it is a plain file (None: a symlink)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.known: dict[str, dict[str, bool | None] | None] = {}

    def of(self, directory: str) -> dict[str, bool | None] | None:
        """The directory's entries; None when it cannot be listed, or listed but not entered (a look-up
        of a file in it fails where a listing does not): then each file is looked up."""
        if directory not in self.known:
            path = self.base + "/" + directory if directory else self.base
            try:
                if not os.access(path, os.X_OK):
                    raise PermissionError(path)
                with os.scandir(path) as listing:
                    self.known[directory] = {entry.name: None if entry.is_symlink() else entry.is_file(
                        follow_symlinks=False) for entry in listing}
            except OSError:
                self.known[directory] = None
        return self.known[directory]


def _classify_listed(root: Path, rel: str, skipped: list[Skipped], memo: dict[str, bool], root_text: str,
                     table: KindsBySuffix, entries: _Entries) -> SourceFile | None:
    """classify, told by the directory's listing where it can; the size is not looked up."""
    named_kind = kind_for_path(rel, suffix_of(rel), table)
    if named_kind is None:
        return classify(root, rel, skipped, memo, root_text, table)  # not read, or read for a shebang
    directory, _, name = rel.rpartition("/")
    listed = entries.of(directory)
    if listed is None or name not in listed or listed[name] is None:
        return classify(root, rel, skipped, memo, root_text, table)  # unlisted, gone, a symlink: as ever
    if not listed[name]:
        return None  # not a plain file
    if _has_symlinked_parent(root_text, rel, memo):
        skipped.append(Skipped(rel, "inside a symlinked directory: not followed", SkipKind.LINK))
        return None
    return SourceFile(rel, root, named_kind)


def shell_sources(root: Path, skipped: list[Skipped], packaging: list[str] | None = None) -> Iterator[SourceFile]:
    return sources(root, skipped, (SHELL,), packaging=packaging)
