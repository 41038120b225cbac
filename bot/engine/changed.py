"""What differs between a commit and the working tree: the paths a config change touched, for a check of what
it broke that composes only the launches it reaches (bot.engine.drift, bot.hydra.inputs).

Every path git sees differ counts: edited, added, removed since the commit, and the files git does not track
or ignores (the commit's exported tree lacks them). None when the change touches what finding any launch's
Hydra app reads, not one launch's files: packaging metadata (console scripts), a Python file added or removed
(where an entry point is found), a Python file that registers configs in Hydra's ConfigStore: then every
launch is composed, as without the narrowing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bot.errors import UserError
from bot.hydra.inputs import ChangedPaths
from bot.lang.consoles import is_packaging

_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", "site-packages", ".tox"}  # as bot.hydra.stores
_MAX_UNTRACKED = 20_000  # files in directories git does not track: past this, every launch is composed
_STORES = (b"ConfigStore", b"config_store")  # what bot.hydra.stores reads a file for


@dataclass(frozen=True)
class Differences:
    """What git sees differ between a commit (`commit`, its full name) and the working tree: `edited` the files
    it edits, `listed` those it adds or removes, untracked and ignored files included."""

    commit: str
    edited: frozenset[str]
    listed: frozenset[str]

    @property
    def paths(self) -> frozenset[str]:
        return self.edited | self.listed


def changed_since(root: Path, since: str) -> ChangedPaths | None:
    """The paths that differ between commit `since` (a name git resolves, never an option) and the working tree
    of `root`; None when the change may reach every launch (see the module's docstring)."""
    return reach_of(root, differences(root, since))


def differences(root: Path, since: str) -> Differences | None:
    """What differs between commit `since` and the working tree of `root`; None when there are more untracked
    files than are listed (_MAX_UNTRACKED)."""
    import git

    repo = git.Repo(root)
    try:
        commit = repo.commit(since).hexsha
    except (git.BadName, ValueError):
        raise UserError(f"--since {since}: no such commit in {root}") from None
    edited: set[str] = set()
    listed: set[str] = set()
    fields = repo.git.diff("--no-renames", "--name-status", "-z", commit, "--").split("\0")
    for status, path in zip(fields[0::2], fields[1::2]):
        (edited if status[:1] in ("M", "T") else listed).add(path)
    status = repo.git.status("--porcelain", "-z", "--untracked-files=all", "--ignored=matching").split("\0")
    for entry in status:
        if entry[:3] in ("?? ", "!! "):
            found = _files(str(root), entry[3:])
            if found is None:
                return None
            listed.update(found)
    return Differences(commit, frozenset(edited), frozenset(listed))


def reach_of(root: Path, differ: Differences | None) -> ChangedPaths | None:
    """The changed paths for narrowing a compose check to the launches they reach; None when they may reach
    every launch (see the module's docstring), or when what differs is not known."""
    import git

    if differ is None:
        return None
    repo = git.Repo(root)
    if any(_reaches_every_launch(repo, differ.commit, root, path, path in differ.listed) for path in differ.paths):
        return None
    return ChangedPaths(differ.paths, differ.listed)


def _files(root: str, entry: str) -> list[str] | None:
    """The files of an untracked or ignored entry (git names a whole directory once); None when too many."""
    if not entry.endswith("/"):
        return [entry]
    if entry.rstrip("/").rpartition("/")[2] in _SKIP_DIRS:
        return []
    found: list[str] = []
    for directory, dirs, files in os.walk(os.path.join(root, entry)):  # symlinked directories are not followed
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        found += [os.path.relpath(os.path.join(directory, f), root).replace(os.sep, "/") for f in files]
        if len(found) > _MAX_UNTRACKED:
            return None
    return found


def _reaches_every_launch(repo: object, commit: str, root: Path, path: str, added_or_removed: bool) -> bool:
    """Whether a changed path is one that finding the apps of launches reads (see the module's docstring)."""
    import git

    if is_packaging(path):
        return True
    if not path.endswith(".py"):
        return False
    if added_or_removed:
        return True
    assert isinstance(repo, git.Repo)
    try:
        after = (root / path).read_bytes()
    except OSError:
        return True
    if any(mark in after for mark in _STORES):
        return True
    try:  # read by git's running object reader, not one more git process for each file
        before = repo.commit(commit).tree[path].data_stream.read()
    except KeyError:
        return True
    return any(mark in before for mark in _STORES)
