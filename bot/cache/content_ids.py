"""Names for a file's bytes without reading them, where git already knows them.

A tracked file that `git diff-files` does not list matches its index entry, so the blob id in
the index names its bytes (after git's checkout filters; the cache also keys on the size on
disk, which catches an end-of-line conversion). Any other file is read and hashed the way git
hashes a blob, so a file that is edited and then committed keeps its id.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path


def blob_id(data: bytes) -> str:
    """Git's SHA-1 object id for a blob holding `data`."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def indexed_ids(root: Path) -> dict[str, str]:
    """Path -> blob id for every tracked file whose work-tree bytes match the index; {} outside git.

    Merge conflicts (stages 1-3), files git sees as modified, files git is told not to look at
    (assume-unchanged, skip-worktree: `git diff-files` never lists their edits) and anything git
    cannot tell are left out: their ids come from their bytes.
    """
    if not _stat_checks_trusted(root):
        return {}
    listing = _git(root, "ls-files", "-s", "-v", "-z")
    modified = _git(root, "diff-files", "--name-only", "--relative", "-z")
    if listing is None or modified is None:
        return {}
    changed = {os.fsdecode(p) for p in modified.split(b"\0") if p}
    ids: dict[str, str] = {}
    conflicted: set[str] = set()
    for record in listing.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if not tab:
            continue
        fields = meta.split()
        if len(fields) != 4:
            continue
        tag, mode, blob, stage = fields
        path = os.fsdecode(raw)
        if stage != b"0" or tag != b"H":  # H: tracked, and git compares it with the work tree
            conflicted.add(path)
        elif mode in (b"100644", b"100755"):
            ids[path] = blob.decode("ascii")
    for path in changed | conflicted:
        ids.pop(path, None)
    return ids


def _stat_checks_trusted(root: Path) -> bool:
    """Whether `git diff-files` sees every edit: not with core.checkStat=minimal, core.trustctime=false
    (a same-size edit with its old mtime put back goes unseen) or a file-system monitor."""
    settings = _git(root, "config", "-z", "--get-regexp", r"^core\.(checkstat|trustctime|fsmonitor)$") or b""
    for record in settings.split(b"\0"):
        name, _, value = record.partition(b"\n")
        value = value.strip().lower()
        if ((name == b"core.checkstat" and value == b"minimal")
                or (name == b"core.trustctime" and value in (b"false", b"no", b"off", b"0"))
                or (name == b"core.fsmonitor" and value not in (b"false", b"no", b"off", b"0", b""))):
            return False
    return True


def _git(root: Path, *args: str) -> bytes | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except OSError:
        return None
    return out.stdout if out.returncode == 0 else None


class ContentIds:
    """Content ids of repository files, from the index where it can vouch for them, else from the bytes."""

    def __init__(self, root: Path, indexed: dict[str, str]) -> None:
        self.root = str(root)
        self.indexed = indexed
        self._known: dict[str, str] = {}

    def of(self, path: str) -> str:
        """The id of `path` now; "" when it is not a regular file that can be read."""
        known = self.indexed.get(path) or self._known.get(path)
        if known is None:
            data = self.read(path)
            known = self._known[path] = "" if data is None else blob_id(data)
        return known

    def read(self, path: str) -> bytes | None:
        target = self.root + "/" + path
        try:
            if os.path.islink(target) or not os.path.isfile(target):
                return None
            with open(target, "rb") as handle:
                return handle.read()
        except OSError:
            return None
