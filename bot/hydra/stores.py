"""Configs a repository registers in Hydra's ConfigStore when it runs (`cs.store(name=..., group=..., node=...)`).

Such a config is not a file. Where its call and node are read (bot.hydra.store_calls: a dataclass of the
repository or a dict literal, its name a literal or made in a loop over literals or an Enum's members), it is
put in Hydra's ConfigStore while the launches compose (`put_in`: bot.hydra.structured_nodes). Any other is
still looked for here: a launch whose config names one is "not checked", not a finding ("Could not load
'task/vmas_balance_config'" when the package registers every task's schema at import). For that the calls are
read as text, never run; a name or group built at run time (`name=f"{algo}_config"`) may be any.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.hydra.py_modules import Modules
from bot.hydra.store_calls import StoreReader
from bot.hydra.structured_nodes import Registered, usable

ANY = "\0any"  # a name or group the call computes
_STORE = re.compile(r"\.store\(")
_ARGUMENT = re.compile(r"(name|group)\s*=\s*")
_LITERAL = re.compile(r"""(?:[rRuU])?(["'])([^"'\\\n]*)\1\s*(?:[,)]|$)""")
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", "site-packages", ".tox"}
_MAX_BYTES = 2 * 1024 * 1024


class StoredConfigs:
    """The (group, name) pairs a repository's Python registers, read once, when first asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._calls: list[tuple[str | None, str]] | None = None
        self._files: list[str] = []  # the files that may store configs
        self._registered: Registered | None = None

    @contextmanager
    def put_in(self) -> Iterator[None]:
        """The stored configs read (bot.hydra.store_calls) in Hydra's ConfigStore while the block runs."""
        with self.registered().put_in():
            yield

    def registered(self) -> Registered:
        """The configs the repository stores whose calls and nodes are read, to put in Hydra's ConfigStore."""
        if self._registered is None:
            self.calls()
            reader = StoreReader(Modules(self.root))
            nodes = [node for path in self._files for node in reader.nodes(Path(path))]
            self._registered = Registered(usable(nodes), [n for n in nodes if n.node is None])
        return self._registered

    def may_register(self, missing: str) -> bool:
        """Whether `group/name` (or `name`) may be a config the repository stores in the ConfigStore."""
        group, _, name = missing.rpartition("/")
        for stored_group, stored_name in self.calls():
            if stored_name in (name, f"{name}.yaml"):  # the name as written: any group the call may give
                if stored_group in (ANY, group) or (stored_group is None and not group):
                    return True
            elif stored_name == ANY and group and stored_group == group:  # a computed name in that group
                return True
        return False  # a call computing both says nothing of which: a misspelt entry stays a finding

    def computed(self, missing: str) -> str | None:
        """Where the repository registers options of `missing`'s group under a name it computes, in a call the bot
        does not read (`cs.store(name=f"{task}_config", group="task", node=...)` in a loop over a registry filled
        at import), so that `group/name` may be one of them when the app runs; None otherwise (a name a call
        gives as it is written, or a group no call gives as a literal)."""
        group, _, name = missing.rpartition("/")
        unread = self.registered().unread
        if not group or (group, name) in self.registered().nodes or any(
                n.name in (name, f"{name}.yaml") and n.group == group for n in unread):
            return None  # a call names it: its node is put in, or why it is not read is said (`unread`)
        for node in unread:
            if node.name is None and node.group == group and node.why != "it is given no name":
                return node.where
        return None

    def unread(self, missing: str) -> str | None:
        """Why a call that may store `group/name` (or `name`) is not read (bot.hydra.store_calls), or None."""
        group, _, name = missing.rpartition("/")
        for node in self.registered().unread:
            if node.name in (None, name, f"{name}.yaml") and node.group in (None, group or None):
                return f"{node.where}: {node.why}"
        return None

    def calls(self) -> list[tuple[str | None, str]]:
        if self._calls is None:
            self._calls = []
            for path in self._python_files():
                try:
                    with open(path, "rb") as handle:
                        data = handle.read(_MAX_BYTES)
                except OSError:
                    continue
                if b"ConfigStore" in data or b"config_store" in data:
                    self._calls += _store_calls(data.decode("utf-8", "replace"))
                    self._files.append(path)
        return self._calls

    def _python_files(self) -> list[str]:
        found = []
        for directory, dirs, files in os.walk(self.root):  # symlinked directories are not followed
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
            found += [os.path.join(directory, f) for f in files
                      if f.endswith(".py") and not os.path.islink(os.path.join(directory, f))]
        return found


def _store_calls(text: str) -> list[tuple[str | None, str]]:
    """(group, name) of each `.store(...)` call: a literal, ANY when computed, None for a group not given."""
    calls = []
    for match in _STORE.finditer(text):
        arguments = _top_level(_call_text(text, match.end()))
        values: dict[str, str] = {}
        for argument in arguments:
            keyword = _ARGUMENT.match(argument.strip())
            if keyword is not None:
                literal = _LITERAL.match(argument.strip() + ")", keyword.end())
                values[keyword.group(1)] = literal.group(2) if literal else ANY
        if "name" in values or any(a.strip().startswith("node") for a in arguments):
            calls.append((values.get("group"), values.get("name", ANY)))
    return calls


def _top_level(arguments: str) -> list[str]:
    """A call's arguments, split at its own commas (not those of a call or literal nested in it)."""
    parts, depth, start, quote = [], 0, 0, ""
    for i, char in enumerate(arguments):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(arguments[start:i])
            start = i + 1
    return [*parts, arguments[start:]]


def _call_text(text: str, start: int) -> str:
    """The text of a call's arguments, from after its `(` to the `)` that closes it (or 2,000 characters)."""
    depth = 1
    for i in range(start, min(len(text), start + 2000)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return text[start : start + 2000]
