"""Parsing a rule's nested sections: `relation`, `when.value`, `fix` and `ensure`."""

from __future__ import annotations

import re
from typing import Any

from bot.rules.fields import ENSURE_FIELDS, FIX_FIELDS, KEY_PATH, RELATION_FIELDS, FieldChecker, kind
from bot.rules.model import RELATION_OPS, EnsureEntry, Fix, Relation


def parse_relation(c: FieldChecker, data: Any) -> Relation:
    doc = c.mapping(data, "relation", RELATION_FIELDS)
    if "left" not in doc or "op" not in doc:
        raise c.fail("relation", "expected left (key globs) and op")
    if doc["op"] not in RELATION_OPS:
        raise c.fail("relation.op", f"expected one of {', '.join(RELATION_OPS)}, got {doc['op']!r}")
    if ("right" in doc) == ("value" in doc):
        raise c.fail("relation", "expected exactly one of right (a key) and value (a constant)")
    right = c.string(doc["right"], "relation.right") if "right" in doc else None
    if right is not None and not KEY_PATH.match(right):
        raise c.fail("relation.right", f"expected a dotted key, got {right!r}")
    value = doc.get("value")
    if "value" in doc and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise c.fail("relation.value", f"expected a number, got {kind(value)}")
    return Relation(c.key_globs(doc["left"], "relation.left"), str(doc["op"]), right, value,
                    str(doc.get("message", "")))


