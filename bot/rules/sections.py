"""Parsing a rule's nested sections: `relation`, `when.value`, `fix` and `ensure`."""

from __future__ import annotations

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
        raise c.fail("fix", "expected at least one of set, rename, map, remove, prefix")
    rename = None
    if "rename" in fix:
        rename = c.string(fix["rename"], "fix.rename")
        if not KEY_PATH.match(rename):
            raise c.fail("fix.rename", f"expected a key segment or a dotted key, got {rename!r}")
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
        raise c.fail("fix.remove", "expected remove alone: it cannot combine with set, rename, map or prefix")
    if "set" in fix and "map" in fix:
        raise c.fail("fix.set", "expected set or map, not both")
    if "remove" in fix and not remove:
        raise c.fail("fix.remove", "expected true (leave the field out otherwise)")
    return Fix(
        set=c.scalar(fix["set"], "fix.set") if "set" in fix else None,
        has_set="set" in fix,
        rename=rename,
        map=pairs,
        remove=remove,
        prefix=c.prefix(fix["prefix"], "fix.prefix") if "prefix" in fix else None,
    )


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
