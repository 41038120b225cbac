"""The steps of a migration read from an upstream change, written as one format 2 rule (docs/rules.md,
"Migrations"): moves, values, removals and the steps the shorthand has no section for; a step the change makes
under several parents written once for any parent; an id derived from the steps, so the same change always
proposes the same id (PR branches, baselines and `ignore[...]` key on it).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from bot.upstream.key_changes import DEPRECATED, GUARDED, MOVED, REMOVED, REQUIRED, VALUE, KeyChange

HIGH, LOW = "high", "low"


@dataclass
class Step:
    change: KeyChange
    configs: set[str] = field(default_factory=set)  # the config names it was read in
    agreeing: list[str] = field(default_factory=list)
    confidence: str = LOW
    section: str | None = None  # a guarded flag's: set only where a launch sets a key of this section


def _suffix(key: str) -> str:
    return ".".join(key.split(".")[-2:])


def _general(steps: list[Step], valid: set[str]) -> dict[tuple[object, ...], str]:
    """Steps the same change makes under several parents, written once for any parent: a rename or deprecation in
    place (`a.x.old -> a.x.new`, `b.x.old -> b.x.new`: `**.x.old -> new`) or a removal (`**.x.old`), keyed by the
    step's (kind, suffix, new name). Not where a key of that suffix is still valid in a config after the change
    (a removal, a move; a deprecated key stays valid by definition)."""
    groups: dict[tuple[object, ...], set[str]] = {}
    for step in steps:
        change = step.change
        if change.subtree or change.old.count(".") < 2:
            continue
        if change.kind in (MOVED, DEPRECATED) and change.new is not None and \
                change.new.rpartition(".")[0] == change.old.rpartition(".")[0]:
            group: tuple[object, ...] = (change.kind, _suffix(change.old), change.new.rpartition(".")[2])
        elif change.kind in (REMOVED, DEPRECATED, VALUE) and change.new is None and not change.in_list:
            group = (change.kind, _suffix(change.old), None)
        else:
            continue
        groups.setdefault(group, set()).add(change.old)
    out = {}
    for group, keys in groups.items():
        kind, suffix = group[0], str(group[1])
        still = [k for k in valid if k == suffix or k.endswith("." + suffix)]
        if len(keys) >= 2 and (kind in (DEPRECATED, VALUE) or not still):
            out[group] = f"**.{suffix}"
    return out


def _sections(steps: list[Step], valid: set[str]) -> dict[str, Any]:
    """The steps as a migration's sections (docs/rules.md, "Migrations")."""
    moves: dict[str, str] = {}
    values: dict[str, dict[Any, Any]] = {}
    removals: list[Any] = []
    extra: list[dict[str, Any]] = []
    general = _general(steps, valid)
    for step in steps:
        change = step.change
        renamed = change.new.rpartition(".")[2] if change.new is not None else None
        glob = general.get((change.kind, _suffix(change.old), renamed))
        if change.kind in (MOVED, DEPRECATED) and change.new is not None:
            if change.subtree:
                moves[f"{change.old}.**"] = f"{change.new}.**"
            else:
                moves[glob or change.old] = renamed if glob and renamed else change.new
        elif change.kind in (DEPRECATED, REMOVED):
            entry: Any = {"key": glob or change.old, "value_not": [None]} if change.kind == DEPRECATED else (
                f"{change.old}.**" if change.subtree else glob or change.old)
            if entry not in removals:
                removals.append(entry)
        elif change.kind in (REQUIRED, GUARDED):
            when: dict[str, Any] = {"config": sorted(step.configs)}
            if step.section is not None:
                when["sets"] = _section_globs(step.section, steps)
            extra.append({"ensure": [{"key": change.old, "value": change.value}], "when": when})
        elif change.kind == VALUE and change.in_list:
            extra.append({"match": {"key": [change.old], "item": [change.value[0]]},
                          "fix": {"map_items": {change.value[0]: change.value[1]}}})
        elif change.kind == VALUE:
            values.setdefault(glob or change.old, {})[change.value[0]] = change.value[1]
    sections = {"moves": moves, "values": values, "removals": removals, "steps": extra}
    return {name: section for name, section in sections.items() if section}


def _section_globs(section: str, steps: list[Step]) -> list[str]:
    """A section's keys, and the keys the same migration moves into it (a launch still writes them there)."""
    globs = [f"{section}.**"]
    for step in steps:
        new = step.change.new
        if step.change.kind in (MOVED, DEPRECATED) and new is not None and (new + ".").startswith(section + "."):
            globs.append(f"{step.change.old}.**" if step.change.subtree else step.change.old)
    return globs


def _only_warned(step: Step) -> bool:
    """A step whose old form still works, with a warning: a deprecated key, or a value the code calls deprecated."""
    warned = step.change.kind == VALUE and any("deprecated" in a for a in step.agreeing)
    return step.change.kind in (DEPRECATED, GUARDED) or warned


def migration_rule(steps: list[Step], upstream: str, confidence: str, valid: set[str] = frozenset()  # type: ignore[assignment]
          ) -> dict[str, Any] | None:
    if not steps:
        return None
    migration = _sections(steps, valid)
    digest = hashlib.sha1(json.dumps(migration, sort_keys=True, default=str).encode()).hexdigest()[:8]
    first = steps[0].change.old.split(".")[-2:]
    slug = re.sub(r"[^a-z0-9]+", "-", "-".join(first).lower()).strip("-")
    lines = [f"- {s.change.evidence} (in {_names(s.configs)})"
             + (f"; {'; '.join(s.agreeing)}" if s.agreeing else "") for s in steps]
    return {
        "format": 2,
        "id": f"inferred-config-{slug}-{digest}",
        "title": _title(steps),
        "description": ("Read from the change's config (" + ("verified, and another source agrees on each step"
                        if confidence == HIGH else "not confirmed by a second source") + "):\n" + "\n".join(lines)),
        **({"upstream": upstream} if upstream else {}),
        "severity": "warning" if all(_only_warned(s) for s in steps) else "error",
        "migration": migration,
    }


def _names(configs: set[str]) -> str:
    names = sorted(configs)
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _title(steps: list[Step]) -> str:
    first = steps[0].change
    if first.kind == VALUE:
        verb = f"takes `{first.value[1]}` for `{first.value[0]}`"
    else:
        verb = {MOVED: f"moved to {first.new}", REMOVED: "was removed", REQUIRED: "is required",
                DEPRECATED: "is deprecated", GUARDED: f"is {first.value} for what ran before"}[first.kind]
    more = f" (and {len(steps) - 1} more config key change{'s' if len(steps) > 2 else ''})" if len(steps) > 1 else ""
    return f"{first.old} {verb}{more}"
