"""The compose index (bot.hydra.compose_index) read off a base composed as plain data (bot.hydra.plain_compose).

Such a base is what Hydra composes from YAML files alone: every mapping a plain one of the config's own, no
flag but the root's struct flag, every value untyped. The verdicts are the compose index's for that config,
with a mapping, a list and a value where the index finds a DictConfig, a ListConfig and an AnyNode (null,
`???` and `${...}` strings are OmegaConf's none, missing and interpolation values). What it is not sure of
is UNSURE; the composer then has Hydra compose the base and goes on as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.hydra.compose_index import _KEY, FAIL, PASS, UNSURE, _simple, _simple_container, under_added
from bot.hydra.plain_compose import MISSING

_ABSENT = object()
# `key=value`, `+key=value`, `++key=value` or `~key` with a dotted key of names and a value that is bare (letters,
# digits and `_-./:`: no quote, bracket, brace, comma, `$`, `?`, `@`, `*`, `%`, escape or blank), empty, or a
# flat list of bare items (each may be quoted): what Hydra's grammar reads as one primitive (a string, number,
# bool, or null when it is `null`), an empty string, or a list of them
_BARE = r"[A-Za-z0-9_\-./:]+"
_ITEM = rf"\s*(?:{_BARE}|'{_BARE}'|\"{_BARE}\")\s*"
_QUICK = re.compile(r"(?P<prefix>~|\+\+|\+)?(?P<key>[A-Za-z_][\w\-]*(?:\.[A-Za-z_][\w\-]*)*)"
                    rf"(?:=(?P<value>{_BARE}|\[(?:{_ITEM}(?:,{_ITEM})*)?\]|))?")


@dataclass(frozen=True)
class QuickOverride:
    """An override of the simplest form, read without Hydra's parser; what the index asks of Hydra's."""

    key_or_group: str
    prefix: str
    written: str | None  # the bare value, None for `~key`
    package: None = None

    def is_add(self) -> bool:
        return self.prefix == "+"

    def is_force_add(self) -> bool:
        return self.prefix == "++"

    def is_delete(self) -> bool:
        return self.prefix == "~"

    def value(self) -> Any:
        """The value, as far as the index tells values apart: None for `null` or none, a list of the items' texts
        for a list, else the text."""
        if self.written is None or self.written == "null":
            return None
        if self.written.startswith("["):
            inner = self.written[1:-1].strip()
            return [item.strip().strip("'\"") for item in inner.split(",")] if inner else []
        return self.written


def quick_override(text: str) -> QuickOverride | None:
    """The override read without Hydra's parser where it has the simplest form, else None. A value spelt
    `null` in other cases (`Null`, `NULL`) is left to Hydra's parser."""
    found = _QUICK.fullmatch(text)
    if found is None:
        return None
    prefix, value = found["prefix"] or "", found["value"]
    if (value is None) != (prefix == "~") or (value is not None and _null_otherwise(value)):
        return None
    return QuickOverride(found["key"], prefix, value)


def _null_otherwise(value: str) -> bool:
    """`Null`, `NULL` and the like, alone or as an item: left to Hydra's parser."""
    items = value[1:-1].split(",") if value.startswith("[") else [value]
    return any(i.strip().lower() == "null" and i.strip() != "null" for i in items)


def plain_verdicts(base: dict[str, Any], overrides: list[Any], alone: dict[int, str] | None = None
                   ) -> list[str] | None:
    """PASS or FAIL for each of Hydra's parsed overrides applied in order to the plain base in struct mode, or
    None where the index is not sure of one (as bot.hydra.compose_index.verdicts). `alone`: the caller's
    verdicts on overrides alone on this base, by the override's id (the caller keeps both the base, unchanged,
    and the parsed overrides)."""
    keys: list[str] = []
    for override in overrides:
        key = override.key_or_group
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            return None
        keys.append(key)
    if _related(base, overrides, keys) or _under_added(base, overrides, keys):
        return None
    said: list[str] = []
    for override, key in zip(overrides, keys):
        one = FAIL if override.package is not None else None
        if one is None and alone is not None:
            one = alone.get(id(override))
            if one is None:
                one = alone[id(override)] = _one(base, override, key)
        elif one is None:
            one = _one(base, override, key)
        if one == UNSURE:
            return None
        said.append(one)
    return said


def on_the_way(base: dict[str, Any], key: str) -> dict[str, Any]:
    """The mappings of the plain base on the way to `key`, each with only the next one of the way; the key's
    own node (or the first one the way lacks) a value as it is, a mapping or list emptied: all Hydra's message
    for an override of `key` that fails on the base says (its key, its parent's type, what is there)."""
    out: dict[str, Any] = {}
    made, node = out, base
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            break
        child = node[part]
        if not isinstance(child, dict):
            made[part] = [] if isinstance(child, list) else child
            break
        made[part] = {}
        made, node = made[part], child
    return out


def _special(value: Any) -> bool:
    """None, `???` or an interpolation: what OmegaConf keeps as a value node of no value of its own."""
    return value is None or (isinstance(value, str) and (value == MISSING or "${" in value))


def _node(base: dict[str, Any], parts: list[str]) -> Any:
    node: Any = base
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return _ABSENT
        node = node[part]
    return node


def _related(base: dict[str, Any], overrides: list[Any], keys: list[str]) -> bool:
    seen: set[str] = set()
    for key in keys:
        if key in seen and not _resettable(base, [o for o, k in zip(overrides, keys) if k == key], key):
            return True
        seen.add(key)
    return any(".".join(key.split(".")[:end]) in seen for key in keys for end in range(1, len(key.split("."))))


def _resettable(base: dict[str, Any], overrides: list[Any], key: str) -> bool:
    if any(o.is_delete() or o.is_add() for o in overrides):
        return False
    try:
        values = [o.value() for o in overrides]
    except Exception:
        return False
    node = _node(base, key.split("."))
    return node is not _ABSENT and not isinstance(node, (dict, list)) and all(_simple(v) for v in values)


def _under_added(base: dict[str, Any], overrides: list[Any], keys: list[str]) -> bool:
    added: dict[str, int] = {}
    for index, (override, key) in enumerate(zip(overrides, keys)):
        if override.is_add() or override.is_force_add():
            parts = key.split(".")
            for end in range(1, len(parts)):
                if _node(base, parts[:end]) is _ABSENT:
                    added.setdefault(".".join(parts[:end]), index)
                    break
    return under_added(added, overrides, keys) is not None


def _one(base: dict[str, Any], override: Any, key: str) -> str:
    try:
        value = override.value()
    except Exception:
        return UNSURE
    parts = key.split(".")
    parent: Any = base
    for depth, part in enumerate(parts):
        if not isinstance(parent, dict):
            if override.is_force_add() and not isinstance(parent, list):
                return _forced_through(value)
            return UNSURE  # a list, a value, null, `???` or an interpolation on the way
        if part not in parent:
            return _absent(override, value)
        if depth == len(parts) - 1:
            return _present(override, value, parent[part])
        parent = parent[part]
    return UNSURE


def _forced_through(value: Any) -> str:
    """`++` through a value on the way to its key (null, `???`, an interpolation, a plain value): OmegaConf's
    update puts an empty mapping in the value's place and adds the rest of the way, struct or not."""
    return PASS if _simple(value) or _simple_container(value) else UNSURE


def _absent(override: Any, value: Any) -> str:
    if override.is_delete():
        return FAIL
    if override.is_add() or override.is_force_add():
        return PASS if _simple(value) or _simple_container(value) else UNSURE
    return FAIL


def _present(override: Any, value: Any, child: Any) -> str:
    if (override.is_delete() or override.is_add()) and isinstance(child, str) and _special(child):
        return UNSURE
    if override.is_delete():
        if value is not None:
            return UNSURE
        return FAIL if child is None else PASS
    if override.is_add() and child is not None and not isinstance(value, (list, dict)):
        return FAIL
    return _settable(child, value)


def _settable(child: Any, value: Any) -> str:
    if isinstance(value, list) and isinstance(child, list):
        return PASS if _simple_container(value) else UNSURE
    if isinstance(value, (list, dict)):
        return PASS if not isinstance(child, (dict, list)) and _simple_container(value) else UNSURE
    if isinstance(child, (dict, list)):
        return PASS if value is not None and _simple(value) else UNSURE
    if not _simple(value):
        return UNSURE
    return PASS
