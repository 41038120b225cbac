"""Format-v1 rules proposed from new checks: the config nodes a check's class maps to, match and fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.upstream.checks import Check, NotUnderstood


@dataclass
class Proposal:
    rule: dict[str, Any]
    confidence: str  # high | low
    check: Check
    keys: list[str] = field(default_factory=list)


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
