"""Propose rules from validation code an upstream change adds (libcst; nothing is imported).

A new `assert self.engine_config.use_mbridge` (or `if not ...: raise`) in a class whose
`engine_config` is typed `McoreEngineConfig` says: every config node whose `_target_` names
McoreEngineConfig must set `use_mbridge` truthy. The bot maps the field to the Hydra key paths
of those nodes in the repository's YAML and proposes a format-v1 rule with its provenance.
Only checks that are new after the change count; moved, loosened or removed checks yield nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider


@dataclass(frozen=True)
class Check:
    path: str
    line: int
    cls: str | None
    holder: str  # the attribute chain holding the field, e.g. "self.engine_config"
    field: str
    kind: str  # truthy | falsy | equals | not_equals | in | not_none | bound | relation
    values: tuple[Any, ...] = ()  # bound: (op, number); relation: (op, other field)
    text: str = ""
    message: str = ""
    guard: str = ""  # the condition under which the check runs (`if a: assert b`, an early return)
    guard_reads: tuple[tuple[str, str, tuple[Any, ...]], ...] | None = ()  # the guard as constraints

    def identity(self) -> tuple[object, ...]:
        return (self.cls, self.holder, self.field, self.kind, self.values, self.guard)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def subject(self) -> tuple[object, ...]:
        return (self.cls, self.holder, self.field)


@dataclass(frozen=True)
class NotUnderstood:
    """A new check on a config field whose condition the bot cannot read as a rule."""

    path: str
    line: int
    text: str
    message: str
    reason: str

    def describe(self) -> str:
        said = f' ("{self.message}")' if self.message else ""
        return f"{self.path}:{self.line}: validation changed, not understood: `{self.text}`{said}: {self.reason}"


@dataclass
class Proposal:
    rule: dict[str, Any]
    confidence: str  # high | low
    check: Check
    keys: list[str] = field(default_factory=list)


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    return None


def _literal(node: cst.BaseExpression) -> tuple[bool, Any]:
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


def _conditions(test: cst.BaseExpression, negated: bool = False) -> list[Constraint] | None:
    """What must hold, as (attribute chain, kind, values); None when the test cannot be read."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated, test = not negated, test.expression
    if isinstance(test, cst.BooleanOperation):
        # assert a and b: both hold; `if not a or not b: raise`: both hold (De Morgan)
        splits = isinstance(test.operator, cst.And) != negated
        if not splits:
            return None
        left, right = _conditions(test.left, negated), _conditions(test.right, negated)
        return None if left is None or right is None else left + right
    chain = _dotted(test)
    if chain is not None and "." in chain:
        return [(chain, "falsy" if negated else "truthy", ())]
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    operator = target.operator
    if isinstance(test.left, cst.BinaryOperation) and isinstance(test.left.operator, cst.Modulo):
        # a % b == 0: a is a multiple of b
        lhs, rhs = _dotted(test.left.left), _dotted(test.left.right)
        zero = _literal(target.comparator)
        if (lhs and rhs and "." in lhs and "." in rhs and zero == (True, 0)
                and isinstance(operator, cst.NotEqual if negated else cst.Equal)):
            return [(lhs, "relation", ("multiple_of", rhs))]
        return None
    chain = _dotted(test.left)
    if chain is None or "." not in chain:
        return None
    if isinstance(operator, (cst.Is, cst.IsNot)):
        ok, value = _literal(target.comparator)
        if not ok or value is not None:
            return None
        must_be_none = isinstance(operator, cst.Is) != negated
        return None if must_be_none else [(chain, "not_none", ())]
    if isinstance(operator, (cst.In, cst.NotIn)):
        if isinstance(operator, cst.NotIn) != negated or not isinstance(
                target.comparator, (cst.Set, cst.List, cst.Tuple)):
            return None
        values = [_literal(e.value) for e in target.comparator.elements]
        return [(chain, "in", tuple(v for _, v in values))] if all(ok for ok, _ in values) else None
    op = (_FLIP if negated else _OPS).get(type(operator))
    if op is None:
        return None
    other = _dotted(target.comparator)
    if other is not None and "." in other:
        return [(chain, "relation", (op, other))]
    ok, value = _literal(target.comparator)
    if not ok:
        return None
    if op == "==":
        return [(chain, "equals", (value,))]
    if op == "!=":
        return [(chain, "not_equals", (value,))]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [(chain, "bound", (op, value))]
    return None


