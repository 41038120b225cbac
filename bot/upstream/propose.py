"""Format-v1 rules proposed from new checks: the config nodes a check's class maps to, match and fix."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.upstream.check import CONFIG_WORDS, Check, NotUnderstood
from bot.upstream.flow import Flow, holder_paths, is_test_path
from bot.upstream.reach import AppReach
from bot.upstream.sources import text_of, too_large


@dataclass
class Proposal:
    rule: dict[str, Any]
    confidence: str  # high | low
    check: Check
    keys: list[str] = field(default_factory=list)
    earlier: Check | None = None  # the check before the change that this one makes stricter


INTERPOLATION = re.compile(r"\$\{(?:oc\.select:)?([\w.]+)")


def config_targets(commit: Any, follows: dict[str, set[str]] | None = None) -> dict[str, list[str]]:
    """Class name -> dotted paths of the YAML nodes whose `_target_` names it, in the configs of `commit`;
    `follows` gets, per key, the keys whose value is by default that key's (`b: ${oc.select:a,False}`)."""
    from bot.hydra.config_files import parse_yaml

    out: dict[str, set[str]] = {}

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, dict):
            target = node.get("_target_")
            if isinstance(target, str) and prefix:
                out.setdefault(target.rsplit(".", 1)[-1], set()).add(prefix)
            for key, value in node.items():
                if isinstance(key, str) and key != "defaults":
                    walk(value, f"{prefix}.{key}" if prefix else key)
        elif isinstance(node, str) and follows is not None and "." in prefix:
            source = INTERPOLATION.match(node.strip())
            if source and source.group(1).rsplit(".", 1)[-1] == prefix.rsplit(".", 1)[-1]:
                follows.setdefault(source.group(1), set()).add(prefix)

    for blob in commit.tree.traverse():
        if blob.type != "blob" or not str(blob.path).endswith((".yaml", ".yml")) or is_test_path(str(blob.path)) \
                or too_large(blob):
            continue
        data = blob.data_stream.read()
        if b"_target_" not in data:
            continue
        walk(parse_yaml(data), "")  # a YAML file the bot cannot read (None) proposes nothing
    return {name: sorted(paths) for name, paths in out.items()}


class Places:
    """Where the object a check reads lives in the Hydra config of one commit (computed once, lazily)."""

    def __init__(self, commit: Any) -> None:
        self.commit = commit
        self._targets: dict[str, list[str]] | None = None
        self.follows: dict[str, set[str]] = {}
        self._flow: Flow | None = None
        self._sources: dict[str, str] | None = None
        self._reach: AppReach | None = None

    @property
    def targets(self) -> dict[str, list[str]]:
        if self._targets is None:
            self._targets = config_targets(self.commit, self.follows)
        return self._targets

    @property
    def sources(self) -> dict[str, str]:
        """The commit's Python files outside tests (path -> text)."""
        if self._sources is None:
            self._sources = {}
            for blob in self.commit.tree.traverse():
                path = str(blob.path)
                if blob.type == "blob" and path.endswith(".py") and not is_test_path(path) and not too_large(blob):
                    self._sources[path] = text_of(blob)
        return self._sources

    @property
    def flow(self) -> Flow:
        if self._flow is None:
            self._flow = Flow(self.sources, self.targets)
        return self._flow

    @property
    def reach(self) -> AppReach:
        if self._reach is None:
            self._reach = AppReach(self.sources)
        return self._reach

    def through_targets(self, check: Check, types: dict[str, dict[str, str]]) -> bool:
        """Whether the check's nodes are those whose `_target_` names its class (a config the app's own YAML
        chooses, so no entry point's imports need to say where it runs)."""
        class_name = _class_of(check, types)
        return class_name is not None and bool(self.targets.get(class_name))

    def nodes(self, check: Check, holder: str | None = None, types: dict[str, dict[str, str]] | None = None
              ) -> list[str]:
        """The Hydra paths of `holder` (default: the check's) where the check runs."""
        holder = check.holder if holder is None else holder
        if types is not None and holder == check.holder:
            class_name = _class_of(check, types)
            if class_name is not None and self.targets.get(class_name):
                return list(self.targets[class_name])
        return sorted(holder_paths(self.flow, holder, check.cls, check.func))


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


HINT = re.compile(r"`?((?:[A-Za-z_][\w]*\.)*[A-Za-z_][\w]*)\s*=\s*([\w.\-/]+)`?")


def message_fix(check: Check) -> Any:
    """The value the check's own message tells the user to set its field to (`Please set
    `actor_rollout_ref.rollout.mode=async``), where it is one the check lets through; None otherwise."""
    if check.kind not in ("not_equals", "in", "not_none") or not check.message:
        return None
    hinted = [value for key, value in HINT.findall(check.message) if key.rpartition(".")[2] == check.field]
    if len(set(hinted)) != 1:
        return None
    value: Any = _scalar(hinted[0])
    if check.kind == "not_equals" and value in check.values:
        return None
    if check.kind == "in" and value not in check.values:
        return None
    return None if value is None else value


