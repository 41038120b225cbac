"""Drift: which launches a config change breaks (`compose-check --since SHA`).

The repository's tree at SHA is exported to a temporary directory and composed: each script as it
was at SHA against the config as it was (a script added since is laid over it, so its launches
meet the old config too). An override (file, key, value) that Hydra rejected there as well is
older than the change and is not reported as drift. Comparing the old script, not today's, keeps a
change that edits a config and its scripts in one commit (new keys, an entry point switched) from
hiding what it broke.

In a scan that also runs rules (`watch`, publishing: drift_options) only the files holding a launch the
change reaches are composed, on both sides (bot.hydra.inputs): the change is every path that differs
between SHA and the working tree (bot.engine.changed).
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UserError

if TYPE_CHECKING:
    from collections.abc import Callable

    from bot.compose.checker import ComposeOptions, Key
    from bot.hydra.compose import ComposeStats
    from bot.hydra.inputs import ChangedPaths
    from bot.model import Baseline, Report


def drift_scan(root: Path, since: str, label: str | None = None, seconds: float | None = None,
               baseline: Baseline | None = None, progress: Callable[[int, int], None] | None = None,
               jobs: int = 1) -> tuple[Report, ComposeStats]:
    """compose-check of the working tree, reporting only what composed with the config at `since` and fails
    now (a key the config renamed since is fixed to its new name)."""
    from bot.engine.scan import compose_scan

    known = failing_before(root.resolve(), since, seconds, jobs)
    return compose_scan(root, label=label, since=since, seconds=seconds, known=known, baseline=baseline,
                        progress=progress, jobs=jobs)


def drift_options(root: Path, since: str, seconds: float | None = None) -> ComposeOptions:
    """compose-check's options for what the config change since `since` broke (in a scan that also runs rules:
    `watch`, publishing): the keys it renamed, and the failures older than it."""
    from bot.compose.checker import ComposeOptions
    from bot.engine.changed import changed_since
    from bot.hydra.renames import config_renames

    root = root.resolve()
    changed = changed_since(root, since)
    known = failing_before(root, since, seconds, changed=changed)
    return ComposeOptions(tuple(config_renames(root, since)), frozenset(known), changed)


def failing_before(root: Path, since: str, seconds: float | None, jobs: int = 1,
                   changed: ChangedPaths | None = None) -> set[Key]:
    """The overrides that already failed with the config at `since` (the working tree's scripts); with
    `changed`, of the files holding a launch it reaches only."""
    from bot.compose.checker import ComposeOptions
    from bot.discover import shell_sources
    from bot.engine.scan import scan_all

    with tempfile.TemporaryDirectory(prefix="bot-drift-") as scratch:
        old = Path(scratch) / "tree"
        export(root, since, old)
        for source in shell_sources(root, []):
            target = old / source.path
            if target.exists() or target.is_symlink():
                continue  # the script as it was at SHA
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source.absolute, target)
        scanned = scan_all(old, [], jobs=jobs, seconds=seconds, compose=ComposeOptions(changed=changed), alone=True)
    report = scanned.report
    return {(f.path, f.key, f.value) for f in report.findings + report.silenced}


def export(root: Path, since: str, into: Path) -> None:
    """The files of commit `since` (a name git resolves, never an option) written under `into`."""
    import git

    repo = git.Repo(root)
    try:
        commit = repo.commit(since)
    except (git.BadName, ValueError):
        raise UserError(f"--since {since}: no such commit in {root}") from None
    into.mkdir(parents=True)
    archive = into.parent / "tree.tar"
    with archive.open("wb") as handle:
        repo.archive(handle, treeish=commit.hexsha, format="tar")
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter=_inside)
    archive.unlink()


def _inside(member: tarfile.TarInfo, into: str) -> tarfile.TarInfo | None:
    """tarfile's `data` filter (nothing written outside `into`, no device files), a member it refuses (a link
    to an absolute path or out of the tree) left out: the exported tree holds the commit's own files, and what
    its links lead to outside it is absent there, as in the working tree (bot.confined)."""
    try:
        return tarfile.data_filter(member, into)
    except tarfile.FilterError:
        return None
