"""A bound on what Hydra is asked to compose: how deep a config's defaults lists nest, and how many
configs they expand to.

Hydra expands defaults lists into a tree, recursively and with no guard: a cycle (`a` includes `b`,
which includes `a`) recurses until Python's stack runs out, so does a chain 10,000 configs deep, and
a list naming two configs that each name the same two of the next level doubles at every level (a
tree of 2^30 nodes to build). Before Hydra is asked, the defaults are walked here as written: each
plain entry and each group's chosen option, looked up in the app's config directories as Hydra
does; `override` entries, interpolated options and names no directory holds are not followed, and
Hydra still judges what the walk lets through. A config whose tree cycles, nests more than
MAX_DEPTH levels or holds more than MAX_CONFIGS configs is not composed: it is a broken config,
reported once, naming the file. The walk keeps its own stack and visits each config once.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator
from typing import Any

from bot import confined
from bot.hydra.config_files import load_yaml
from bot.hydra.source import ConfigBroken

MAX_DEPTH = 64  # levels of nested defaults lists (real configs nest a handful)
MAX_CONFIGS = 5000  # configs in one composed tree, a config counted each time it is included


class DefaultsWalk:
    """The defaults graph of one app's config directories, each config's tree measured once."""

    def __init__(self, root: str, dirs: tuple[str, ...]) -> None:
        self.root = root
        self.dirs = dirs  # the config directory, then the search path, as Hydra looks in them
        self._kids: dict[str, list[str]] = {}
        self._measured: dict[str, tuple[int, int]] = {}  # config -> (configs in its tree, its depth)

    def check(self, names: Iterable[str]) -> None:
        """Raise ConfigBroken when the tree of one of these configs (`train`, `model/small`) is beyond the bound."""
        for name in names:
            if name not in self._measured:
                self._measure(name)

    def _measure(self, start: str) -> None:
        path = [start]
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(self.kids(start)))]
        while stack:
            node, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                stack.pop()
                path.pop()
                kids = self.kids(node)
                size = 1 + sum(self._measured[k][0] for k in kids)
                depth = 1 + max((self._measured[k][1] for k in kids), default=0)
                self._measured[node] = (min(size, MAX_CONFIGS + 1), depth)
                if size > MAX_CONFIGS:
                    alone = f"; {node}'s alone do" if node != start else ""
                    raise ConfigBroken(self.file(start) or start, f"its defaults lists expand to more than "
                                       f"{MAX_CONFIGS} configs, one counted each time it is included"
                                       f"{alone} (the bot's bound): not composed")
                if depth > MAX_DEPTH:
                    raise ConfigBroken(self.file(node) or node, f"its defaults lists nest more than {MAX_DEPTH} "
                                       "levels deep (the bot's bound): not composed")
                continue
            if child in path:
                cycle = " -> ".join([*path[path.index(child):], child])
                raise ConfigBroken(self.file(node) or node, f"its defaults list includes {child}, which "
                                   f"includes it again ({cycle}): Hydra cannot compose a cycle")
            if child in self._measured:
                continue
            if len(path) >= MAX_DEPTH:
                chain = " -> ".join([*path[:2], "...", path[-1], child])
                raise ConfigBroken(self.file(start) or start, f"its defaults lists nest more than {MAX_DEPTH} "
                                   f"levels deep ({chain}; the bot's bound): not composed")
            path.append(child)
            stack.append((child, iter(self.kids(child))))

    def file(self, name: str) -> str | None:
        """The config's file: in the first directory that holds it."""
        for directory in self.dirs:
            for suffix in (".yaml", ".yml"):
                candidate = os.path.join(directory, *name.split("/")) + suffix
                if confined.is_file(self.root, candidate):
                    return candidate
        return None

    def kids(self, name: str) -> list[str]:
        """The configs the config's defaults list includes, as written."""
        if name not in self._kids:
            path = self.file(name)
            data = load_yaml(self.root, path) if path is not None else None
            defaults = data.get("defaults") if isinstance(data, dict) else None
            group = posixpath.dirname(name)
            self._kids[name] = [k for entry in (defaults if isinstance(defaults, list) else [])
                                for k in _included(entry, group) if self.file(k) is not None]
        return self._kids[name]


def _included(entry: Any, group: str) -> list[str]:
    """The configs a defaults entry includes, named from the config root."""
    if isinstance(entry, str):
        words = entry.split()
        if not words or words[-1] == "_self_" or "override" in words[:-1]:
            return []
        return [n for n in [_name(group, words[-1])] if n]
    if not isinstance(entry, dict) or len(entry) != 1:
        return []
    ((key, value),) = entry.items()
    words = str(key).split()
    if not words or "override" in words[:-1]:
        return []
    target = words[-1].split("@")[0]
    options = value if isinstance(value, list) else [value]
    return [n for option in options if isinstance(option, str) and "${" not in option and option != "???"
            for n in [_name(group, f"{target}/{option.removesuffix('.yaml')}")] if n]


def _name(group: str, written: str) -> str | None:
    """A config named in a defaults list of a config of `group`: relative to that group unless it starts with `/`."""
    full = posixpath.normpath(written[1:] if written.startswith("/") else posixpath.join(group, written))
    if full in (".", "") or full.startswith(("..", "/")):
        return None  # above the config root: Hydra's source finds nothing there, or the tree's rule refuses it
    return full


def launch_choices(groups: Iterable[str]) -> list[str]:
    """The group options a launch's config-group overrides choose (`model=small` -> `model/small`)."""
    found = []
    for text in groups:
        key, sep, value = text.lstrip("+~").partition("=")
        group = key.split("@")[0].replace(".", "/")
        if sep and value and "${" not in value and not value.startswith(("[", "'", '"')) and "," not in value:
            name = _name("", f"{group}/{value.removesuffix('.yaml')}")
            if name:
                found.append(name)
    return found
