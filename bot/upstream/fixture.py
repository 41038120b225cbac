"""A fixture for an inferred rule, in the layout of tests/rules (bot.engine.fixtures): one launch that
breaks the rule on every key it names, and what the rule must make of it.

A rule with a fix gets `<case>.before.sh` and `<case>.after.sh` (every key set to what the fix writes); a
rule without one (an allowed set, a bound, a relation) gets `<case>.same.sh`, which must not change, and
both get `<case>.findings.txt` (`LINE fixable|manual`, one finding per key). The values are chosen from
the rule alone: a value the rule rejects for each key, and the `when.value` settings it runs under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CASE = "inferred"
ENTRY = "python3 -m app.main"  # any launch: the rule reads its overrides, not the app


@dataclass
class Fixture:
    source: str  # the launch, before
    expected: str | None  # after the fix; None: must not change
    findings: str  # `LINE STATUS` lines
    loads: tuple[str, ...] = ()  # the modules the launch's entry point loads (the rule's `when.imports`)

    def files(self) -> dict[str, str]:
        """File name -> text, under the rule's own directory."""
        kind = "before" if self.expected is not None else "same"
        out = {f"{CASE}.{kind}.sh": self.source, f"{CASE}.findings.txt": self.findings}
        if self.expected is not None:
            out[f"{CASE}.after.sh"] = self.expected
        if self.loads:
            out[f"{CASE}.loads.txt"] = "".join(f"{module}\n" for module in self.loads)
        return out


def shown(value: Any) -> str:
    """A value as a Hydra override writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    return text if re.fullmatch(r"[\w.\-/]+", text) and text.lower() not in ("null", "true", "false") else (
        "'\"" + text.replace("'", "") + "\"'")


def _other(values: list[Any]) -> Any:
    """A value of the same kind that is none of `values`."""
    first = values[0] if values else None
    if isinstance(first, bool):
        return not first if len(set(values)) == 1 else None
    if isinstance(first, (int, float)) and all(isinstance(v, (int, float)) for v in values):
        return max(values) + 1
    if first is None:
        return "unset"
    candidate = f"not_{first}"
    while candidate in values:
        candidate += "_"
    return candidate


def _breaking(op: str, limit: float) -> float:
    """A number on the wrong side of `op limit`."""
    integer = isinstance(limit, int)
    step = 1 if integer else (abs(limit) or 1.0) / 2
    return {">": limit, ">=": limit - step, "<": limit, "<=": limit + step, "==": limit + 1,
            "!=": limit}.get(op, limit + 1)


def _pair(op: str) -> tuple[int, int]:
    """Left and right values that break `left op right`."""
    return {">": (1, 1), ">=": (1, 2), "<": (2, 1), "<=": (2, 1), "==": (1, 2), "!=": (1, 1),
            "multiple_of": (3, 2)}.get(op, (1, 2))


def _condition_set(settings: list[tuple[str, Any, Any]], key: str, value: Any, relation: dict[str, Any] | None
                   ) -> bool:
    """`when.value` `key: value` written into the launch: a key of its own, or, where the rule's relation already
    sets it, that setting's value (the relation's other side kept broken: equal to it for `!=`, different
    for `==`); False when the relation cannot be broken with that value."""
    index = next((i for i, (k, _, _) in enumerate(settings) if k == key), None)
    if index is None:
        settings.append((key, value, None))
        return True
    if relation is None or "value" in relation or str(relation["op"]) not in ("==", "!="):
        return False
    sides = len(settings)  # so far only the relation's sides are set
    for i in range(sides):
        settings[i] = (settings[i][0], value if i == index or relation["op"] == "!=" else _other([value]), None)
    return True


def fixture_for(rule: dict[str, Any]) -> Fixture | None:
    """The fixture of an inferred rule (format v1 as bot.upstream.propose writes it); None if the rule
    has no shape a launch can break."""
    settings: list[tuple[str, Any, Any]] = []  # key, value before, value after (None: unchanged)
    flagged: set[str] = set()
    fix = rule.get("fix", {})
    status = "fixable" if "set" in fix else "manual"
    match, relation = rule.get("match"), rule.get("relation")
    if match is not None:
        if "value_not" in match:
            bad = _other(list(match["value_not"]))
        elif match.get("value"):
            bad = match["value"][0]
        else:
            return None
        for key in match["key"]:
            settings.append((key, bad, fix.get("set", bad)))
            flagged.add(key)
    elif relation is not None:
        op = str(relation["op"])
        if "value" in relation:
            for key in relation["left"]:
                settings.append((key, _breaking(op, relation["value"]), None))
                flagged.add(key)
        else:
            left, right = _pair(op)
            right_key = str(relation["right"])
            for key in relation["left"]:
                settings.append((key, left, None))
                flagged.add(key)
                other = right_key if "." in right_key else f"{key.rpartition('.')[0]}.{right_key}".lstrip(".")
                if all(other != k for k, _, _ in settings):
                    settings.append((other, right, None))
    else:
        return None
    for key, value in rule.get("when", {}).get("value", {}).items():
        if not _condition_set(settings, key, value, relation):
            return None
    lines = [f"{ENTRY} \\"] + [f"    {key}={shown(value)}" for key, value, _ in settings]
    after = [f"{ENTRY} \\"] + [f"    {key}={shown(value if new is None else new)}" for key, value, new in settings]
    for index in range(1, len(lines) - 1):
        lines[index] += " \\"
        after[index] += " \\"
    findings = [f"{number} {status}" for number, (key, _, _) in enumerate(settings, start=2) if key in flagged]
    source = "\n".join(lines) + "\n"
    return Fixture(source, "\n".join(after) + "\n" if status == "fixable" else None, "\n".join(findings) + "\n",
                   tuple(rule.get("when", {}).get("imports", ())))
