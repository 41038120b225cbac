"""Writing verified changes into the working tree: never outside it, never through a symlink."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bot.errors import UserError
from bot.model import FileError, Report, Status


def write_changes(root: Path, report: Report) -> None:
    """Write every verified change, refusing any path that leaves the repository.

    A file that cannot be written (changed on disk since it was read, a symlink, unwritable) is
    left as it is and becomes an error entry; its findings stay fixable, the other files are written.
    """
    root_real = os.path.realpath(root)
    written: set[str] = set()
    for change in report.changes:
        try:
            target = safe_target(root_real, change.path)
            if Path(target).read_bytes() != change.before:
                raise UserError(f"{change.path}: changed on disk during the run; expected the bytes that were "
                                "scanned")
            atomic_write(target, change.after)
        except (UserError, OSError) as exc:
            report.errors.append(FileError(change.path, f"not written: {exc}", "writing",
                                           rules=tuple(sorted({f.rule for f in report.findings
                                                               if f.path == change.path}))))
            continue
        written.add(change.path)
    for finding in report.findings:
        if finding.status is Status.FIXABLE and all(e.path in written for e in finding.edits):
            finding.status = Status.FIXED
    report.written = True


def safe_target(root_real: str, rel: str) -> str:
    candidate = os.path.join(root_real, *rel.split("/"))
    if os.path.islink(candidate):
        raise UserError(f"{rel}: is a symlink; expected a regular file inside the repository")
    parent = os.path.realpath(os.path.dirname(candidate))
    if not (parent == root_real or parent.startswith(root_real.rstrip(os.sep) + os.sep)):
        raise UserError(f"{rel}: resolves outside the repository; expected a path inside {root_real}")
    return os.path.join(parent, os.path.basename(candidate))


def atomic_write(target: str, data: bytes) -> None:
    mode = os.stat(target).st_mode & 0o7777
    directory = os.path.dirname(target)
    fd, temp = tempfile.mkstemp(prefix=".bot-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise

