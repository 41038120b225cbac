"""What an upstream change did to the keys a launch can set: the diff of an app's composed config.

Read from two compositions of one primary config (bot.upstream.config_tree), before and after the change:

- a key gone, whose value now sits at one new key of the same name (or, under the same parent, at the one new
  key holding it): moved there; every key of a mapping gone that moved alike: the mapping moved whole;
- a plain value that became a mapping holding that value at one key (`manager: naive` ->
  `manager: {name: naive, ...}`): moved to that key;
- a key gone with nowhere to go: removed (Hydra's struct config now rejects it);
- a value that became `???`: required, the old value what a launch that relied on it must now set;
- a value that became null where the change's own YAML lines call it deprecated: deprecated, moved to the
  new key beside it that holds the old value, or removed.

Each is a KeyChange, with the evidence a maintainer reads in the proposal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MISSING = "???"

MOVED, REMOVED, REQUIRED, DEPRECATED = "moved", "removed", "required", "deprecated"
VALUE = "value"  # a value renamed (bot.upstream.value_renames): `value` is (old, new)
GUARDED = "guarded"  # a new flag in front of code that ran before (bot.upstream.flag_guards): `value` runs it


@dataclass(frozen=True)
class KeyChange:
    kind: str  # moved | removed | required | deprecated
    old: str  # the dotted key (a mapping's key for a subtree: `subtree` set)
    new: str | None = None  # where it moved (moved, deprecated with an alias)
    value: Any = None  # the value before the change (required: what to set)
    subtree: bool = False  # the whole mapping at `old` moved to `new`
    successor: str | None = None  # deprecated: a new key beside it named after it, of another value (a person's move)
    in_list: bool = False  # value: the key holds a list, whose element is renamed
    renamed_only: bool = False  # moved: found by its name's words, its default not the same
    subtree_leaves: tuple[str, ...] = ()  # removed section: the names of its keys
    evidence: str = ""

    def ident(self) -> tuple[object, ...]:
        return (self.kind, self.old, self.new, self.subtree,
                repr(self.value) if self.kind in (REQUIRED, VALUE, GUARDED) else None)


@dataclass
class Flat:
    """A composed config as dotted leaves and mappings."""

    leaves: dict[str, Any] = field(default_factory=dict)
    maps: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, config: dict[str, Any]) -> Flat:
        flat = cls()
        flat._walk(config, "")
        return flat

    def _walk(self, node: Any, prefix: str) -> None:
        if isinstance(node, dict) and (node or not prefix):
            if prefix:
                self.maps[prefix] = node
            for key, value in node.items():
                self._walk(value, f"{prefix}.{key}" if prefix else str(key))
        else:
            self.leaves[prefix] = node

    def has(self, key: str) -> bool:
        return key in self.leaves or key in self.maps


def _parent(key: str) -> str:
    return key.rpartition(".")[0]


def _leaf(key: str) -> str:
    return key.rpartition(".")[2]


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def key_changes(before: dict[str, Any], after: dict[str, Any], deprecated: set[str] = frozenset()  # type: ignore[assignment]
                ) -> list[KeyChange]:
    """The key changes from `before` to `after` (one app's composed config); `deprecated`: the key names the
    change's YAML lines call deprecated."""
    old, new = Flat.of(before), Flat.of(after)
    added = [k for k in new.leaves if not old.has(k)]
    out: list[KeyChange] = []
    gone = [k for k in old.leaves if not new.has(k)]
    out.extend(_subtree_moves(old, new))
    taken = {c.old for c in out}
    for key in old.leaves:
        if any(key == t or key.startswith(t + ".") for t in taken):
            continue
        value = old.leaves[key]
        if key in new.maps:  # a plain value became a section holding it
            holders = [k for k, v in new.maps[key].items() if not isinstance(v, dict) and _same(v, value)]
            if len(holders) == 1 and value is not None:
                out.append(KeyChange(MOVED, key, f"{key}.{holders[0]}", value,
                                     evidence=f"`{key}` became a section; its value `{value}` is its `{holders[0]}`"))
            continue
        if key not in new.leaves:
            continue
        now = new.leaves[key]
        if now == MISSING and value != MISSING and value is not None:
            out.append(KeyChange(REQUIRED, key, None, value,
                                 evidence=f"`{key}` became `???` (mandatory); it was `{value}`"))
        elif now is None and value is not None and _leaf(key) in deprecated:
            alias = [k for k in added if _parent(k) == _parent(key) and _same(new.leaves[k], value)]
            successor = [k for k in added if _parent(k) == _parent(key) and _leaf(key) in _leaf(k)]
            out.append(KeyChange(DEPRECATED, key, alias[0] if len(alias) == 1 else None, value,
                                 successor=successor[0] if len(alias) != 1 and successor else None,
                                 evidence=f"`{key}` is marked deprecated and its default became null"
                                 + (f"; its value `{value}` is now `{alias[0]}`'s" if len(alias) == 1 else "")
                                 + (f"; `{successor[0]}` is new beside it" if len(alias) != 1 and successor else "")))
    for key in gone:
        if any(key == t or key.startswith(t + ".") for t in taken):
            continue
        value = old.leaves[key]
        target = _moved_to(key, value, old, new, added, gone)
        if target is not None:
            kept = target in new.leaves and _same(new.leaves[target], value)
            out.append(KeyChange(MOVED, key, target, value, renamed_only=not kept,
                                 evidence=f"`{key}` is gone; " + (f"its value `{value}` is at the new key `{target}`"
                                                                   if kept else f"`{target}` is new, of its words")))
        else:
            out.append(KeyChange(REMOVED, key, None, value, evidence=f"`{key}` is no longer in the config"))
    return _dedup(_sections_removed(out, old, new))


def _sections_removed(changes: list[KeyChange], old: Flat, new: Flat) -> list[KeyChange]:
    """Removals of every key of a mapping that is gone as one removal of the mapping."""
    removed = {c.old for c in changes if c.kind == REMOVED}
    whole: list[str] = []
    for key in sorted((k for k in old.maps if not new.has(k)), key=lambda k: k.count(".")):
        if any(key.startswith(w + ".") for w in whole):
            continue
        leaves = [k for k in old.leaves if k.startswith(key + ".")]
        if leaves and all(k in removed for k in leaves):
            whole.append(key)
    if not whole:
        return changes
    out = [c for c in changes if not (c.kind == REMOVED and any(c.old.startswith(w + ".") for w in whole))]
    out.extend(KeyChange(REMOVED, w, None, None, subtree=True, evidence=f"the section `{w}` is no longer in the config",
                         subtree_leaves=tuple(sorted({_leaf(k) for k in old.leaves if k.startswith(w + ".")})))
               for w in whole)
    return out


def _moved_to(key: str, value: Any, old: Flat, new: Flat, added: list[str], gone: list[str]) -> str | None:
    """The one new key `key`'s value went to: of the same name anywhere, else under the same parent."""
    same_name = [k for k in added if _leaf(k) == _leaf(key) and _same(new.leaves[k], value)]
    twins = [g for g in gone if _leaf(g) == _leaf(key) and _same(old.leaves[g], value)]
    if len(same_name) == 1 and len(twins) == 1:
        return same_name[0]
    siblings = [k for k in added if _parent(k) == _parent(key) and _same(new.leaves[k], value)]
    twins = [g for g in gone if _parent(g) == _parent(key) and _same(old.leaves[g], value)]
    if len(siblings) == 1 and len(twins) == 1:
        return siblings[0]
    return _same_words(key, added, gone)


def _words(path: str) -> tuple[str, ...]:
    return tuple(word for word in re.split(r"[._]", path) if word)


def _same_words(key: str, added: list[str], gone: list[str]) -> str | None:
    """The one new key under the old key's parent whose path from there is the old name's words
    (`rollout.skip_dump_dir` -> `rollout.skip.dump_dir`), of two words at least, no other gone key's alike."""
    parent, words = _parent(key), _words(_leaf(key))
    if len(words) < 2:
        return None

    def below(k: str) -> str | None:
        return k[len(parent) + 1:] if not parent else (k[len(parent) + 1:] if k.startswith(parent + ".") else None)

    found = [k for k in added if (rest := below(k)) is not None and _words(rest) == words and rest != _leaf(key)]
    rivals = [g for g in gone if g != key and _parent(g) == parent and _words(_leaf(g)) == words]
    return found[0] if len(found) == 1 and not rivals else None


def _subtree_moves(old: Flat, new: Flat) -> list[KeyChange]:
    """Mappings gone whose every leaf is at the same place under one new mapping (none of it there before)."""
    out: list[KeyChange] = []
    gone_maps = [k for k in old.maps if not new.has(k)]
    for key in sorted(gone_maps, key=lambda k: k.count(".")):
        if any(key.startswith(c.old + ".") for c in out):
            continue
        mapping = old.maps[key]
        candidates = [k for k in new.maps if not old.has(k) and _leaf(k) == _leaf(key) and new.maps[k] == mapping]
        if len(candidates) != 1 or not _leaves_of(mapping):
            continue
        out.append(KeyChange(MOVED, key, candidates[0], None, subtree=True,
                             evidence=f"the section `{key}` is gone; the same section is now at `{candidates[0]}`"))
    return out


def _leaves_of(mapping: dict[str, Any]) -> int:
    return sum(_leaves_of(v) if isinstance(v, dict) else 1 for v in mapping.values())


def _dedup(changes: list[KeyChange]) -> list[KeyChange]:
    seen: set[tuple[object, ...]] = set()
    out = []
    for change in changes:
        if change.ident() not in seen:
            seen.add(change.ident())
            out.append(change)
    return out
