"""Where the bot's short-lived trees go: a checkout, the tree before a change, config directories written out.

Such a tree is written, read once and removed within one run, and writing it is mostly the file system's work:
on a disk-backed file system each new file and directory costs a metadata update (on some machines a millisecond
each, so a checkout of a thousand files costs a second of kernel time), in a RAM-backed one (tmpfs) next to
nothing. So a tree goes under `/dev/shm` when that is a tmpfs the bot may write to and it has room for the tree
four times over beside a floor (a container's default 64 MB one is never used); else, and always when the user
names a temporary directory (TMPDIR, TEMP or TMP), where Python's `tempfile` puts it. Nothing else changes: the
directory is made private (mode 0700) and removed as before.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

RAM_BACKED = "/dev/shm"
FLOOR = 256 << 20  # bytes left free beside the trees
ROOM_FACTOR = 4  # a tree's estimate is exceeded (several trees, files written beside it): room for it four times


def parent(room: int = 0) -> str | None:
    """The directory a tree of about `room` bytes goes under; None for Python's temporary directory."""
    if any(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")):
        return None  # the user chose where temporary files go
    if not _ram_backed():
        return None
    try:
        stats = os.statvfs(RAM_BACKED)
    except OSError:
        return None
    free = stats.f_bavail * stats.f_frsize
    return RAM_BACKED if free >= FLOOR + ROOM_FACTOR * room else None


def mkdtemp(prefix: str, room: int = 0) -> str:
    """A new private directory (tempfile.mkdtemp) for a tree of about `room` bytes."""
    return tempfile.mkdtemp(prefix=prefix, dir=parent(room))


def temporary_directory(prefix: str, room: int = 0) -> tempfile.TemporaryDirectory[str]:
    """A new private directory removed when closed (tempfile.TemporaryDirectory) for a tree of about `room` bytes."""
    return tempfile.TemporaryDirectory(prefix=prefix, dir=parent(room))


def checkout_size(repository: Path) -> int:
    """An estimate of a checkout's bytes: the size of the repository's packed objects (its history, compressed,
    which a checkout of one commit rarely exceeds), through a worktree's link and the alternates it borrows from."""
    git_dir = _git_dir(repository)
    if git_dir is None:
        return 0
    total = 0
    seen: set[str] = set()
    pending = [git_dir / "objects"]
    while pending:
        objects = pending.pop()
        key = os.path.realpath(objects)
        if key in seen:
            continue
        seen.add(key)
        try:
            with os.scandir(objects / "pack") as entries:
                total += sum(e.stat().st_size for e in entries if e.name.endswith(".pack") and e.is_file())
        except OSError:
            pass
        try:
            borrowed = (objects / "info" / "alternates").read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            borrowed = []
        pending.extend((objects / line.strip()) for line in borrowed if line.strip() and not line.startswith("#"))
    return total


def _git_dir(repository: Path) -> Path | None:
    """The git directory holding a repository's objects: `.git` (followed from a worktree's `.git` file to the
    common directory), or the repository itself when it is bare."""
    dot = repository / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        try:
            line = dot.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not line.startswith("gitdir:"):
            return None
        linked = (repository / line.removeprefix("gitdir:").strip()).resolve()
        try:
            common = (linked / "commondir").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return linked
        return (linked / common).resolve()
    return repository if (repository / "objects").is_dir() else None


@functools.lru_cache(maxsize=1)
def _ram_backed() -> bool:
    """Whether /dev/shm is a tmpfs mount this process may write to."""
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            kinds = [fields[2] for fields in (line.split() for line in mounts)
                     if len(fields) > 2 and fields[1] == RAM_BACKED]
        mounted = bool(kinds) and kinds[-1] == "tmpfs"  # the last mount at a path is the one seen there
    except OSError:
        return False
    return mounted and os.access(RAM_BACKED, os.W_OK | os.X_OK)
