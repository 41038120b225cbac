"""A directory tree's files, read without leaving it: the one rule for every file the repository names.

A path is used only when, its symlinks resolved, it is a regular file (or a directory) inside the
tree; anything else (a link that leads out of the tree, a directory on the way that is one, a FIFO, a
device) is absent, as if the repository did not have it. A link that stays inside the tree is read
as what it points at, as Hydra reads it: no byte from outside the tree is read either way. Reads open
the resolved path one name at a time from the tree's root without following a link (`O_NOFOLLOW`),
so a name swapped for a link after the check is refused, not followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator

MAX_FILES = 20_000  # files a walk below one directory hands out


def real(root: object) -> str:
    """The tree's root as every function here takes it: absolute, its own symlinks resolved."""
    return str(os.path.realpath(os.fspath(root)))  # type: ignore[call-overload]


def relative(root: str, path: object) -> str | None:
    """`path` (absolute, or relative to `root`) with its links resolved, relative to `root` ("" for the root
    itself); None when it leads out of the tree."""
    text = os.fspath(path)  # type: ignore[call-overload]
    if "\0" in text:
        return None  # names no file
    resolved = _resolved(text if os.path.isabs(text) else os.path.join(root, text))
    if resolved == root:
        return ""
    prefix = root.rstrip(os.sep) + os.sep
    return resolved[len(prefix):] if resolved.startswith(prefix) else None


def _resolved(path: str) -> str:
    """`os.path.realpath(path)`, its directory's resolution remembered: a scan asks about thousands of files in a
    few hundred directories, and resolving a path costs a system call per name on it. A remembered directory is
    used only while its path still leads to the same directory (one `stat`); `forget` drops them all."""
    head, name = os.path.split(path)
    if not head or name in ("", ".", ".."):
        return os.path.realpath(path)
    try:
        info = os.stat(head)
    except (OSError, ValueError):
        return os.path.realpath(path)
    known = _directories.get(head)
    if known is None or known[1] != (info.st_dev, info.st_ino):
        if len(_directories) >= MAX_REMEMBERED:
            _directories.clear()
        known = _directories[head] = (os.path.realpath(head), (info.st_dev, info.st_ino))
    candidate = os.path.join(known[0], name)
    return os.path.realpath(candidate) if os.path.islink(candidate) else candidate


MAX_REMEMBERED = 4096
_directories: dict[str, tuple[str, tuple[int, int]]] = {}  # a directory's path -> (its real path, its identity)


def forget() -> None:
    """The directories resolved so far forgotten: called as a scan begins."""
    _directories.clear()


def _mode(root: str, path: object) -> int | None:
    rel = relative(root, path)
    if rel is None:
        return None
    try:
        return os.stat(os.path.join(root, rel), follow_symlinks=False).st_mode
    except (OSError, ValueError):
        return None


def is_file(root: str, path: object) -> bool:
    """Whether `path` is a regular file of the tree."""
    if not os.path.isfile(os.path.join(root, path)):  # type: ignore[call-overload]
        return False  # nothing there at all: no need to resolve its links
    mode = _mode(root, path)
    return mode is not None and stat.S_ISREG(mode)


def is_dir(root: str, path: object) -> bool:
    """Whether `path` is a directory of the tree."""
    if not os.path.isdir(os.path.join(root, path)):  # type: ignore[call-overload]
        return False
    mode = _mode(root, path)
    return mode is not None and stat.S_ISDIR(mode)


def why_absent(root: str, path: object) -> str | None:
    """Why a path that is there on disk is not one of the tree's (None: it is, or nothing is there)."""
    text = os.fspath(path)  # type: ignore[call-overload]
    full = text if os.path.isabs(text) else os.path.join(root, text)
    if "\0" in full or not os.path.lexists(full):
        return None
    if relative(root, full) is None:
        if os.path.normpath(full) == os.path.realpath(full):
            return "outside the repository"  # named with `..` that climbs out of it, no link on the way
        return ("a symlink to outside the repository" if os.path.islink(full)
                else "reached through a symlink to outside the repository")
    mode = _mode(root, full)
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return "not a regular file"
    return None


def read(root: str, path: object, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file of the tree; None when it is not one, cannot be read, or is larger than
    `limit` bytes."""
    rel = relative(root, path)
    if not rel:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    directory = getattr(os, "O_DIRECTORY", 0)
    parts = rel.split(os.sep)
    try:
        fd = os.open(root, os.O_RDONLY | directory | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            inner = os.open(part, flags | directory, dir_fd=fd)
            os.close(fd)
            fd = inner
        inner = os.open(parts[-1], flags | getattr(os, "O_NONBLOCK", 0), dir_fd=fd)  # a FIFO does not block
        os.close(fd)
        fd = inner
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (limit is not None and info.st_size > limit):
            return None
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            data = handle.read() if limit is None else handle.read(limit + 1)
        return data if limit is None or len(data) <= limit else None
    except OSError:  # a name swapped for a link since the check (ELOOP), gone, unreadable
        return None
    finally:
        if fd >= 0:
            os.close(fd)


def entries(root: str, path: object) -> list[tuple[str, bool]]:
    """(name, whether it is a directory) of each entry of a directory of the tree that is a regular file or
    a directory of the tree, sorted by name; [] when `path` is not a directory of the tree."""
    rel = relative(root, path)
    if rel is None:
        return []
    directory = os.path.join(root, rel) if rel else root
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for name in names:
        mode = _mode(root, os.path.join(directory, name))
        if mode is not None and (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            found.append((name, stat.S_ISDIR(mode)))
    return found


def files_below(root: str, path: object, suffixes: tuple[str, ...], limit: int = MAX_FILES) -> Iterator[str]:
    """The regular files of the tree below directory `path` whose names end with one of `suffixes`, as paths
    relative to `path` ("/"-separated), in sorted order; a directory linked inside the tree is walked as
    what it points at, never twice on one branch (a link to a parent), and at most `limit` files are given."""
    start = relative(root, path)
    if start is None or not is_dir(root, path):
        return
    given = 0
    stack: list[tuple[str, str, tuple[str, ...]]] = [("", start, (start,))]  # (as named, real, real parents)
    while stack:
        named, rel, parents = stack.pop()
        directory = os.path.join(root, rel) if rel else root
        below: list[tuple[str, str, tuple[str, ...]]] = []
        for name, is_directory in entries(root, directory):
            shown = f"{named}/{name}" if named else name
            if is_directory and name == ".git":
                continue  # git's own directory holds no config
            if is_directory:
                real_rel = relative(root, os.path.join(directory, name))
                if real_rel is not None and real_rel not in parents:
                    below.append((shown, real_rel, (*parents, real_rel)))
            elif name.endswith(suffixes):
                if given >= limit:
                    return
                given += 1
                yield shown
        stack.extend(reversed(below))
