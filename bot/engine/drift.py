"""Drift: which launches a config change breaks (`compose-check --since SHA`).

The repository's tree at SHA is exported to a temporary directory and composed: each script as it
was at SHA against the config as it was (a script added since is laid over it, so its launches
meet the old config too). An override (file, key, value) that Hydra rejected there as well is
older than the change and is not reported as drift. Comparing the old script, not today's, keeps a
change that edits a config and its scripts in one commit (new keys, an entry point switched) from
hiding what it broke.

In a scan that also runs rules (`watch`, publishing: drift_options) only the files holding a launch the
change reaches are composed (bot.hydra.inputs; the change: every path that differs between SHA and the
working tree, bot.engine.changed), and the tree at SHA only for the files that fail now, when the scan
asks (bot.engine.before): the others compose the same on both sides.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bot import scratch

if TYPE_CHECKING:
    from collections.abc import Callable

    from bot.compose.checker import ComposeOptions, Key
    from bot.hydra.compose import ComposeStats
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
    from bot.engine.before import FailingBefore
    from bot.engine.changed import differences, reach_of
    from bot.hydra.renames import config_renames

    root = root.resolve()
    differ = differences(root, since)
    return ComposeOptions(tuple(config_renames(root, since)), FailingBefore(root, since, seconds, differ),
                          reach_of(root, differ))


def failing_before(root: Path, since: str, seconds: float | None, jobs: int = 1) -> set[Key]:
    """The overrides that already failed with the config at `since` (the working tree's scripts)."""
    from bot.engine.before import export_before
    from bot.engine.scan import compose_scan

    with scratch.temporary_directory("bot-drift-", scratch.checkout_size(root)) as own:
        old = Path(own) / "tree"
        export_before(root, since, old)
        report, _ = compose_scan(old, seconds=seconds, jobs=jobs)
    return {(f.path, f.key, f.value) for f in report.findings + report.silenced}