def _reads_config(test: cst.BaseExpression) -> bool:
    """Does the test read a config field at all (worth saying it was not understood)?"""
    found = False

    class Finder(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            nonlocal found
            chain = _dotted(node) or ""
            if chain.startswith(("self.", "config.", "cfg.")) or ".config." in chain or "_config." in chain:
                found = True

    test.visit(Finder())
    return found


def _is_exit(statement: cst.BaseStatement, kinds: tuple[type, ...]) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(isinstance(x, kinds) for x in statement.body)


def checks_in(source: str, path: str) -> tuple[list[Check], dict[str, dict[str, str]], list[NotUnderstood]]:
    """The checks of one file, per class the annotations of its attributes, and checks not understood."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return [], {}, []
    wrapper = cst.MetadataWrapper(module)
    positions = wrapper.resolve(PositionProvider)
    found: list[Check] = []
    unread: list[NotUnderstood] = []
    types: dict[str, dict[str, str]] = {}

    def shown(node: cst.CSTNode) -> str:
        return module.code_for_node(node).strip().splitlines()[0]

    class Visitor(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.classes: list[str] = []
            self.guards: list[tuple[str, list[Constraint] | None]] = []
            self.after_return: dict[int, tuple[str, list[Constraint] | None]] = {}  # after an early return

        def on_visit(self, node: cst.CSTNode) -> bool:
            guard = self.after_return.get(id(node))
            if guard is not None:
                self.guards.append(guard)
            return super().on_visit(node)

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if id(original_node) in self.after_return:
                self.guards.pop()
            super().on_leave(original_node)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.classes.append(node.name.value)

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            self.classes.pop()

        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            guard: tuple[str, list[Constraint] | None] | None = None
            for statement in node.body:
                if guard is not None:
                    self.after_return[id(statement)] = guard
                if (isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock)
                        and statement.orelse is None and statement.body.body
                        and all(_is_exit(s, (cst.Return, cst.Continue)) for s in statement.body.body[-1:])):
                    guard = (f"not ({module.code_for_node(statement.test)})", _conditions(statement.test, True))

        def _note_type(self, name: str, annotation: cst.Annotation | None) -> None:
            if annotation is not None and self.classes:
                type_name = _dotted(annotation.annotation)
                if type_name:
                    types.setdefault(self.classes[-1], {})[name] = type_name.rsplit(".", 1)[-1]

        def visit_Param(self, node: cst.Param) -> None:
            self._note_type(node.name.value, node.annotation)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            target = _dotted(node.target)
            if target:
                self._note_type(target.removeprefix("self."), node.annotation)

        def _add(self, node: cst.CSTNode, test: cst.BaseExpression, negate: bool, message: str) -> None:
            read = _conditions(test, negate)
            line = positions[node].start.line
            if read is None:
                if _reads_config(test):
                    unread.append(NotUnderstood(path, line, shown(node), message,
                                                "the condition is not one the bot can turn into a rule"))
                return
            active = [g for g in self.guards if g[0]]
            guard = " and ".join(text for text, _ in active)
            guard_reads: tuple[Constraint, ...] | None = ()
            for _, reads in active:
                guard_reads = None if reads is None or guard_reads is None else (*guard_reads, *reads)
            for chain, kind, values in read:
                holder, _, leaf = chain.rpartition(".")
                found.append(Check(path, line, self.classes[-1] if self.classes else None, holder, leaf, kind,
                                   values, shown(node), message, guard, guard_reads))

        def visit_Assert(self, node: cst.Assert) -> None:
            message = node.msg.evaluated_value if isinstance(node.msg, cst.SimpleString) else ""
            self._add(node, node.test, False, str(message or ""))

        def visit_If(self, node: cst.If) -> None:
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
            if body and _is_exit(body[0], (cst.Raise,)):
                self._add(node, node.test, True, _raise_message(body[0]))

        def visit_If_body(self, node: cst.If) -> None:
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
            raises = bool(body) and _is_exit(body[0], (cst.Raise,))
            self.guards.append(("", []) if raises else (module.code_for_node(node.test), _conditions(node.test)))

        def leave_If_body(self, node: cst.If) -> None:
            self.guards.pop()

        def visit_If_orelse(self, node: cst.If) -> None:
            self.guards.append((f"not ({module.code_for_node(node.test)})", _conditions(node.test, True)))

        def leave_If_orelse(self, node: cst.If) -> None:
            self.guards.pop()

    wrapper.visit(Visitor())
    return found, types, unread


def _raise_message(statement: cst.BaseStatement) -> str:
    assert isinstance(statement, cst.SimpleStatementLine)
    for item in statement.body:
        if isinstance(item, cst.Raise) and isinstance(item.exc, cst.Call) and item.exc.args:
            first = item.exc.args[0].value
            if isinstance(first, cst.SimpleString):
                return str(first.evaluated_value)
    return ""


def _allowed(check: Check) -> set[Any] | None:
    """The values a check lets through, where that is a small set (to tell stricter from looser)."""
    if check.kind == "truthy":
        return {True}
    if check.kind == "falsy":
        return {False}
    if check.kind == "equals":
        return set(check.values)
    if check.kind == "in":
        return set(check.values)
    return None


def compare(new: Check, old: list[Check]) -> str:
    """new | same | stricter | looser | changed: the new check against the old ones on the same field."""
    if not old:
        return "new"
    if any(o.identity() == new.identity() for o in old):
        return "same"
    allowed = _allowed(new)
    before = [_allowed(o) for o in old if o.guard == new.guard]
    if allowed is not None and before and all(b is not None for b in before):
        union = set().union(*[b for b in before if b is not None])
        if allowed < union:
            return "stricter"
        return "looser" if allowed >= union else "changed"
    if new.kind == old[0].kind == "bound" and new.values[0] == old[0].values[0] and len(old) == 1:
        op, limit = new.values
        old_limit = old[0].values[1]
        tighter = limit > old_limit if op in (">", ">=") else limit < old_limit if op in ("<", "<=") else False
        return "stricter" if tighter else "looser"
    return "changed"


def config_paths(commit: Any, class_name: str) -> list[str]:
    """Dotted paths of YAML nodes whose `_target_` names `class_name`, in the configs of `commit`."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    out: list[str] = []

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, dict):
            target = node.get("_target_")
            if isinstance(target, str) and target.rsplit(".", 1)[-1] == class_name and prefix:
                out.append(prefix)
            for key, value in node.items():
                if isinstance(key, str) and key != "defaults":
                    walk(value, f"{prefix}.{key}" if prefix else key)

    for blob in commit.tree.traverse():
        if blob.type != "blob" or not str(blob.path).endswith((".yaml", ".yml")):
            continue
        try:
            walk(yaml.load(blob.data_stream.read().decode("utf-8")), "")
        except Exception:  # a YAML file the bot cannot read proposes nothing
            continue
    return sorted(set(out))