def when_value(c: FieldChecker, data: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(data, dict) or not data:
        raise c.fail("when.value", f"expected a mapping of dotted key to value, got {kind(data)}")
    out = []
    for key, value in data.items():
        if not isinstance(key, str) or not KEY_PATH.match(key):
            raise c.fail(f"when.value.{key}", "expected a dotted key without globs")
        out.append((key, c.scalar(value, f"when.value.{key}")))
    return tuple(out)


def parse_fix(c: FieldChecker, data: Any) -> Fix:
    fix = c.mapping(data, "fix", FIX_FIELDS)
    if not fix:
        raise c.fail("fix", "expected at least one of set, rename, map, remove, prefix, map_items, remove_items, "
                     "entrypoint")
    rename = None
    if "rename" in fix:
        rename = c.string(fix["rename"], "fix.rename")
        if not KEY_PATH.match(rename) and not _MOVED.match(rename):
            raise c.fail("fix.rename", f"expected a key segment, a dotted key, or a dotted key with * or ** segments "
                                       f"(a subtree moved), got {rename!r}")
    pairs: tuple[tuple[Any, Any], ...] = ()
    if "map" in fix:
        raw = fix["map"]
        if not isinstance(raw, dict) or not raw:
            raise c.fail("fix.map", f"expected a non-empty mapping of old value to new, got {kind(raw)}")
        pairs = tuple(
            (c.scalar(k, "fix.map"), c.scalar(v, f"fix.map.{k}")) for k, v in raw.items()
        )
    remove = c.boolean(fix["remove"], "fix.remove") if "remove" in fix else False
    if remove and len(fix) > 1:
        raise c.fail("fix.remove", "expected remove alone: it cannot combine with another fix")
    if "set" in fix and "map" in fix:
        raise c.fail("fix.set", "expected set or map, not both")
    if "remove" in fix and not remove:
        raise c.fail("fix.remove", "expected true (leave the field out otherwise)")
    for name in ("map_items", "remove_items"):
        other = next((f for f in ("set", "map") if f in fix), None)
        if name in fix and other is not None:
            raise c.fail(f"fix.{name}", f"expected {name} or {other}, not both: {name} edits list elements")
    drop = c.boolean(fix["drop_if_default"], "fix.drop_if_default") if "drop_if_default" in fix else False
    if drop and rename is None:
        raise c.fail("fix.drop_if_default", "expected a rename beside it: it drops a renamed override")
    entrypoint = _entrypoint(c, fix["entrypoint"]) if "entrypoint" in fix else ()
    if entrypoint and len(fix) > 1:
        raise c.fail("fix.entrypoint", "expected entrypoint alone: it edits the launch, not its overrides")
    map_items = _items_map(c, fix["map_items"]) if "map_items" in fix else ()
    remove_items = list_items(c, fix["remove_items"], "fix.remove_items") if "remove_items" in fix else ()
    both = [v for v in remove_items if any(v == old for old, _ in map_items)]
    if both:
        raise c.fail("fix.remove_items", f"expected each element in map_items or remove_items, {both[0]!r} is in both")
    return Fix(
        set=c.scalar(fix["set"], "fix.set") if "set" in fix else None,
        has_set="set" in fix,
        rename=rename,
        map=pairs,
        remove=remove,
        prefix=c.prefix(fix["prefix"], "fix.prefix") if "prefix" in fix else None,
        map_items=map_items,
        remove_items=remove_items,
        entrypoint=entrypoint,
        drop_if_default=drop,
    )


def list_items(c: FieldChecker, data: Any, where: str) -> tuple[Any, ...]:
    """A non-empty list of list elements (scalars)."""
    if not isinstance(data, list) or not data:
        raise c.fail(where, f"expected a non-empty list of elements, got {kind(data)}")
    return tuple(_item(c, v, f"{where}[{i}]") for i, v in enumerate(data))


def _item(c: FieldChecker, value: Any, where: str) -> Any:
    if value is not None and not isinstance(value, (bool, int, float, str)):
        raise c.fail(where, f"expected a list element (bool, number, string, null), got {kind(value)}")
    return value


def _items_map(c: FieldChecker, data: Any) -> tuple[tuple[Any, Any], ...]:
    if not isinstance(data, dict) or not data:
        raise c.fail("fix.map_items", f"expected a non-empty mapping of old element to new, got {kind(data)}")
    return tuple((_item(c, k, "fix.map_items"), _item(c, v, f"fix.map_items.{k}")) for k, v in data.items())


# a new key that takes the old key's wildcards (a subtree moved)
_MOVED = re.compile(r"^(?:[A-Za-z0-9_\-]+|\*\*?)(\.(?:[A-Za-z0-9_\-]+|\*\*?))*$")
_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")  # a module's name, or a directory's of a script path


def _entrypoint(c: FieldChecker, data: Any) -> tuple[tuple[str, str], ...]:
    """Old dotted module prefix -> new, longest first (the longest that fits a launch wins)."""
    if not isinstance(data, dict) or not data:
        raise c.fail("fix.entrypoint", f"expected a non-empty mapping of old module prefix to new, got {kind(data)}")
    pairs = []
    for old, new in data.items():
        for text, where in ((old, f"fix.entrypoint.{old}"), (new, f"fix.entrypoint.{old}")):
            if not isinstance(text, str) or not all(_SEGMENT.fullmatch(p) for p in text.split(".")):
                raise c.fail(where, f"expected a dotted module name or path (a.b.c, sota-impl.algo), got {kind(text)}")
        if old == new:
            raise c.fail(f"fix.entrypoint.{old}", "expected a module other than the old one")
        pairs.append((old, new))
    return tuple(sorted(pairs, key=lambda p: -len(p[0])))


def parse_ensure(c: FieldChecker, data: Any) -> tuple[EnsureEntry, ...]:
    if not isinstance(data, list) or not data:
        raise c.fail("ensure", f"expected a non-empty list of entries, got {kind(data)}")
    out = []
    for i, raw in enumerate(data):
        where = f"ensure[{i}]"
        entry = c.mapping(raw, where, ENSURE_FIELDS)
        if "key" not in entry or "value" not in entry:
            raise c.fail(where, "expected both key and value")
        key = c.string(entry["key"], f"{where}.key")
        if not KEY_PATH.match(key):
            raise c.fail(f"{where}.key", f"expected a dotted key without globs, got {key!r}")
        raw_prefix = entry.get("prefix", "")
        prefix = "auto" if raw_prefix == "auto" else c.prefix(raw_prefix, f"{where}.prefix")
        if prefix == "~":
            raise c.fail(f"{where}.prefix", "expected \"\", \"+\", \"++\" or auto: ensure adds a value")
        out.append(
            EnsureEntry(
                key=key,
                value=c.scalar(entry["value"], f"{where}.value"),
                prefix=prefix,
                if_sets=c.key_globs(entry["if_sets"], f"{where}.if_sets") if "if_sets" in entry else (),
            )
        )
    return tuple(out)
