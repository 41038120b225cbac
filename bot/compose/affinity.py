"""Which base a file's launches compose against, guessed from its text, so that a scan's workers can share the
files out by base: the files that guess alike go to one worker, which composes their base (and reads their config
directory) once, where each worker would otherwise compose it again for files of its own.

Only a guess, and only for scheduling: which worker composes a file never changes what composing it gives, so a
wrong guess costs a base composed twice, never another report. The guess reads the text alone (a few
milliseconds for a repository's shell-family files, where reading their launches costs seconds): the Python files
of the repository that the text names as entries (`-m pkg.mod`, `path/to/main.py`) and that mention Hydra, each
with the `--config-name` written after it, if any; a file's key is the pair it names most (the first, on a tie).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bot import confined

if TYPE_CHECKING:
    from bot.discover import SourceFile

Key = tuple[str, str | None]  # the entry file (relative to the repository), the config name written after it

_MODULE = re.compile(rb"-m[ \t]+([A-Za-z_][\w.]*)")
_SCRIPT = re.compile(rb"yp\.([\w./-]{1,300})")  # `path.py`, backwards (a regex that starts with a literal is fast)
_WORD = re.compile(rb"\w")
_NAME = re.compile(rb"--config-name[= ]+['\"]?([\w./-]+?)(?:\.yaml)?(?=['\"\s\\;]|$)")
_REACH = 3000  # bytes after an entry where its `--config-name` is looked for


class Guesses:
    """The keys of a repository's files (`key`), each named entry looked at once."""

    def __init__(self, root: str) -> None:
        self.root = confined.real(root)
        self._apps: dict[str, bool] = {}  # a candidate entry (relative path): whether it is a file mentioning Hydra

    def key(self, path: str, data: bytes) -> Key | None:
        """The (entry, config name) the text names most, or None where it names no entry that may be an app."""
        here = os.path.dirname(path)
        named = sorted([(m.start(), m.end(), m.group(1).decode().replace(".", "/") + ".py", True)
                        for m in _MODULE.finditer(data)]
                       + [(start, end, text, False) for start, end, text in _scripts(data)])
        counts: dict[Key, int] = {}
        for index, (_, end, text, module) in enumerate(named):
            entry = self._entry(text, "" if module else here)
            if entry is None:
                continue
            stop = min(end + _REACH, named[index + 1][0] if index + 1 < len(named) else len(data))
            name = _NAME.search(data, end, stop)
            key = (entry, name.group(1).decode() if name is not None else None)
            counts[key] = counts.get(key, 0) + 1
        return max(counts, key=lambda k: counts[k]) if counts else None  # max keeps the first of equals

    def _entry(self, text: str, here: str) -> str | None:
        """The repository file an entry's text names, from the root or else from the naming file's directory, when
        it mentions Hydra."""
        for candidate in (os.path.normpath(text), os.path.normpath(os.path.join(here, text)) if here else None):
            if candidate is None or candidate.startswith(("..", "/")):
                continue
            if candidate not in self._apps:
                self._apps[candidate] = _mentions_hydra(self.root, candidate)
            if self._apps[candidate]:
                return candidate
        return None


def _scripts(data: bytes) -> list[tuple[int, int, str]]:
    """(start, end, path) of each `something.py` the text names (read backwards: the regex starts at `.py`)."""
    backwards = data[::-1]
    size = len(data)
    return [(size - m.end(), size - m.start(), m.group(1)[::-1].decode() + ".py")
            for m in _SCRIPT.finditer(backwards) if not m.start() or not _WORD.match(backwards, m.start() - 1)]


def _mentions_hydra(root: str, path: str) -> bool:
    """Whether the repository's file at `path` mentions Hydra (read as every file the repository names is: never
    outside the tree, bot.confined)."""
    location = os.path.join(root, path)
    if not os.path.isfile(location):  # most names are no file: spared resolving their links
        return False
    data = confined.read(root, location)
    return data is not None and b"hydra" in data


def guess_keys(files: Sequence[SourceFile], tokens: Sequence[bytes] | None = None) -> dict[str, Key]:
    """The key of each file that names an entry that may be an app (`tokens`: and holds one of them), by path."""
    if not files:
        return {}
    guesses = Guesses(str(files[0].root))
    keys: dict[str, Key] = {}
    for source in files:
        try:
            with open(source.location, "rb") as file:
                data = file.read()
        except OSError:
            continue
        if tokens is not None and not any(token in data for token in tokens):
            continue
        key = guesses.key(source.path, data)
        if key is not None:
            keys[source.path] = key
    return keys


def share_out(files: Sequence[SourceFile], keys: Mapping[str, Key], jobs: int) -> list[list[SourceFile]]:
    """The files with a key, shared out among `jobs` workers (the others go to whichever worker is free): the files
    of one key to one worker, and those of one entry together unless they weigh more than a worker's share of all
    of `files`; the heaviest first, each to the worker that holds the least so far. Deterministic: the same files
    and keys give the same lists."""
    share = sum(_weight(s, keys) for s in files) / max(jobs, 1)
    by_entry: dict[str, dict[Key, list[SourceFile]]] = {}
    for source in files:
        key = keys.get(source.path)
        if key is not None:
            by_entry.setdefault(key[0], {}).setdefault(key, []).append(source)
    items: list[tuple[float, list[SourceFile]]] = []
    for entry in sorted(by_entry):
        named = by_entry[entry]
        groups = [named[key] for key in sorted(named, key=_order)]
        whole = [s for group in groups for s in group]
        items.extend((_total(item, keys), item) for item in ([whole] if _total(whole, keys) <= share else groups))
    items.sort(key=lambda item: -item[0])  # stable: equals keep the order of their keys
    loads = [0.0] * jobs
    lists: list[list[SourceFile]] = [[] for _ in range(jobs)]
    for weight, item in items:
        least = min(range(jobs), key=lambda index: (loads[index], index))
        lists[least].extend(item)
        loads[least] += weight
    return lists


def _order(key: Key) -> tuple[str, str]:
    return key[0], key[1] or ""


def _weight(source: SourceFile, keys: Mapping[str, Key]) -> float:
    """What composing a file costs, about: its size, a fifth of it for a file that names no app's entry (on verl's
    tip, such files cost a fifth of the CPU per byte of those that do: they compose nothing)."""
    size = max(source.size, 1)
    return size if source.path in keys else size / 5


def _total(files: Sequence[SourceFile], keys: Mapping[str, Key]) -> float:
    return sum(_weight(s, keys) for s in files)


__all__ = ["Guesses", "Key", "guess_keys", "share_out"]
