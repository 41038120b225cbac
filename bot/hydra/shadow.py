"""The repository's Hydra config as a run leaves it, for composing a launch's edits with the run's config edits.

A rule that renames `trainer.epochs` edits the config that defines it and the launches that set it in
one run. Composed against the config as it is, every edited launch would fail ("Key 'max_epochs' is
not in struct"); composed against the config as the run leaves it, it composes. The config
directories of an app one of whose files the run edits are copied once, into a temporary tree that
holds only the repository's own config files (bot.confined: a link inside the repository is copied
as the file it points at, with that file's edits; a link out of it, or a FIFO, is left out), with the
run's edits written over them. Hydra reads the copies as it reads the repository (bot.hydra.source).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from bot import confined, scratch
from bot.hydra.app import HydraApp

SUFFIXES = (".yaml", ".yml")


class ConfigShadow:
    """Copies of the config directories of the apps whose configs the run edits, made when first needed."""

    def __init__(self, root: Path, edits: Mapping[str, bytes]) -> None:
        self.root = confined.real(root)
        self.edits = dict(edits)  # repository path -> its bytes after the run's edits
        self._temp: tempfile.TemporaryDirectory[str] | None = None
        self._copies: dict[str, str] = {}  # original directory -> its copy
        self._files: dict[str, list[tuple[str, str]]] = {}  # directory -> (name below it, repository path)
        self._edited: dict[tuple[str, ...], bool] = {}  # an app's directories -> whether the run edits one's files

    def app(self, app: HydraApp) -> HydraApp:
        """The app reading edited copies of its config directories (itself when the run edits none of its files)."""
        if app.config_dir is None:
            return app
        dirs = (str(app.config_dir), *app.search_path)
        if dirs not in self._edited:
            self._edited[dirs] = any(path in self.edits for d in dirs for _, path in self._listing(d))
        if not self._edited[dirs]:
            return app
        copies = [self._directory(d) for d in dirs]
        assert self._temp is not None
        return replace(app, config_dir=Path(copies[0]), search_path=tuple(copies[1:]),
                       root=Path(confined.real(self._temp.name)))

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

    def _listing(self, directory: str) -> list[tuple[str, str]]:
        """The config files below a directory of the repository: (name below it, the file's repository path)."""
        if directory not in self._files:
            found = []
            for name in confined.files_below(self.root, directory, SUFFIXES):
                path = confined.relative(self.root, os.path.join(directory, *name.split("/")))
                if path is not None:
                    found.append((name, path.replace(os.sep, "/")))
            self._files[directory] = found
        return self._files[directory]

    def _directory(self, directory: str) -> str:
        if directory in self._copies:
            return self._copies[directory]
        if self._temp is None:
            self._temp = scratch.temporary_directory("bot-config-")
        copy = os.path.join(confined.real(self._temp.name), f"{len(self._copies)}.d")  # none begins another's
        os.makedirs(copy)
        for name, path in self._listing(directory):
            data = self.edits.get(path)
            if data is None:
                data = confined.read(self.root, os.path.join(directory, *name.split("/")))
            if data is None:
                continue  # gone since it was listed
            target = os.path.join(copy, *name.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
        self._copies[directory] = copy
        return copy
