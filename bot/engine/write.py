"""Writing verified changes into the working tree: never outside it, never through a symlink.

Every file is staged first: its new bytes go to a temp file in the file's own directory, opened from
the repository root one name at a time without following a symlink (bot.safe_write: `dir_fd=`,
`O_NOFOLLOW`, the temp file created exclusively under a random name). Then,
file by file, the path from the root must still lead to that directory and the file must still hold
the bytes that were scanned, and the temp file is renamed over it, inside the directory that was
checked. The first file changed on disk (or whose directory changed) stops the write: nothing after
it is renamed, every temp file left is removed, and the error entries name the files written and the
files not written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from bot.errors import UserError
from bot.model import WRITING, FileChange, FileError, Report, SkipKind, Skipped, Status
from bot.safe_write import LEFTOVER, create, is_temp_name, open_directory, remove

SHOWN = 20  # written files named in one error line; the rest are counted (their findings read "fixed")


class ChangedOnDisk(Exception):
    """The working tree changed under the write: the write stops here."""


@dataclass
class Staged:
    change: FileChange
    parts: tuple[str, ...]  # the directories from the root down to the file's
    directory: int  # that directory, opened when the file was staged (shared by the files in it)
    name: str
    temp: str | None  # the staged new bytes, until renamed or removed


def write_changes(root: Path, report: Report) -> list[str]:
    """Write every verified change; return the paths written, in order.

    A file that cannot be staged (a symlink, a directory on its way that is a symlink, unwritable) is
    left as it is and becomes an error entry, and the others are written. A file changed on disk since
    it was scanned stops the write: the files before it are written, it and the ones after it are not,
    and each of those is an error entry saying so. Findings whose files were all written read "fixed".
    """
    failures: dict[str, str] = {}
    written: list[str] = []
    directories: dict[tuple[str, ...], int] = {}
    staged: list[Staged] = []
    root_fd = os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _remove_leftovers(root_fd, directories, report)
        for change in report.changes:
            try:
                staged.append(_stage(root_fd, directories, change))
            except (UserError, OSError) as exc:
                failures[change.path] = f"not written: {_message(change.path, exc)}"
        for index, item in enumerate(staged):
            try:
                _commit(root_fd, item)
            except ChangedOnDisk as exc:
                failures[item.change.path] = f"not written: {exc}; the write stopped here ({_named(written)})"
                for later in staged[index + 1:]:
                    failures[later.change.path] = (f"not written: the write stopped at {item.change.path}, "
                                                   "which changed on disk during the run")
                break
            except OSError as exc:
                failures[item.change.path] = f"not written: {_message(item.change.path, exc)}"
                continue
            written.append(item.change.path)
    finally:
        _clean_up(staged, directories, root_fd)
    _record(report, failures, written)
    return written


def write_summary(report: Report) -> str | None:
    """One line for a write that did not write every change: the files written and the files not."""
    missed = report.unwritten()
    if not report.written or not missed:
        return None
    left = set(missed)
    written = [c.path for c in report.changes if c.path not in left]
    return (f"--write wrote {len(written)} of {len(report.changes)} changed files ({_named(written)}); "
            f"not written: {', '.join(missed)}")


def _named(paths: list[str]) -> str:
    if not paths:
        return "written: none"
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return f"written: {', '.join(paths[:SHOWN])}{more}"


def _message(path: str, exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return f"{path}: {exc.strerror or exc}; expected a file the bot can write"
    return str(exc)


def _record(report: Report, failures: dict[str, str], written: list[str]) -> None:
    for change in report.changes:
        reason = failures.get(change.path)
        if reason is not None:
            rules = tuple(sorted({f.rule for f in report.findings if f.path == change.path}))
            report.errors.append(FileError(change.path, reason, WRITING, rules=rules))
    done = set(written)
    for finding in report.findings:
        if finding.status is Status.FIXABLE and all(e.path in done for e in finding.edits):
            finding.status = Status.FIXED
    report.written = True


def _remove_leftovers(root_fd: int, opened: dict[tuple[str, ...], int], report: Report) -> None:
    """Remove the temp files an earlier --write left when it was stopped (discovery lists them, untracked).

    Only a regular file with the exact name the bot gives its temp files (bot.safe_write.TEMP_NAME), reached
    without following a symlink, is removed (a symlink in its place is left alone); each entry says what was done.
    """
    for index, item in enumerate(report.skipped):
        if item.kind is not SkipKind.LEFTOVER:
            continue
        try:
            parts, name = _split(item.path)
            if not is_temp_name(name):
                continue
            directory = _directory(root_fd, opened, item.path, parts)
            if not stat.S_ISREG(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode):
                continue
            os.unlink(name, dir_fd=directory)
        except FileNotFoundError:
            continue
        except (UserError, OSError) as exc:
            report.skipped[index] = Skipped(item.path, f"{LEFTOVER}; could not be removed: {_message(item.path, exc)}",
                                            SkipKind.LEFTOVER)
            continue
        report.skipped[index] = Skipped(item.path, f"{LEFTOVER}; removed by this --write", SkipKind.LEFTOVER)


def _split(rel: str) -> tuple[tuple[str, ...], str]:
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UserError(f"{rel}: not a plain relative path; expected a file inside the repository")
    if any(part.lower() == ".git" for part in parts):
        raise UserError(f"{rel}: inside a .git directory; expected a file of the working tree")
    return tuple(parts[:-1]), parts[-1]


def _open_directory(parent: int, rel: str, parts: tuple[str, ...], depth: int) -> int:
    """parts[depth] opened inside `parent`, never through a symlink."""
    return open_directory(parent, parts[depth], f"{rel}: {'/'.join(parts[:depth + 1])}")


def _directory(root_fd: int, opened: dict[tuple[str, ...], int], rel: str, parts: tuple[str, ...]) -> int:
    """The directory `parts` below the root, opened once per write and kept in `opened`."""
    if not parts:
        return root_fd
    known = opened.get(parts)
    if known is None:
        parent = _directory(root_fd, opened, rel, parts[:-1])
        known = opened[parts] = _open_directory(parent, rel, parts, len(parts) - 1)
    return known


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _same_directory(root_fd: int, item: Staged) -> bool:
    """Whether the path from the root still leads to the directory the file was staged in."""
    fds: list[int] = []
    try:
        current = root_fd
        for depth in range(len(item.parts)):
            current = _open_directory(current, item.change.path, item.parts, depth)
            fds.append(current)
        return _identity(current) == _identity(item.directory)
    except UserError:
        return False
    finally:
        for fd in fds:
            os.close(fd)


def _stage(root_fd: int, opened: dict[tuple[str, ...], int], change: FileChange) -> Staged:
    parts, name = _split(change.path)
    directory = _directory(root_fd, opened, change.path, parts)
    info = os.stat(name, dir_fd=directory, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        raise UserError(f"{change.path}: is a symlink; expected a regular file inside the repository")
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{change.path}: is not a regular file; expected a regular file inside the repository")
    temp = create(directory, change.after, info.st_mode & 0o7777)
    return Staged(change, parts, directory, name, temp)


def _current_bytes(item: Staged) -> bytes:
    fd = os.open(item.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=item.directory)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _commit(root_fd: int, item: Staged) -> None:
    """Rename the staged bytes over the file, if it and its directory are as they were."""
    rel = item.change.path
    if not _same_directory(root_fd, item):
        raise ChangedOnDisk(f"{rel}: its directory was moved or replaced during the run; expected the "
                            "directory inside the repository that was checked")
    try:
        current = _current_bytes(item)
    except OSError as exc:
        what = "replaced by a symlink" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise ChangedOnDisk(f"{rel}: changed on disk during the run ({what}); expected the bytes that were "
                            "scanned") from None
    if current != item.change.before:
        raise ChangedOnDisk(f"{rel}: changed on disk during the run; expected the bytes that were scanned")
    assert item.temp is not None
    os.rename(item.temp, item.name, src_dir_fd=item.directory, dst_dir_fd=item.directory)
    item.temp = None


def _clean_up(staged: list[Staged], opened: dict[tuple[str, ...], int], root_fd: int) -> None:
    """Remove every temp file not renamed (in the directory it was made in) and close the directories."""
    try:
        for item in staged:
            if item.temp is not None:
                with contextlib.suppress(OSError):  # one that cannot be removed does not keep the others
                    remove(item.directory, item.temp)
                item.temp = None
    finally:
        for fd in opened.values():
            os.close(fd)
        os.close(root_fd)

