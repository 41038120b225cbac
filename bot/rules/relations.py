"""Relation rules (extension): `left` must stand in `op` to a sibling key's value or a constant.

Upstream checks often relate two fields (`ppo_mini_batch_size >= micro_batch_size`,
`hidden % tp == 0`). A launch breaks one only when both sides are literals there; anything the
file does not say is not guessed. A broken relation has no single right fix, so it is reported
for a person.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.hydra.grammar import sibling_key
from bot.rules.globs import any_match
from bot.rules.model import Rule

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "multiple_of": lambda a, b: b != 0 and a % b == 0,
}


@dataclass(frozen=True)
class Side:
    key: str
    value: Any  # the parsed value; only numbers take part
    handle: Any  # the caller's reference (an Override, a Setting)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None




def violations(rule: Rule, sides: list[Side]) -> list[tuple[Side, Side | None, str]]:
    """(left, right or None for a constant, message) for every broken relation among one launch's values."""
    relation = rule.relation
    assert relation is not None
    by_key = {s.key: s for s in sides}
    out: list[tuple[Side, Side | None, str]] = []
    for side in sides:
        if not any_match(list(relation.left), side.key):
            continue
        left = _number(side.value)
        if left is None:
            continue
        other: Side | None = None
        if relation.right is not None:
            other = by_key.get(sibling_key(side.key, relation.right))
            if other is None:
                continue
            right = _number(other.value)
            shown = f"{other.key}={other.value}"
        else:
            right = _number(relation.value)
            shown = str(relation.value)
        if right is None or _COMPARE[relation.op](left, right):
            continue
        op = "a multiple of" if relation.op == "multiple_of" else relation.op
        message = f"{side.key}={side.value} must be {op} {shown}"
        if relation.message:
            message += f" ({relation.message})"
        out.append((side, other, message + "; a person must choose the values"))
    return out
