"""The arms of a script's `if` and `case` statements, and what each arm tells about its variables.

An arm is one way through a compound statement: the `then` body, each `elif`, the `else`, or
(without an `else`) none of them. Inside `if [ "$backend" = megatron ]` the variable is
`megatron`; in a later arm it is known not to be. Definitions and commands carry the arms they
sit in (their guard), so a launch can be read once per way its own branches can go
(bot.lang.shell.combinations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.lang.shell.nodes import variable_of

if TYPE_CHECKING:
    from tree_sitter import Node

Guard = tuple[tuple[int, int], ...]  # (statement, arm) pairs, outermost first
LITERAL_WORDS = {"word", "string", "raw_string", "number", "extglob_pattern"}
GLOB = "*?[$`"


@dataclass(frozen=True)
class Test:
    """`variable` is one of `values` (`inside`), or none of them."""

    variable: str
    values: frozenset[str]
    inside: bool = True

    def negated(self) -> Test:
        return Test(self.variable, self.values, not self.inside)


@dataclass
class Arm:
    label: str
    tests: list[Test] = field(default_factory=list)  # what holds inside the arm


@dataclass
class Statement:
    """One `if` or `case`: the arms it may take, and the arms it itself sits in."""

    guard: Guard
    arms: list[Arm] = field(default_factory=list)


def literal(node: Node) -> str | None:
    if node.type not in LITERAL_WORDS:
        return None
    text = (node.text or b"").decode("utf-8", "replace").strip("\"'")
    return None if any(ch in text for ch in GLOB) else text


def condition_tests(nodes: list[Node]) -> tuple[list[Test], list[Test]]:
    """(what holds when the condition is true, what holds when it is false), for simple tests:
    `[ "$V" = x ]`, `[[ $V != x ]]`, `!`, and `&&` / `||` of those. Anything else tells nothing."""
    parts = [n for n in nodes if n.type not in (";", "\n", "comment")]
    if len(parts) != 1:
        return [], []
    return _tests(parts[0])


def _tests(node: Node) -> tuple[list[Test], list[Test]]:
    kind = node.type
    named = [c for c in node.children if c.is_named]
    if kind == "test_command" and len(named) == 1:
        return _tests(named[0])
    if kind in ("negated_command", "unary_expression") and node.children and node.children[0].type == "!":
        true, false = _tests(named[-1]) if named else ([], [])
        return false, true
    if kind == "parenthesized_expression" and len(named) == 1:
        return _tests(named[0])
    operators = [c.type for c in node.children if not c.is_named]
    if kind in ("list", "binary_expression") and len(named) == 2 and operators in (["&&"], ["||"]):
        (lt, lf), (rt, rf) = _tests(named[0]), _tests(named[1])
        if operators == ["&&"]:
            return lt + rt, []
        either: list[Test] = []
        if len(lt) == len(rt) == 1 and lt[0].variable == rt[0].variable and lt[0].inside and rt[0].inside:
            either = [Test(lt[0].variable, lt[0].values | rt[0].values)]  # `[ $V = a ] || [ $V = b ]`
        return either, lf + rf
    if kind == "binary_expression" and len(named) == 2 and len(operators) == 1 and operators[0] in ("=", "==", "!="):
        for var_side, value_side in ((named[0], named[1]), (named[1], named[0])):
            name = variable_of(var_side)
            value = literal(value_side)
            if name is not None and value is not None:
                test = Test(name, frozenset({value}))
                return ([test], [test.negated()]) if operators[0] != "!=" else ([test.negated()], [test])
    return [], []


def case_tests(variable: str | None, patterns: list[Node]) -> Test | None:
    """The test a `case` arm's patterns make of the subject (`a|b)`: one of a, b), if all are literal."""
    values = [literal(p) for p in patterns]
    if variable is None or not values or any(v is None for v in values):
        return None
    return Test(variable, frozenset(v for v in values if v is not None))
