"""How the bot creates a file: never through a symlink, never over a file it did not make.

Every file the bot writes (a fix, a baseline, the result cache, a crash log) is first created with
`O_CREAT | O_EXCL | O_NOFOLLOW` under a random name, so a name planted in advance (a symlink, a file)
is never opened: creation fails and another name is drawn. A file that replaces another is then renamed
over it inside the same directory, whole or not at all; a symlink in its place is refused, never
written through.

The directory is opened as a file descriptor and every name is looked up in it (`dir_fd=`). Below a
repository's root each directory is opened one name at a time without following a symlink, since the
repository decides what its names are; a path outside it is the user's own and is opened as given.
The temp files take the name `.bot-` and 12 hex digits (TEMP_NAME): a run killed between creating one
and renaming it leaves a name that nothing but the bot makes (bot.engine.write removes them).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from pathlib import Path

from bot.errors import UserError

DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
TEMP_PREFIX = ".bot-"
TEMP_NAME = re.compile(r"\.bot-[0-9a-f]{12}")  # what create() names a temp file, and nothing else
LEFTOVER = "a temp file of the bot's (.bot- and 12 hex digits), left by a --write that was stopped"


def is_temp_name(name: str) -> bool:
    """Whether a file name is one the bot gives its temp files (`.bot-` and 12 lower-case hex digits)."""
    return TEMP_NAME.fullmatch(name) is not None


def open_directory(parent: int, name: str, shown: str) -> int:
    """The directory `name` inside `parent`, never through a symlink; `shown` names it in the error."""
    try:
        return os.open(name, DIRECTORY_FLAGS, dir_fd=parent)
    except OSError as exc:
        try:
            is_link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        except OSError:
            is_link = False
        what = "is a symlink" if is_link or exc.errno == errno.ELOOP else f"cannot be opened ({exc.strerror})"
        raise UserError(f"{shown}/ {what}; expected a directory inside the repository") from None


def open_below(root: int, parts: tuple[str, ...], rel: str) -> int:
    """The directory `parts` below the directory `root`, each opened without following a symlink (a new fd)."""
    current = os.dup(root)
    try:
        for depth, name in enumerate(parts):
            inner = open_directory(current, name, f"{rel}: {'/'.join(parts[:depth + 1])}")
            os.close(current)
            current = inner
    except BaseException:
        os.close(current)
        raise
    return current


def create(directory: int, data: bytes, mode: int | None = None, prefix: str = TEMP_PREFIX, suffix: str = "") -> str:
    """A new file in `directory` holding `data`, under a random name never used before; its name.

    `mode`: its permission bits (None: those of a new file under the umask, 0o666 masked).
    """
    for _ in range(100):
        name = f"{prefix}{secrets.token_hex(6)}{suffix}"
        try:
            fd = os.open(name, CREATE_FLAGS, 0o600 if mode is not None else 0o666, dir_fd=directory)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
        except BaseException:
            remove(directory, name)
            raise
        return name
    raise FileExistsError(errno.EEXIST, "no free temp file name")


def remove(directory: int, name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=directory)


def new_file(directory: str, data: bytes, prefix: str, suffix: str = "") -> str:
    """A new private file (mode 0600) named `prefix`, random characters and `suffix` in `directory`; its path."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return os.path.join(directory, create(fd, data, 0o600, prefix, suffix))
    finally:
        os.close(fd)


def replace_file(path: Path, data: bytes, root: Path | None = None, mode: int | None = None) -> None:
    """Write `data` at `path` whole or not at all: a temp file renamed over it in the same directory.

    A symlink (or anything but a regular file) at `path` is refused with a UserError, and so is a
    symlinked directory on the way when `path` lies below `root`. `mode`: the file's permission bits
    (None: an existing file's, or a new file's under the umask).
    """
    directory, name = _open_parent(path, root)
    try:
        try:
            info = os.stat(name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            raise UserError(f"{path}: is a symlink; expected a regular file")
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise UserError(f"{path}: is not a regular file; expected a regular file")
        if mode is None and info is not None:
            mode = info.st_mode & 0o7777
        temp = create(directory, data, mode)
        try:
            os.rename(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            remove(directory, temp)
            raise
    finally:
        os.close(directory)


def _open_parent(path: Path, root: Path | None) -> tuple[int, str]:
    """The directory `path` is in (opened) and its name there."""
    parent, name = os.path.split(os.path.abspath(path))
    if name in ("", ".", ".."):
        raise UserError(f"{path}: expected the path of a file")
    if root is not None:
        for base in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
            if parent == base or parent.startswith(base.rstrip(os.sep) + os.sep):
                parts = tuple(p for p in os.path.relpath(parent, base).split(os.sep) if p != ".")
                top = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                try:
                    return open_below(top, parts, str(path)), name
                finally:
                    os.close(top)
    return os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), name
