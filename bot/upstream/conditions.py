"""Reading the test of a check (`assert a.b`, `if not a.b: raise`) as constraints on config fields."""

from __future__ import annotations

from typing import Any

import libcst as cst

from bot.upstream.check import CONFIG_WORDS
from bot.upstream.statements import entered


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
    if isinstance(node, cst.Float):
        return True, float(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        ok, value = literal(node.expression)
        number = ok and isinstance(value, (int, float)) and not isinstance(value, bool)
        return (True, -value) if number else (False, None)
    return False, None


def collection(node: cst.BaseExpression, names: dict[str, tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """The literal values of `[a, b]`, `(a, b)`, `{a, b}`, or a name assigned one in the same file."""
    if isinstance(node, cst.Name):
        return names.get(node.value)
    if not isinstance(node, (cst.Set, cst.List, cst.Tuple)):
        return None
    values = [literal(e.value) for e in node.elements]
    return tuple(v for _, v in values) if all(ok for ok, _ in values) else None


_FLIP = {cst.Equal: "!=", cst.NotEqual: "==", cst.GreaterThan: "<=", cst.GreaterThanEqual: "<",
         cst.LessThan: ">=", cst.LessThanEqual: ">"}
_OPS = {cst.Equal: "==", cst.NotEqual: "!=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
        cst.LessThan: "<", cst.LessThanEqual: "<="}
Constraint = tuple[str, str, tuple[Any, ...]]


def conditions(test: cst.BaseExpression, negated: bool = False, names: dict[str, tuple[Any, ...]] | None = None,
               partial: bool = False) -> list[Constraint] | None:
    """What must hold, as (attribute chain, kind, values); None when the test cannot be read.

    With `partial`, the parts of a conjunction that cannot be read are dropped (what is left
    still rejects only what the whole rejects); `names` are the file's literal collections.
    """
    names = names or {}
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated, test = not negated, test.expression
    if isinstance(test, cst.BooleanOperation):
        return _both(test, negated, names, partial)
    chain = dotted(test)
    if chain is not None and "." in chain:
        return [(chain, "falsy" if negated else "truthy", ())]
    if isinstance(test, cst.Call):
        return _get_call(test, negated)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 2:
        return _chained(test, negated)
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    if isinstance(test.left, cst.BinaryOperation) and isinstance(test.left.operator, (cst.Modulo, cst.FloorDivide)):
        return _arithmetic(test.left, test.comparisons[0], negated)
    chain = dotted(test.left) or _got(test.left)
    if chain is None or "." not in chain:
        return None
    return _compared(chain, test.comparisons[0], negated, names)


def _both(test: cst.BooleanOperation, negated: bool, names: dict[str, tuple[Any, ...]],
          partial: bool) -> list[Constraint] | None:
    """assert a and b: both hold; `if not a or not b: raise`: both hold (De Morgan)."""
    splits = isinstance(test.operator, cst.And) != negated
    if not splits:
        return None
    left, right = conditions(test.left, negated, names, partial), conditions(test.right, negated, names, partial)
    if partial and (left or right):
        return (left or []) + (right or [])
    return None if left is None or right is None else left + right


def _arithmetic(left: cst.BinaryOperation, target: cst.ComparisonTarget, negated: bool) -> list[Constraint] | None:
    """`a % b == 0`: a is a multiple of b; `a // b > 0` (or `>= 1`): a holds b at least once."""
    lhs, rhs = dotted(left.left), dotted(left.right)
    if not (lhs and rhs and "." in lhs and "." in rhs):
        return None
    operator = target.operator
    if isinstance(left.operator, cst.Modulo):
        zero = literal(target.comparator)
        if zero == (True, 0) and isinstance(operator, cst.NotEqual if negated else cst.Equal):
            return [(lhs, "relation", ("multiple_of", rhs))]
        return None
    op = (_FLIP if negated else _OPS).get(type(operator))
    if (op, literal(target.comparator)) in ((">", (True, 0)), (">=", (True, 1))):
        return [(lhs, "relation", (">=", rhs))]
    return None


def _compared(chain: str, target: cst.ComparisonTarget, negated: bool,
              names: dict[str, tuple[Any, ...]]) -> list[Constraint] | None:
    """A config field compared with None, a collection, another field or a literal."""
    operator = target.operator
    if isinstance(operator, (cst.Is, cst.IsNot)):
        ok, value = literal(target.comparator)
        if not ok or value is not None:
            return None
        must_be_none = isinstance(operator, cst.Is) != negated
        return None if must_be_none else [(chain, "not_none", ())]
    if isinstance(operator, (cst.In, cst.NotIn)):
        allowed = collection(target.comparator, names)
        if isinstance(operator, cst.NotIn) != negated or allowed is None:
            return None
        return [(chain, "in", allowed)]
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


def _got(node: cst.BaseExpression) -> str | None:
    """`a.b.get("c", default)` as the chain `a.b.c`."""
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"
            and node.args and isinstance(node.args[0].value, cst.SimpleString)):
        inner = dotted(node.func.value)
        key = node.args[0].value.evaluated_value
        return f"{inner}.{key}" if inner and isinstance(key, str) and key.isidentifier() else None
    return None


def _get_call(test: cst.Call, negated: bool) -> list[Constraint] | None:
    chain = _got(test)
    return [(chain, "falsy" if negated else "truthy", ())] if chain and "." in chain else None


def _chained(test: cst.Comparison, negated: bool) -> list[Constraint] | None:
    """`lo < x <= hi` (both hold; `if not lo < x <= hi: raise` says the same)."""
    if negated:
        return None
    (first, second) = test.comparisons
    chain = dotted(first.comparator)
    ok_lo, lo = literal(test.left)
    ok_hi, hi = literal(second.comparator)
    lower = {cst.LessThan: ">", cst.LessThanEqual: ">="}.get(type(first.operator))
    upper = {cst.LessThan: "<", cst.LessThanEqual: "<="}.get(type(second.operator))
    if not (chain and "." in chain and ok_lo and ok_hi and lower and upper):
        return None
    return [(chain, "bound", (lower, lo)), (chain, "bound", (upper, hi))]


def reads_config(test: cst.BaseExpression) -> bool:
    """Does the test read a config field at all (worth saying it was not understood)?

    A chain counts when one of its segments names a config (`self.config.x`, `engine_config.y`):
    checks on runtime objects (`len(self.train_dataloader)`, `group.size()`) are not config checks.
    """
    found = False

    class Finder(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            nonlocal found
            chain = dotted(node) or ""
            if any(word in part.lower() for part in chain.split(".")[:-1] for word in CONFIG_WORDS):
                found = True

    test.visit(Finder())
    return found


_BINDS = frozenset({cst.Assign, cst.AnnAssign, cst.AugAssign})  # the small statements that bind a name


class _Bindings(cst.CSTVisitor):
    """The names one function binds (its nested functions and classes aside): `found` those bound once to a
    config field's chain, `seen` every name bound."""

    def __init__(self, function: cst.FunctionDef) -> None:
        super().__init__()
        self.function = function
        self.found: dict[str, cst.BaseExpression] = {}
        self.seen: set[str] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if entered(node):
            return super().on_visit(node)
        if type(node) in _BINDS:  # read; nothing inside it is
            super().on_visit(node)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.function

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if not isinstance(target, cst.Name):
            return
        value = _subscripted(value) if isinstance(value, cst.Subscript) else value
        chain = (dotted(value) or _got(value)) if value is not None else None
        if target.value in self.seen or chain is None or "." not in chain:
            self.found.pop(target.value, None)
        elif value is not None:
            self.found[target.value] = value
        self.seen.add(target.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value if len(node.targets) == 1 else None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, None)


def aliases(function: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Local names a function assigns once from a config field (`beta = config.loss.beta`,
    `n = cfg.get("n")`), so a check on the name reads the field; nested functions aside."""
    bindings = _Bindings(function)
    function.visit(bindings)
    found = bindings.found
    for param in function.params.params:
        found.pop(param.name.value, None)
    return found


def _subscripted(node: cst.Subscript) -> cst.BaseExpression | None:
    """`a.b["c"]` as the attribute chain `a.b.c` (a config node read by key)."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    name = key.evaluated_value if isinstance(key, cst.SimpleString) else None
    if not isinstance(name, str) or not name.isidentifier():
        return None
    return cst.Attribute(value=node.value, attr=cst.Name(name))


def substitute(test: cst.BaseExpression, names: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """The test with each aliased local name replaced by the field it was read from."""
    if not names:
        return test

    class Replace(cst.CSTTransformer):
        def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
            return names.get(original_node.value, updated_node)

        def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
            return updated_node.with_changes(attr=original_node.attr)  # only the object side is a local name

        def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
            return updated_node.with_changes(keyword=original_node.keyword)

    replaced = test.visit(Replace())
    assert isinstance(replaced, cst.BaseExpression)
    return replaced
