"""A migration's steps (format 2): its shorthand sections written out as format 1's sections.

`moves`, `values`, `removals`, `additions` and `entrypoints` are the shapes upstream config changes take
(keys renamed or moved with their subtree, values re-mapped, keys removed, keys made required, modules
moved); each entry becomes one step, and `steps` holds any other step as format 1 writes it. The loader
(bot.rules.loader) parses every step as a rule's match and fix, with a checker whose errors name the entry.
"""

from __future__ import annotations

from typing import Any

from bot.rules.fields import MIGRATION_FIELDS, STEP_FIELDS, FieldChecker, kind

Step = tuple[FieldChecker, dict[str, Any]]  # the checker naming the entry, the step as format 1 sections


def migration_steps(c: FieldChecker, data: Any) -> list[Step]:
    """The steps of a `migration` section, in the order its sections are written."""
    section = c.mapping(data, "migration", MIGRATION_FIELDS)
    if not section:
        raise c.fail("migration", f"expected at least one of {', '.join(sorted(MIGRATION_FIELDS))}")
    inner = c.inside("migration")
    drop = inner.boolean(section["drop_if_default"], "drop_if_default") if "drop_if_default" in section else False
    steps: list[Step] = []
    for name, value in section.items():
        if name == "drop_if_default":
            continue
        found = _SECTIONS[name](inner, value)
        if name == "moves" and drop:
            found = [(where, {**step, "fix": {**step["fix"], "drop_if_default": True}}) for where, step in found]
        steps.extend(found)
    return steps


def _named(c: FieldChecker, value: Any, where: str) -> dict[Any, Any]:
    if not isinstance(value, dict) or not value:
        raise c.fail(where, f"expected a non-empty mapping, got {kind(value)}")
    for key in value:
        if not isinstance(key, str) or not key.strip():
            raise c.fail(where, f"expected key globs as its keys, got {kind(key)}")
    return value


def _moves(c: FieldChecker, value: Any) -> list[Step]:
    moves = _named(c, value, "moves")
    return [(c.inside(f"moves.{old}"), {"match": {"key": [old]}, "fix": {"rename": new}}) for old, new in moves.items()]


def _values(c: FieldChecker, value: Any) -> list[Step]:
    maps = _named(c, value, "values")
    return [(c.inside(f"values.{key}"), {"match": {"key": [key]}, "fix": {"map": pairs}})
            for key, pairs in maps.items()]


def _removals(c: FieldChecker, value: Any) -> list[Step]:
    if not isinstance(value, list) or not value:
        raise c.fail("removals", f"expected a non-empty list of key globs (or of {{key, value}}), got {kind(value)}")
    steps: list[Step] = []
    for index, item in enumerate(value):
        where = c.inside(f"removals[{index}]")
        if isinstance(item, str):
            match: Any = {"key": [item]}
        elif isinstance(item, dict):
            match = where.mapping(item, "", {"key", "value", "value_not"})
            if "key" not in match:
                raise where.fail("key", "expected the key globs whose overrides are removed")
        else:
            raise where.fail("", f"expected a key glob or {{key, value | value_not}}, got {kind(item)}")
        steps.append((where, {"match": match, "fix": {"remove": True}}))
    return steps


def _additions(c: FieldChecker, value: Any) -> list[Step]:
    return [(c.inside("additions"), {"ensure": value})]


def _entrypoints(c: FieldChecker, value: Any) -> list[Step]:
    moved = _named(c, value, "entrypoints")
    launches = [f"{old}.**" for old in moved]  # every launch of a moved module, or of one under it
    return [(c.inside("entrypoints"), {"when": {"entrypoint": launches}, "fix": {"entrypoint": moved}})]


def _steps(c: FieldChecker, value: Any) -> list[Step]:
    if not isinstance(value, list) or not value:
        raise c.fail("steps", f"expected a non-empty list of steps, got {kind(value)}")
    out: list[Step] = []
    for index, step in enumerate(value):
        where = c.inside(f"steps[{index}]")
        out.append((where, dict(where.mapping(step, "", STEP_FIELDS))))
    return out


_SECTIONS = {"moves": _moves, "values": _values, "removals": _removals, "additions": _additions,
             "entrypoints": _entrypoints, "steps": _steps}
