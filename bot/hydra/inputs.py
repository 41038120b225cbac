"""Whether a change reaches what a launch's composed config is read from (`watch`: bot.engine.drift).

A launch whose script, entry file and config files a change leaves as they were composes the same before and
after it, so a check of what the change broke need not compose it on either side. Its config inputs are found
by walking the defaults lists as written, erring on the side of more: each config named, in every directory
of the search path where Hydra would look for it (found or not: one added in a directory before it would win);
every option of a group whose choice is not written out (an interpolation, a value known at run time, a
sweep); the files the launch's own group choices name. A directory's listing is an input too where Hydra
lists it (a config group a defaults list or an override names: an option added or removed there changes what
Hydra says, and a key becomes a group when a directory of its name appears), so there what counts is a file
added or removed, not one edited.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from bot import confined
from bot.hydra.app import HydraApp, config_name
from bot.hydra.config_files import load_yaml
from bot.ir import Launch

_IMPORTED = re.compile(r"^(.*) \(imported by (.*)\)$")
_UNWRITTEN = ("${", "???")  # a choice Hydra takes from elsewhere: any option of the group may be it


@dataclass(frozen=True)
class ChangedPaths:
    """The repository paths a change touched: `paths` every one it edits, adds or removes; `listed` those it
    adds or removes (a directory's listing changed)."""

    paths: frozenset[str]
    listed: frozenset[str]
    # what each app's configs reach, walked once per process: (tree, dirs, config) -> (files, group directories)
    _walks: dict[tuple[str, tuple[str, ...], str], tuple[set[str], set[str]]] = field(
        default_factory=dict, compare=False, hash=False, repr=False)
    _reals: dict[tuple[str, tuple[str, ...], str], tuple[str, ...]] = field(default_factory=dict, compare=False,
                                                                            hash=False, repr=False)
    _is_group: dict[tuple[str, tuple[str, ...], str], bool] = field(default_factory=dict, compare=False, hash=False,
                                                               repr=False)

    def reach(self, app: HydraApp, launch: Launch) -> bool:
        """Whether the change touches the app's entry file or what the launch's config is composed from."""
        if any(source in self.paths for source in _sources(app.source)):
            return True
        assert app.root is not None
        root = str(app.root)
        primary = () if app.config_dir is None else (_relative(root, str(app.config_dir)),)  # None: the empty config
        dirs = tuple(d for d in (*primary, *(_relative(root, s) for s in app.search_path)) if d is not None)
        names = {n for n in (app.config_name, *(config_name(c) for c in launch.config_names)) if n}
        groups: set[str] = set()
        for override in launch.overrides:
            group = _group(override.key)
            if group is None:
                continue
            groups.add(group + "/")
            if self._group_in(root, dirs, group):
                names.update(_choices(root, dirs, group, override.value_written if override.literal else None))
        named: list[set[str]] = []  # the config groups each walk names
        for name in sorted(names):
            found, listed = self._walk(root, dirs, name)
            if not found.isdisjoint(self.paths):
                return True
            named.append(listed)
        if not self.listed:  # no file added or removed: no listing changed
            return False
        for listed in named:
            groups |= listed
        prefixes = tuple(real for d in dirs for g in groups for real in self._real(root, _join(d, g)))
        return any(p.startswith(prefixes) for p in self.listed)

    def _real(self, root: str, group: str) -> tuple[str, ...]:
        """A group directory as the change names the files in it: as written, and where its links lead."""
        key = (root, (), group)
        if key not in self._reals:
            rel = confined.relative(root, group.rstrip("/"))
            self._reals[key] = (group,) if rel is None or rel + "/" == group else (group, rel + "/")
        return self._reals[key]

    def _group_in(self, root: str, dirs: tuple[str, ...], group: str) -> bool:
        """Whether a directory of the search path holds config group `group` (asked once per app and group)."""
        key = (root, dirs, group)
        if key not in self._is_group:
            self._is_group[key] = any(confined.is_dir(root, _join(d, group)) for d in dirs)
        return self._is_group[key]

    def _walk(self, root: str, dirs: tuple[str, ...], start: str) -> tuple[set[str], set[str]]:
        """The candidate files of every config reached from `start`, and the config groups named on the way."""
        key = (root, dirs, start)
        if key not in self._walks:
            files: set[str] = set()
            groups: set[str] = set()
            seen = {start}
            pending = [start]
            while pending:
                name = pending.pop()
                candidates = [_join(d, name + suffix) for d in dirs for suffix in (".yaml", ".yml")]
                files.update(candidates)
                found = next((c for c in candidates if confined.is_file(root, c)), None)
                if found is not None:  # a link to a config elsewhere in the tree: the change edits that file
                    files.add(confined.relative(root, found) or found)
                data = load_yaml(root, found) if found is not None else None
                defaults = data.get("defaults") if isinstance(data, dict) else None
                for entry in defaults if isinstance(defaults, list) else []:
                    named, group = _entry(root, dirs, posixpath.dirname(name), entry)
                    if group is not None:
                        groups.add(group + "/")
                    pending.extend(n for n in named if n not in seen)
                    seen.update(named)
            self._walks[key] = (files, groups)
        return self._walks[key]


def _sources(source: str) -> tuple[str, ...]:
    """The Python files an app's `source` names: its file, and the entry file that imports it."""
    imported = _IMPORTED.match(source)
    return (imported.group(1), imported.group(2)) if imported else (source,)


def _relative(root: str, directory: str) -> str | None:
    """A config directory as the repository names it ("" for its top); None outside it."""
    rel = os.path.relpath(directory, root).replace(os.sep, "/")
    if rel == ".":
        return ""
    return None if rel.startswith("../") or rel == ".." else rel


def _join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def _group(key: str) -> str | None:
    """The directory a key would be a config group in (`model.encoder` -> model/encoder)."""
    name = key.split("@")[0].lstrip("+~").replace(".", "/")
    return _name("", name)


def _name(group: str, written: str) -> str | None:
    """A config named in a defaults list of a config of `group`: relative to that group unless it starts with `/`."""
    full = posixpath.normpath(written[1:] if written.startswith("/") else posixpath.join(group, written))
    return None if full in (".", "") or full.startswith(("..", "/")) else full


def _choices(root: str, dirs: tuple[str, ...], group: str, value: str | None) -> list[str]:
    """The configs of `group` a choice may name: the one written out, else every option of the group."""
    if value is not None and not any(mark in value for mark in _UNWRITTEN) and "," not in value \
            and "(" not in value and not value.startswith(("[", "'", '"')):
        found = _name(group, value.removesuffix(".yaml").removesuffix(".yml"))
        return [found] if found else []
    options = {name.rsplit(".", 1)[0] for d in dirs for name, is_dir in confined.entries(root, _join(d, group))
               if not is_dir and name.endswith((".yaml", ".yml"))}
    return [f"{group}/{option}" for option in sorted(options)]


def _entry(root: str, dirs: tuple[str, ...], group: str, entry: Any) -> tuple[list[str], str | None]:
    """The configs a defaults entry may include, named from the config root, and the config group it names."""
    if isinstance(entry, str):
        words = entry.split()
        if not words or words[-1] == "_self_":
            return [], None
        if any(mark in words[-1] for mark in _UNWRITTEN):  # a config name Hydra interpolates: any of the group's
            return _choices(root, dirs, group, None), group or None
        found = _name(group, words[-1].removesuffix(".yaml"))
        return ([found] if found else []), None
    if not isinstance(entry, dict) or len(entry) != 1:
        return [], None
    ((key, value),) = entry.items()
    words = str(key).split()
    target = _name(group, words[-1].split("@")[0]) if words else None
    if target is None:
        return [], None
    named: list[str] = []
    for option in value if isinstance(value, list) else [value]:
        if option is None:
            continue
        named.extend(_choices(root, dirs, target, str(option)))
    return named, target
