"""Drift: which launches a config change breaks (`compose-check --since SHA`).

The repository's tree at SHA is exported to a temporary directory with the working tree's shell
files laid over it, and composed: the same launches against the config as it was. A failure that
Hydra raised there too is older than the change and is not reported as drift.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
from pathlib import Path

from bot.errors import UserError

Key = tuple[str, int, str]  # path, line, key of a failing override


def failing_before(root: Path, since: str, seconds: float | None) -> set[Key]:
    """The overrides that already failed with the config at `since` (the working tree's scripts)."""
    from bot.discover import shell_sources
    from bot.engine.compose_check import compose_scan

    with tempfile.TemporaryDirectory(prefix="bot-drift-") as scratch:
        old = Path(scratch) / "tree"
        export(root, since, old)
        for source in shell_sources(root, []):
            target = old / source.path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source.absolute, target)
        report, _ = compose_scan(old, seconds=seconds)
    return {(f.path, f.line, f.key) for f in report.findings}


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
        tar.extractall(into, filter="data")  # nothing outside `into`, no absolute links
    archive.unlink()
