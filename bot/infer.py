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
    kind: str  # truthy | falsy | equals | in
    values: tuple[Any, ...] = ()
    text: str = ""
    message: str = ""

    def identity(self) -> tuple[object, ...]:
        return (self.cls, self.holder, self.field, self.kind, self.values)


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


def _condition(test: cst.BaseExpression) -> tuple[str, str, tuple[Any, ...]] | None:
    """(attribute chain, kind, values) for the checks that can be read off."""
    negated = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated, test = not negated, test.expression
    chain = _dotted(test)
    if chain is not None and "." in chain:
        return chain, "falsy" if negated else "truthy", ()
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and negated:
        return None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and not negated:
        target = test.comparisons[0]
        chain = _dotted(test.left)
        if chain is None or "." not in chain:
            return None
        if isinstance(target.operator, cst.Equal):
            ok, value = _literal(target.comparator)
            return (chain, "equals", (value,)) if ok else None
        if isinstance(target.operator, cst.In) and isinstance(target.comparator, (cst.Set, cst.List, cst.Tuple)):
            values = [_literal(e.value) for e in target.comparator.elements]
            return (chain, "in", tuple(v for _, v in values)) if all(ok for ok, _ in values) else None
    return None


def checks_in(source: str, path: str) -> tuple[list[Check], dict[str, dict[str, str]]]:
    """The checks of one file, and per class the annotations of its attributes and parameters."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return [], {}
    wrapper = cst.MetadataWrapper(module)
    positions = wrapper.resolve(PositionProvider)
    found: list[Check] = []
    types: dict[str, dict[str, str]] = {}

    class Visitor(cst.CSTVisitor):
        def __init__(self) -> None:
            self.classes: list[str] = []

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.classes.append(node.name.value)

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            self.classes.pop()

        def _note_type(self, name: str, annotation: cst.Annotation | None) -> None:
            if annotation is not None and self.classes:
                shown = _dotted(annotation.annotation)
                if shown:
                    types.setdefault(self.classes[-1], {})[name] = shown.rsplit(".", 1)[-1]

        def visit_Param(self, node: cst.Param) -> None:
            self._note_type(node.name.value, node.annotation)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            target = _dotted(node.target)
            if target:
                self._note_type(target.removeprefix("self."), node.annotation)

        def _add(self, node: cst.CSTNode, test: cst.BaseExpression, negate: bool, message: str) -> None:
            if negate:
                test = cst.UnaryOperation(operator=cst.Not(), expression=test)
            read = _condition(test)
            if read is None:
                return
            chain, kind, values = read
            holder, _, leaf = chain.rpartition(".")
            line = positions[node].start.line
            found.append(Check(path, line, self.classes[-1] if self.classes else None, holder, leaf, kind, values,
                               module.code_for_node(node).strip().splitlines()[0], message))

        def visit_Assert(self, node: cst.Assert) -> None:
            message = node.msg.evaluated_value if isinstance(node.msg, cst.SimpleString) else ""
            self._add(node, node.test, False, str(message or ""))

        def visit_If(self, node: cst.If) -> None:
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
            raises = any(isinstance(s, cst.SimpleStatementLine) and any(isinstance(x, cst.Raise) for x in s.body)
                         for s in body[:1])
            if raises:
                self._add(node, node.test, True, "")

    wrapper.visit(Visitor())
    return found, types


def new_checks(before: str | None, after: str, path: str) -> tuple[list[Check], dict[str, dict[str, str]]]:
    old = {c.identity() for c in checks_in(before, path)[0]} if before else set()
    checks, types = checks_in(after, path)
    return [c for c in checks if c.identity() not in old], types


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


def propose(commit: Any, checks: list[Check], types: dict[str, dict[str, str]]) -> list[Proposal]:
    proposals = []
    for check in checks:
        holder_attr = check.holder.rsplit(".", 1)[-1]
        # `self.field` in a config dataclass's __post_init__/validate: the class is the config itself
        class_name = check.cls if check.holder == "self" else types.get(check.cls or "", {}).get(holder_attr)
        if class_name is None:
            continue
        nodes = config_paths(commit, class_name)
        if not nodes:
            continue
        keys = [f"{node}.{check.field}" for node in nodes]
        match: dict[str, Any] = {"key": keys}
        fix: dict[str, Any] = {}
        confidence = "low"
        if check.kind == "truthy":
            match["value_not"], fix["set"], confidence = [True], True, "high"
        elif check.kind == "falsy":
            match["value_not"], fix["set"], confidence = [False], False, "high"
        elif check.kind == "equals":
            match["value_not"], fix["set"], confidence = list(check.values), check.values[0], "high"
        elif check.kind == "in":
            match["value_not"] = list(check.values)
        rule_id = f"inferred-{check.field.replace('_', '-')}"
        rule: dict[str, Any] = {
            "id": rule_id,
            "title": f"{class_name}.{check.field} is validated upstream",
            "description": f"Inferred from `{check.text}` in {check.path}:{check.line}"
                           + f" (commit {commit.hexsha[:12]})"
                           + (f": \"{check.message}\"" if check.message else "") + ".",
            "severity": "error",
            "match": match,
        }
        if fix:
            rule["fix"] = fix
        proposals.append(Proposal(rule, confidence, check, keys))
    return proposals


def equivalent(proposal: Proposal, existing: list[Any]) -> str | None:
    """The id of an existing rule that already covers every key with the same fix, if any."""
    from bot.globs import any_match

    wanted = proposal.rule.get("fix", {}).get("set")
    for rule in existing:
        if rule.fix is None or not rule.fix.has_set or rule.fix.set != wanted:
            continue
        if all(any_match(list(rule.match_key), key) and not any_match(list(rule.match_exclude), key)
               for key in proposal.keys):
            return str(rule.id)
    return None


def infer(root: Path, before: str, after: str, existing: list[Any]) -> tuple[list[Proposal], list[str]]:
    """Proposals from the Python files the change edits, and the ids of rules that already cover some."""
    import git

    repo = git.Repo(root)
    old, new = repo.commit(before), repo.commit(after)
    proposals: list[Proposal] = []
    covered: list[str] = []
    for diff in old.diff(new):
        path = diff.b_path or ""
        if not path.endswith(".py") or diff.deleted_file:
            continue
        after_text = new.tree[path].data_stream.read().decode("utf-8", "replace")
        before_text = None if diff.new_file or not diff.a_path else old.tree[diff.a_path].data_stream.read().decode(
            "utf-8", "replace")
        checks, types = new_checks(before_text, after_text, path)
        for proposal in propose(new, checks, types):
            same = equivalent(proposal, existing)
            if same is not None:
                covered.append(same)
            else:
                proposals.append(proposal)
    return proposals, covered
