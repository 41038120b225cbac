"""Reading the test of a check (`assert a.b`, `if not a.b: raise`) as constraints on config fields."""

from __future__ import annotations

from typing import Any

import libcst as cst


def dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    return None


def literal(node: cst.BaseExpression) -> tuple[bool, Any]:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.SimpleString):
        return True, node.evaluated_value
    if isinstance(node, cst.Integer):
        return True, int(node.value)
    return False, None


_FLIP = {cst.Equal: "!=", cst.NotEqual: "==", cst.GreaterThan: "<=", cst.GreaterThanEqual: "<",
         cst.LessThan: ">=", cst.LessThanEqual: ">"}
_OPS = {cst.Equal: "==", cst.NotEqual: "!=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
        cst.LessThan: "<", cst.LessThanEqual: "<="}
Constraint = tuple[str, str, tuple[Any, ...]]


def conditions(test: cst.BaseExpression, negated: bool = False) -> list[Constraint] | None:
    """What must hold, as (attribute chain, kind, values); None when the test cannot be read."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated, test = not negated, test.expression
    if isinstance(test, cst.BooleanOperation):
        # assert a and b: both hold; `if not a or not b: raise`: both hold (De Morgan)
        splits = isinstance(test.operator, cst.And) != negated
        if not splits:
            return None
        left, right = conditions(test.left, negated), conditions(test.right, negated)
        return None if left is None or right is None else left + right
    chain = dotted(test)
    if chain is not None and "." in chain:
        return [(chain, "falsy" if negated else "truthy", ())]
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    operator = target.operator
    if isinstance(test.left, cst.BinaryOperation) and isinstance(test.left.operator, cst.Modulo):
        # a % b == 0: a is a multiple of b
        lhs, rhs = dotted(test.left.left), dotted(test.left.right)
        zero = literal(target.comparator)
        if (lhs and rhs and "." in lhs and "." in rhs and zero == (True, 0)
                and isinstance(operator, cst.NotEqual if negated else cst.Equal)):
            return [(lhs, "relation", ("multiple_of", rhs))]
        return None
    chain = dotted(test.left)
    if chain is None or "." not in chain:
        return None
    if isinstance(operator, (cst.Is, cst.IsNot)):
        ok, value = literal(target.comparator)
        if not ok or value is not None:
            return None
        must_be_none = isinstance(operator, cst.Is) != negated
        return None if must_be_none else [(chain, "not_none", ())]
    if isinstance(operator, (cst.In, cst.NotIn)):
        if isinstance(operator, cst.NotIn) != negated or not isinstance(
                target.comparator, (cst.Set, cst.List, cst.Tuple)):
            return None
        values = [literal(e.value) for e in target.comparator.elements]
        return [(chain, "in", tuple(v for _, v in values))] if all(ok for ok, _ in values) else None
    op = (_FLIP if negated else _OPS).get(type(operator))
    if op is None:
        return None
    other = dotted(target.comparator)
    if other is not None and "." in other:
        return [(chain, "relation", (op, other))]
    ok, value = literal(target.comparator)
    if not ok:
        return None
    if op == "==":
        return [(chain, "equals", (value,))]
    if op == "!=":
        return [(chain, "not_equals", (value,))]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [(chain, "bound", (op, value))]
    return None


def reads_config(test: cst.BaseExpression) -> bool:
    """Does the test read a config field at all (worth saying it was not understood)?"""
    found = False

    class Finder(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            nonlocal found
            chain = dotted(node) or ""
            if chain.startswith(("self.", "config.", "cfg.")) or ".config." in chain or "_config." in chain:
                found = True

    test.visit(Finder())
    return found
