"""Rules x settings written outside shell: YAML config keys, override strings in Python lists.

A source kind that is not shell turns a file into groups of `Setting`s (one group plays the part
of a launch: a YAML document, one `compose(overrides=[...])` list) and realises the abstract
`Action`s planned here as byte edits in its own syntax. Rule semantics (which key, which value,
what the fix writes, when an ensure entry is missing) stay the same as for shell launches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.hydra.grammar import bool_style, format_value, values_equal
from bot.model import Edit, Finding, Span, Status
from bot.rules.globs import any_match
from bot.rules.model import EnsureEntry, Rule


@dataclass
class Setting:
    key: str  # the full Hydra key path
    prefix: str  # "", "+", "++" or "~" (always "" in YAML)
    text: str | None  # the value as written (None: `~key` or a mapping)
    value: Any
    state: str  # static | dynamic | invalid | none | mapping
    line: int
    column: int
    reason: str = ""  # why a dynamic or invalid value cannot be read
    handle: Any = None  # the source kind's own reference to the written setting


@dataclass
class SettingGroup:
    """What one launch is for shell: the settings that end up in one composed config."""

    settings: list[Setting]
    line: int
    column: int
    entry: str | None = None  # the module launched, when known
    label: str = "config"  # how a finding names it: "config", "launch of verl.trainer.main_ppo"
    handle: Any = None


@dataclass
class Action:
    """One change a kind writes in its own syntax."""

    kind: str  # value | key | prefix | remove | insert
    setting: Setting | None  # what is changed; for insert: the group's anchor, if any
    text: str = ""  # new value text (Hydra form), new key, new prefix
    entry: EnsureEntry | None = None
    value: Any = None  # the new value itself (value and insert)
    prefix: str = ""  # insert: the prefix to write


Realise = Callable[[list[Action], SettingGroup], "list[tuple[Span, str]] | str"]


def group_applies(rule: Rule, group: SettingGroup) -> bool:
    if rule.when_config or rule.when_value:
        return False  # composed-config conditions are read only for shell launches
    if rule.when_entrypoint and not (group.entry and any_match(list(rule.when_entrypoint), group.entry)):
        return False
    keys = [s.key for s in group.settings if s.prefix != "~"]
    if rule.when_sets and not any(any_match(list(rule.when_sets), k) for k in keys):
        return False
    return not (rule.when_unset and any(any_match(list(rule.when_unset), k) for k in keys))


def key_matches(rule: Rule, setting: Setting) -> bool:
    if not any_match(list(rule.match_key), setting.key):
        return False
    if rule.match_exclude and any_match(list(rule.match_exclude), setting.key):
        return False
    if rule.match_prefix is not None and setting.prefix not in rule.match_prefix:
        return False
    value_test = rule.match_value is not None or rule.match_value_not is not None
    value_fix = rule.fix is not None and (rule.fix.has_set or bool(rule.fix.map))
    if setting.state == "mapping" and (value_test or value_fix):
        return False  # a value rule is about a leaf, never a whole subtree
    return not (value_test and setting.prefix == "~")


def value_matches(rule: Rule, setting: Setting) -> bool | None:
    """True, False, or None when the file does not say (an interpolation, a computed value)."""
    fix = rule.fix
    if (fix is not None and fix.has_set and not fix.rename and fix.prefix is None and setting.state == "static"
            and values_equal(fix.set, setting.value)):
        return False
    needs_value = fix is not None and bool(fix.map)
    if rule.match_value is None and rule.match_value_not is None and not needs_value:
        return True
    if rule.match_value is None and rule.match_value_not is None:
        return None if setting.state in ("dynamic", "invalid") else setting.state != "none"
    if setting.state == "none":
        return False
    if setting.state != "static":
        return None
    ok = True
    if rule.match_value is not None:
        ok = any(values_equal(v, setting.value) for v in rule.match_value)
    if ok and rule.match_value_not is not None:
        ok = not any(values_equal(v, setting.value) for v in rule.match_value_not)
    return ok


def new_value(rule: Rule, setting: Setting) -> tuple[bool, Any]:
    assert rule.fix is not None
    if rule.fix.has_set:
        return True, rule.fix.set
    for old, new in rule.fix.map:
        if setting.state == "static" and values_equal(old, setting.value):
            return True, new
    return False, None


def renamed_key(rule: Rule, key: str) -> str:
    assert rule.fix is not None and rule.fix.rename is not None
    rename = rule.fix.rename
    if "." in rename or "." not in key:
        return rename
    return key.rsplit(".", 1)[0] + "." + rename


class SettingsEvaluator:
    def __init__(self, path: str, groups: list[SettingGroup], realise: Realise) -> None:
        self.path = path
        self.groups = groups
        self.realise = realise

    def finding(self, rule: Rule, line: int, column: int, key: str, value: str | None, message: str) -> Finding:
        return Finding(rule=rule.id, path=self.path, line=line, column=column, key=key, value=value,
                       status=Status.FIXABLE, message=message, severity=rule.severity)

    def manual(self, finding: Finding, reason: str) -> Finding:
        finding.status = Status.MANUAL
        finding.message = f"{finding.message}; {reason}" if finding.message else reason
        finding.edits = []
        finding.fix_site = None
        return finding

    def attach(self, finding: Finding, rule: Rule, actions: list[Action], group: SettingGroup,
               words: str) -> None:
        result = self.realise(actions, group)
        if isinstance(result, str):
            self.manual(finding, result)
            return
        finding.edits = [Edit(self.path, span, text, rule.id) for span, text in result]
        if finding.edits:
            finding.fix_site = (self.path, finding.line)
        if words:
            finding.message = f"{finding.message}; {words}"

    def match_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        for group in self.groups:
            if not group_applies(rule, group):
                continue
            for setting in group.settings:
                if not key_matches(rule, setting):
                    continue
                verdict = value_matches(rule, setting)
                if verdict is False:
                    continue
                finding = self.finding(rule, setting.line, setting.column, setting.key, setting.text,
                                       self.describe(setting))
                findings.append(finding)
                if verdict is None:
                    finding.value = None
                    self.manual(finding, "a person must check it")
                    continue
                self.plan_fix(rule, finding, setting, group)
        return findings

    @staticmethod
    def describe(setting: Setting) -> str:
        shown = f"{setting.prefix}{setting.key}"
        if setting.state == "dynamic":
            return f"{shown} is set at run time, {setting.reason}"
        if setting.state == "invalid":
            return f"{shown}={setting.text}: {setting.reason}"
        if setting.state == "none":
            return f"{shown} deletes the key"
        if setting.state == "mapping":
            return f"{shown} is a mapping"
        return f"{shown} is {setting.text}"

    def plan_fix(self, rule: Rule, finding: Finding, setting: Setting, group: SettingGroup) -> None:
        fix = rule.fix
        if fix is None:
            self.manual(finding, "the rule reports this without a fix")
            return
        if fix.remove:
            self.attach(finding, rule, [Action("remove", setting)], group, "removed")
            return
        actions: list[Action] = []
        words: list[str] = []
        if fix.rename:
            new_key = renamed_key(rule, setting.key)
            actions.append(Action("key", setting, new_key))
            words.append(f"renamed to {new_key}")
        if fix.prefix is not None and fix.prefix != setting.prefix:
            actions.append(Action("prefix", setting, fix.prefix))
            words.append(f"prefix set to {fix.prefix!r}")
        if fix.has_set or fix.map:
            found, value = new_value(rule, setting)
            if not found:
                self.manual(finding, f"no mapping for the value {setting.text}")
                return
            text = format_value(value, bool_style(setting.text))
            actions.append(Action("value", setting, text, value=value))
            words.append(f"set to {text}")
        self.attach(finding, rule, actions, group, " and ".join(words))

    def relation_rule(self, rule: Rule) -> list[Finding]:
        from bot.rules.relations import Side, violations

        findings: list[Finding] = []
        for group in self.groups:
            if not group_applies(rule, group):
                continue
            sides = [Side(s.key, s.value, s) for s in group.settings if s.state == "static" and s.prefix != "~"]
            for left, _, message in violations(rule, sides):
                setting = left.handle
                finding = self.finding(rule, setting.line, setting.column, setting.key, setting.text, message)
                finding.status = Status.MANUAL
                findings.append(finding)
        return findings

    def ensure_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        for group in self.groups:
            if not group_applies(rule, group):
                continue
            present: dict[str, list[Setting]] = {}
            for setting in group.settings:
                if setting.prefix != "~":
                    present.setdefault(setting.key, []).append(setting)
            keys = list(present)
            entries = [e for e in rule.ensure if not e.if_sets or any(any_match(list(e.if_sets), k) for k in keys)]
            if rule.ensure_together:
                conflict = self.conflict(entries, present)
                if conflict is not None:
                    finding = self.finding(rule, group.line, group.column, entries[0].key,
                                           format_value(entries[0].value), conflict)
                    findings.append(self.manual(finding, "a person must decide"))
                    continue
            style = next((bool_style(s.text) for s in group.settings
                          if s.state == "static" and isinstance(s.value, bool)), "title")
            for entry in entries:
                if entry.key in present:
                    continue
                text = format_value(entry.value, style)
                prefix = "++" if entry.prefix == "auto" else entry.prefix
                finding = self.finding(rule, group.line, group.column, entry.key, text,
                                       f"{group.label} lacks {entry.key}")
                findings.append(finding)
                action = Action("insert", None, text, entry=entry, value=entry.value, prefix=prefix)
                self.attach(finding, rule, [action], group, f"adds {entry.key}={text}")
        return findings

    @staticmethod
    def conflict(entries: list[EnsureEntry], present: dict[str, list[Setting]]) -> str | None:
        for entry in entries:
            for setting in present.get(entry.key, []):
                if setting.state != "static" or not values_equal(entry.value, setting.value):
                    shown = setting.text if setting.state == "static" else "a value known only at run time"
                    return (f"inconsistent set: {entry.key} is {shown} at line {setting.line}, "
                            f"where the rule's set has {format_value(entry.value)}")
        return None


def evaluate_settings(path: str, groups: list[SettingGroup], rules: list[Rule], realise: Realise) -> list[Finding]:
    evaluator = SettingsEvaluator(path, groups, realise)
    findings: list[Finding] = []
    for rule in rules:
        if not rule.enabled:
            continue
        if rule.match_key:
            findings.extend(evaluator.match_rule(rule))
        if rule.ensure:
            findings.extend(evaluator.ensure_rule(rule))
        if rule.relation is not None:
            findings.extend(evaluator.relation_rule(rule))
    return findings


__all__ = ["Action", "Setting", "SettingGroup", "evaluate_settings"]