def _class_of(check: Check, types: dict[str, dict[str, str]]) -> str | None:
    holder_attr = check.holder.rsplit(".", 1)[-1]
    # `self.field` in a config dataclass's __post_init__/validate: the class is the config itself
    return check.cls if check.holder == "self" else types.get(check.cls or "", {}).get(holder_attr)


def _match_and_fix(check: Check, keys: list[str]) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(match or relation section, fix, confidence) for the check's kind."""
    if check.kind == "truthy":
        return {"match": {"key": keys, "value_not": [True]}}, {"set": True}, "high"
    if check.kind == "falsy":
        return {"match": {"key": keys, "value_not": [False]}}, {"set": False}, "high"
    if check.kind == "equals":
        return {"match": {"key": keys, "value_not": list(check.values)}}, {"set": check.values[0]}, "high"
    if check.kind == "in":
        return {"match": {"key": keys, "value_not": list(check.values)}}, {}, "low"
    if check.kind == "not_equals":
        return {"match": {"key": keys, "value": list(check.values)}}, {}, "low"
    if check.kind == "not_none":
        return {"match": {"key": keys, "value": [None]}}, {}, "low"
    op, other = check.values
    if check.kind == "bound":
        return {"relation": {"left": keys, "op": op, "value": other}}, {}, "low"
    return {"relation": {"left": keys, "op": op, "right": str(other).rsplit(".", 1)[-1]}}, {}, "low"


def _guard_condition(check: Check, nodes: list[str]) -> dict[str, Any] | None:
    """`when.value` for a guard that reads the same config node, when there is one node; else None."""
    if not check.guard_reads or len(nodes) != 1:
        return None
    values: dict[str, Any] = {}
    for chain, kind, read in check.guard_reads:
        holder, _, leaf = chain.rpartition(".")
        if holder != check.holder:
            return None
        if kind == "truthy":
            values[f"{nodes[0]}.{leaf}"] = True
        elif kind == "falsy":
            values[f"{nodes[0]}.{leaf}"] = False
        elif kind == "equals":
            values[f"{nodes[0]}.{leaf}"] = read[0]
        else:
            return None
    return values


