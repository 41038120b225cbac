"""Where a Hydra app's config is looked for: its config directory and the search path (Hydra's
`hydra.searchpath`, the launch's `--config-dir`), each a directory of the repository or not followed."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from bot import confined
from bot.hydra.config_files import load_yaml
from bot.hydra.entry import inside, run_dir, source_roots
from bot.ir import Launch

if TYPE_CHECKING:
    from bot.context import ScanContext

_PWD = re.compile(r"\$\{oc\.env:\s*PWD\s*(?:,[^}]*)?\}")  # the directory the launch runs in


def search_dir(context: ScanContext, entry: str, relative_to: Path) -> Path | None:
    """A config directory named by a Hydra search path entry or config path, inside the repository (its links
    resolved: bot.confined).

    `pkg://a.b` is the package directory a/b of the repository; `file://d` and a plain `d` are
    `d` relative to `relative_to` unless absolute. None when it is not a directory of the repository.
    """
    root = context.root
    top = confined.real(root)
    if entry.startswith("pkg://"):
        parts = [p for p in entry.removeprefix("pkg://").replace("/", ".").split(".") if p]
        for source_root in source_roots(context):
            candidate = root.joinpath(source_root, *parts) if source_root else root.joinpath(*parts)
            if confined.is_dir(top, candidate):
                return candidate.resolve()
        return None
    path = entry.removeprefix("file://")
    candidate = Path(path) if os.path.isabs(path) else relative_to / path
    return candidate.resolve() if confined.is_dir(top, candidate) else None


def not_there(root: Path, entry: str, relative_to: Path) -> str:
    """How a config directory that search_dir did not find is not the repository's."""
    path = entry.removeprefix("file://")
    candidate = Path(path) if os.path.isabs(path) else relative_to / path
    why = confined.why_absent(confined.real(root), candidate) if not entry.startswith("pkg://") else None
    return f"is {why}: not followed" if why else "is not in the repository"


def app_search_path(context: ScanContext, launch: Launch, directory: Path, name: str | None) -> tuple[str, ...] | str:
    """The app's extra config directories, in Hydra's order: the launch's `hydra.searchpath`, else its primary
    config's, then `--config-dir`; or how one of them is not the repository's."""
    root = context.root
    entries = launch_search_path(launch)
    if entries is None:
        entries = primary_search_path(root, directory, name)
    if launch.config_dir is not None:
        entries = [*entries, launch.config_dir]
    dirs: list[str] = []
    here = run_dir(launch)
    for entry in entries:
        at_run_dir = _PWD.sub(lambda _: str(root / here), entry) if here is not None and not here.startswith("/") \
            else entry
        found_dir = search_dir(context, at_run_dir, root)
        if found_dir is None and at_run_dir != entry and "${" not in at_run_dir and inside(root, Path(
                at_run_dir.removeprefix("file://"))):
            continue  # `file://${oc.env:PWD}/configs` where the launch runs holds none: Hydra only warns
        if found_dir is None:
            return f"config search path {entry} {not_there(root, at_run_dir, root)}"
        dirs.append(str(found_dir))
    return tuple(dirs)


def launch_search_path(launch: Launch) -> list[str] | None:
    """The entries of a `hydra.searchpath=[...]` override of the launch, if it has a static one."""
    from bot.hydra.grammar import HydraSyntaxError, parse_override

    for override in launch.overrides:
        if override.key == "hydra.searchpath" and override.value_written is not None:
            if not override.literal:
                return []
            try:
                value = parse_override(override.written).value
            except HydraSyntaxError:
                return []
            return [str(v) for v in value] if isinstance(value, list) else []
    return None


def primary_search_path(root: Path, config_dir: Path, name: str | None) -> list[str]:
    """`hydra.searchpath` of the primary config file, as written."""
    if name is None:
        return []
    data = load_yaml(confined.real(root), config_dir / f"{name}.yaml")
    hydra = data.get("hydra") if isinstance(data, dict) else None
    entries = hydra.get("searchpath") if isinstance(hydra, dict) else None
    return [str(e) for e in entries] if isinstance(entries, list) else []
