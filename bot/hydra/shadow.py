"""The repository's Hydra config as a run leaves it, for composing a launch's edits with the run's config edits.

A rule that renames `trainer.epochs` edits the config that defines it and the launches that set it in
one run. Composed against the config as it is, every edited launch would fail ("Key 'max_epochs' is
not in struct"); composed against the config as the run leaves it, it composes. Each config
directory of an app that holds an edited file is copied once (its YAML files and directories; a
symlink is followed inside the repository, never out of it) with the run's edits written over it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path

from bot.hydra.app import HydraApp


class ConfigShadow:
    """Copies of the config directories holding edited files, made when an app first needs one."""

    def __init__(self, root: Path, edits: Mapping[str, bytes]) -> None:
        self.root = root.resolve()
        self.edits = dict(edits)  # repository path -> its bytes after the run's edits
        self._temp: tempfile.TemporaryDirectory[str] | None = None
        self._copies: dict[str, str] = {}  # original directory -> its copy

    def app(self, app: HydraApp) -> HydraApp:
        """The app reading the edited copies of its config directories (itself when none holds an edit)."""
        if app.config_dir is None:
            return app
        config_dir = self._directory(str(app.config_dir))
        search = tuple(self._directory(d) for d in app.search_path)
        if config_dir == str(app.config_dir) and search == app.search_path:
            return app
        return replace(app, config_dir=Path(config_dir), search_path=search)

    def originals(self, text: str) -> str:
        """Hydra's message with the copies' paths given as the repository's."""
        for original, copy in self._copies.items():
            text = text.replace(copy, original)
        return text

    def close(self) -> None:
        if self._temp is not None:
            self._temp.cleanup()
            self._temp = None
            self._copies.clear()

    def _directory(self, directory: str) -> str:
        if directory in self._copies:
            return self._copies[directory]
        try:
            relative = Path(directory).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return directory  # outside the repository: the run edits nothing there
        prefix = "" if relative == "." else relative + "/"
        edited = {path[len(prefix):]: data for path, data in self.edits.items() if path.startswith(prefix)}
        if not edited:
            return directory
        if self._temp is None:
            self._temp = tempfile.TemporaryDirectory(prefix="bot-config-")
        copy = os.path.join(self._temp.name, f"{len(self._copies)}.d")  # no copy's path begins another's
        shutil.copytree(directory, copy, ignore=partial(_not_config, str(self.root)))
        for inner, data in edited.items():
            target = os.path.join(copy, *inner.split("/"))
            if os.path.isfile(target):  # an edit of a file the copy holds (not one behind a symlink)
                with open(target, "wb") as handle:
                    handle.write(data)
        self._copies[directory] = copy
        return copy


def _not_config(root: str, directory: str, names: list[str]) -> set[str]:
    """What a copy leaves out: a symlink to outside the repository (one inside is copied as what it
    points at, as Hydra reads it), git's own directory, files Hydra does not read as configs."""
    left = set()
    inside = root.rstrip(os.sep) + os.sep
    for name in names:
        path = os.path.join(directory, name)
        outside = os.path.islink(path) and not os.path.realpath(path).startswith(inside)
        if outside or name == ".git" or (not os.path.isdir(path) and not name.endswith((".yaml", ".yml"))):
            left.add(name)
    return left