def propose(commit: Any, checks: list[Check], types: dict[str, dict[str, str]]
            ) -> tuple[list[Proposal], list[NotUnderstood]]:
    proposals: list[Proposal] = []
    unread: list[NotUnderstood] = []
    for check in checks:
        class_name = _class_of(check, types)
        if class_name is None:
            unread.append(NotUnderstood(check.path, check.line, check.text, check.message,
                                        f"the type of {check.holder} is not written where the bot can read it"))
            continue
        nodes = config_paths(commit, class_name)
        if not nodes:
            unread.append(NotUnderstood(check.path, check.line, check.text, check.message,
                                        f"no config node has _target_ {class_name}"))
            continue
        if check.kind == "relation" and str(check.values[1]).rpartition(".")[0] != check.holder:
            unread.append(NotUnderstood(check.path, check.line, check.text, check.message,
                                        "the check relates fields of two different objects"))
            continue
        keys = [f"{node}.{check.field}" for node in nodes]
        section, fix, confidence = _match_and_fix(check, keys)
        rule_id = f"inferred-{check.field.replace('_', '-')}"
        if check.kind in ("relation", "bound"):
            rule_id += "-relation"
        description = (f"Inferred from `{check.text}` in {check.path}:{check.line} (commit {commit.hexsha[:12]})"
                       + (f": \"{check.message}\"" if check.message else "") + ".")
        rule: dict[str, Any] = {"id": rule_id, "title": f"{class_name}.{check.field} is validated upstream",
                                "description": description, "severity": "error", **section}
        if check.guard:
            confidence = "low"
            rule["description"] += f" The check runs only when `{check.guard}`."
            when = _guard_condition(check, nodes)
            if when is not None:
                rule["when"] = {"value": when}
        if fix:
            rule["fix"] = fix
        proposals.append(Proposal(rule, confidence, check, keys))
    return proposals, unread


def equivalent(proposal: Proposal, existing: list[Any]) -> str | None:
    """The id of an existing rule that already covers every key with the same fix, if any."""
    from bot.rules.globs import any_match

    wanted = proposal.rule.get("fix", {}).get("set")
    for rule in existing:
        if rule.fix is None or not rule.fix.has_set or rule.fix.set != wanted:
            continue
        if all(any_match(list(rule.match_key), key) and not any_match(list(rule.match_exclude), key)
               for key in proposal.keys):
            return str(rule.id)
    return None


@dataclass
class Inference:
    proposals: list[Proposal] = field(default_factory=list)
    covered: list[str] = field(default_factory=list)  # ids of existing rules that already cover a check
    not_understood: list[NotUnderstood] = field(default_factory=list)
    unchanged: int = 0  # checks that moved or stayed as they were
    loosened: int = 0  # checks that let more through than before: no rule


def _checks(source: str, path: str) -> tuple[list[Check], dict[str, dict[str, str]], list[NotUnderstood]]:
    """`checks_in`, with a file that fails or takes too long reported as not understood."""
    from bot.engine.isolation import isolated

    found, error = isolated(path, "reading its checks", lambda: checks_in(source, path))
    if found is None:
        assert error is not None
        return [], {}, [NotUnderstood(path, 0, "", "", error.reason)]
    return found


def infer(root: Path, before: str, after: str, existing: list[Any]) -> Inference:
    """Proposals from the Python files the change edits; checks are compared across all of them,
    so a check moved from one file to another is not new."""
    import git

    repo = git.Repo(root)
    old, new = repo.commit(before), repo.commit(after)
    old_checks: list[Check] = []
    candidates: list[tuple[list[Check], dict[str, dict[str, str]]]] = []
    result = Inference()
    for diff in old.diff(new):
        path = diff.b_path or ""
        if diff.a_path and diff.a_path.endswith(".py") and not diff.new_file:
            text = old.tree[diff.a_path].data_stream.read().decode("utf-8", "replace")
            old_checks.extend(_checks(text, diff.a_path)[0])
        if not path.endswith(".py") or diff.deleted_file:
            continue
        checks, types, unread = _checks(new.tree[path].data_stream.read().decode("utf-8", "replace"), path)
        candidates.append((checks, types))
        result.not_understood.extend(unread)
    old_identities = {c.identity() for c in old_checks}
    old_unread: set[str] = set()
    for diff in old.diff(new):
        if diff.a_path and diff.a_path.endswith(".py") and not diff.new_file:
            text = old.tree[diff.a_path].data_stream.read().decode("utf-8", "replace")
            old_unread.update(u.text for u in _checks(text, diff.a_path)[2])
    result.not_understood = [u for u in result.not_understood if u.text not in old_unread]
    for checks, types in candidates:
        fresh = []
        for check in checks:
            verdict = "same" if check.identity() in old_identities else compare(
                check, [o for o in old_checks if o.subject() == check.subject()])
            if verdict == "same":
                result.unchanged += 1
            elif verdict == "looser":
                result.loosened += 1
            elif verdict == "changed":
                result.not_understood.append(NotUnderstood(check.path, check.line, check.text, check.message,
                                                           "the check on this field changed shape"))
            else:
                fresh.append(check)
        proposals, unread = propose(new, fresh, types)
        result.not_understood.extend(unread)
        for proposal in proposals:
            same = equivalent(proposal, existing)
            if same is not None:
                result.covered.append(same)
            else:
                result.proposals.append(proposal)
    return result
