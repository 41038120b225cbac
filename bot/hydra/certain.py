"""Launches Hydra certainly refuses before composing, with Hydra's own words (hydra-core 1.3):

- a config_path (the decorator's, or `--config-path`) naming a YAML file, Hydra 0.11's style
  (`hydra.core.utils.validate_config_path`);
- a primary config directory that is not there (`ConfigLoaderImpl.ensure_main_config_source_available`);
- a `--config-dir` that is not there, from where the launch runs (`hydra._internal.utils.run_and_report`).

Certain only where nothing is there at all: a path inside the repository (its links resolved) at which the
tree holds nothing. A path outside it, computed, or a package (`pkg://`, which may be installed from
elsewhere) is not judged. Hydra names the directory by its absolute path; here it is named as the
repository does. A directory the launching file names besides the launch (it may make it first: `mkdir -p
extra`), or that the launch assembles from variables (`--config-path=$BASEDIR/conf` with `BASEDIR=base_dir`,
a placeholder the user sets) is not judged either.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from bot import confined
from bot.hydra.entry import run_dir
from bot.ir import Launch

if TYPE_CHECKING:
    from bot.context import ScanContext

MAX_SCRIPT_BYTES = 4 * 1024 * 1024  # a launching file read for where it names a missing directory
PRIMARY = "Primary config directory not found."
CONFIG_PATH_FILE = ("Using config_path to specify the config name is not supported, specify the config name via "
                    "config_name. See https://hydra.cc/docs/1.2/upgrades/0.11_to_1.0/config_path_changes")


def config_path_file(config_path: str) -> str | None:
    """Hydra's error for a config_path that names a YAML file (`conf/train.yaml`), else None."""
    return CONFIG_PATH_FILE if os.path.splitext(config_path)[1] in (".yaml", ".yml") else None


def missing_primary_dir(root: Path, config_path: str, relative_to: Path) -> str | None:
    """Hydra's error for a primary config directory the repository does not have, else None (see
    made_first: whether the launching file may make it)."""
    where = _absent(root, config_path, relative_to)
    if where is None:
        return None
    return f"{PRIMARY} Check that the config directory '{where}' exists and readable"


def missing_config_dir(context: ScanContext, launch: Launch) -> str | None:
    """Hydra's error for the launch's `--config-dir` when nothing is there from where it runs, else None."""
    if launch.config_dir is None:
        return None
    here = run_dir(launch)
    if here is None or here.startswith("/"):
        return None
    where = _absent(context.root, launch.config_dir, context.root / here)
    if where is None or _named_elsewhere(context, launch, launch.config_dir, 1):
        return None
    return f"Additional config directory '{where}' not found"


def made_first(context: ScanContext, launch: Launch, failure: str | None, config_path: str | None) -> bool:
    """Whether a missing primary config directory's `failure` is not certain: the launching file names the
    directory (`config_path`: as the launch or the decorator writes it) besides the launch."""
    if failure is None or not failure.startswith(PRIMARY) or config_path is None:
        return False
    return _named_elsewhere(context, launch, config_path, 1 if launch.config_path else 0)


def _named_elsewhere(context: ScanContext, launch: Launch, written: str, in_launch: int) -> bool:
    """The launching file names the directory more often than the launch does (`in_launch` times): it may
    make it before the launch runs (`mkdir -p extra`, `cp -r ... conf`), so its absence is not certain;
    nor is it when the launch does not spell the path out."""
    if launch.source_path is None:
        return True
    text = confined.read(str(confined.real(context.root)), context.root / launch.source_path, MAX_SCRIPT_BYTES)
    if text is None:
        return True
    name = written.removeprefix("file://").removeprefix("./").rstrip("/")
    if not name:
        return True
    found = re.findall(rb"(?<![\w.-])" + re.escape(name.encode()) + rb"(?![\w.-])", text)
    # fewer than the launch's own: the launch assembles the path from variables (`$BASEDIR/conf` with
    # `BASEDIR=base_dir`), often a placeholder the user sets first
    return len(found) != in_launch


def _absent(root: Path, entry: str, relative_to: Path) -> str | None:
    """The path (as the repository names it) of a plain directory entry at which the repository holds
    nothing; None when something is there, or it is not the repository's to tell."""
    if entry.startswith("pkg://") or "$" in entry or "\0" in entry:
        return None
    path = entry.removeprefix("file://")
    if os.path.isabs(path):
        return None
    candidate = os.path.normpath(os.path.join(relative_to, path))
    top = os.path.realpath(root)
    real = os.path.realpath(candidate)
    if os.path.lexists(candidate) or os.path.exists(real):
        return None
    if os.path.commonpath([top, real]) != top or os.path.commonpath([os.path.normpath(root), candidate]) != \
            os.path.normpath(root):
        return None
    return os.path.relpath(candidate, root)