def _scalar(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "none"):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


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


def _describe(check: Check, commit: Any, nodes: list[str], earlier: Check | None, followers: list[str]) -> str:
    text = (f"Inferred from `{check.text}` in {check.path}:{check.line} (commit {commit.hexsha[:12]})"
            + (f": \"{check.message}\"" if check.message else "") + ".")
    text += f" The checked object lives at {', '.join(f'`{n}`' for n in nodes[:6])}" + (
        ", ..." if len(nodes) > 6 else "") + "."
    if followers and check.kind in ("truthy", "falsy", "equals"):
        text += (f" {', '.join(f'`{f}`' for f in followers)} take their value from a checked key by default "
                 "(a YAML interpolation), so the rule sets them alike.")
    if earlier is not None:
        text += (f" Before the change, `{earlier.text}` ({earlier.where}) already rejected these only when "
                 f"`{earlier.guard}`; now every configuration it names is rejected.")
    else:
        text += " Before the change no check rejected these."
    return text


def _config_like(holder: str) -> bool:
    return any(word in part.lower() for part in holder.split(".") for word in CONFIG_WORDS)


def _where_it_runs(rule: dict[str, Any], check: Check, nodes: list[str], places: Places,
                   types: dict[str, dict[str, str]]) -> None:
    """The rule's `when`: the check's guard, as a value of the same node where it reads one, and the module
    the check is in, where only some of the apps load it."""
    if check.guard:
        rule["description"] += f" The check runs only when `{check.guard}`."
        when = _guard_condition(check, nodes)
        if when is not None:
            rule["when"] = {"value": when}
    scoped = None if places.through_targets(check, types) else places.reach.scope(check.path)
    if scoped is not None:  # it runs only for launches whose entry point loads its module
        rule.setdefault("when", {})["imports"] = [scoped]
        rule["description"] += f" Only apps that load `{scoped}` run it."


def propose(places: Places, checks: list[tuple[Check, Check | None]], types: dict[str, dict[str, str]]
            ) -> tuple[list[Proposal], list[NotUnderstood]]:
    """Rules for new or stricter checks (each with the earlier check it tightens, if any)."""
    commit = places.commit
    proposals: list[Proposal] = []
    unread: list[NotUnderstood] = []
    for check, earlier in checks:
        nodes = places.nodes(check, types=types)
        if not nodes:
            if _config_like(check.holder) or (check.holder == "self" and "config" in (check.cls or "").lower()):
                unread.append(NotUnderstood(check.path, check.line, check.text, check.message,
                                            f"no Hydra path reaches {check.holder} in {check.cls or check.func}"))
            continue  # a runtime object, not a config: said nothing
        right_key = None
        if check.kind == "relation":
            other_holder, _, other_leaf = str(check.values[1]).rpartition(".")
            if other_holder != check.holder:
                others = places.nodes(check, other_holder)
                if len(others) != 1:
                    unread.append(NotUnderstood(check.path, check.line, check.text, check.message,
                                                f"no single Hydra path reaches {other_holder}"))
                    continue
                right_key = f"{others[0]}.{other_leaf}"
        keys = [f"{node}.{check.field}" if node else check.field for node in nodes]  # "": the root
        found = {f for key in keys for f in places.follows.get(key, set())} - set(keys)
        # a group file read on its own names a node relative to where it is composed: keep the full path
        followers = sorted(f for f in found if not any(o.endswith("." + f) for o in found | set(keys)))
        if check.kind in ("truthy", "falsy", "equals") and followers:
            keys += followers  # set from the same launch variable, they would break the check when they diverge
        section, fix, confidence = _match_and_fix(check, keys)
        hinted = message_fix(check) if not fix else None
        if hinted is not None:  # the check's message names the fix: a second source beside the check itself
            fix, confidence = {"set": hinted}, "high"
        if right_key is not None:
            section["relation"]["right"] = right_key
        rule_id = "inferred-" + re.sub(r"[^a-z0-9.-]+", "-", check.field.lower()).strip("-")
        if check.kind in ("relation", "bound"):
            rule_id += "-relation"
        class_name = check.cls or check.func or "config"
        rule: dict[str, Any] = {"id": rule_id, "title": f"{class_name}: {check.field} is validated upstream",
                                "description": _describe(check, commit, nodes, earlier, followers),
                                "severity": "error",
                                **section}
        if check.guard:
            confidence = "low"
        _where_it_runs(rule, check, nodes, places, types)
        if hinted is not None:
            rule["description"] += f" Its message says to set `{check.field}` to `{hinted}`; the fix does."
        if fix:
            rule["fix"] = fix
        proposals.append(Proposal(rule, confidence, check, keys, earlier))
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
