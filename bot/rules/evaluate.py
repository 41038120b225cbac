"""The one evaluator: rules x groups of settings -> findings, each fixable with a plan or manual.

It reads any front end's settings (bot.ir): a setting read by several groups (an array element two
launches expand) is one site and one finding; the values a site takes in different branches are
its variants. Fixes are planned as abstract actions, which the file's front end realises as byte
edits, all plans of one rule at once (a shell variable's definition is fixed only when every use
of it wants the same value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.hydra.grammar import bool_style, format_value, values_equal
from bot.ir import CALLER, SCRIPT, Action, Plan, Realise, Setting, SettingGroup
from bot.model import Edit, Finding, Status
from bot.rules.globs import any_match
from bot.rules.model import EnsureEntry, Rule


class LaunchFacts(Protocol):
    """What the repository's composed Hydra config says about a launch (bot.hydra.compose.ConfigFacts)."""

    def configs(self, launch: Any) -> set[str] | None: ...
    def value(self, launch: Any, key: str) -> tuple[bool | None, Any]: ...  # None: cannot tell


def config_conditions_hold(rule: Rule, group: SettingGroup, facts: LaunchFacts | None) -> bool:
    """`when.config` and `when.value`; without a composed config (no launch, no facts) they cannot hold."""
    if not rule.when_config and not rule.when_value:
        return True
    if facts is None or group.launch is None:
        return False
    if rule.when_config:
        names = facts.configs(group.launch)
        if names is None or not names & set(rule.when_config):
            return False
    for key, wanted in rule.when_value:
        found, actual = facts.value(group.launch, key)
        if found is not True or not values_equal(wanted, actual):
            return False
    return True


def group_applies(rule: Rule, group: SettingGroup, facts: LaunchFacts | None = None) -> bool:
    if not config_conditions_hold(rule, group, facts):
        return False
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
    value_test = rule.match_value is not None or rule.match_value_not is not None
    value_fix = rule.fix is not None and (rule.fix.has_set or bool(rule.fix.map))
    if setting.state == "mapping" and (value_test or value_fix):
        return False  # a value rule is about a leaf, never a whole subtree
    if rule.match_prefix is not None:
        return setting.prefix in rule.match_prefix
    return not (value_test and setting.prefix == "~")


def value_matches(rule: Rule, setting: Setting) -> bool | None:
    """True, False, or None when the file does not say (a run-time value, an interpolation)."""
    fix = rule.fix
    if (fix is not None and fix.has_set and not fix.rename and fix.prefix is None and setting.state == "static"
            and values_equal(fix.set, setting.value)):
        return False  # already what the fix would write
    needs_value = fix is not None and bool(fix.map)
    if rule.match_value is None and rule.match_value_not is None:
        if not needs_value:
            return True
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


def new_text(rule: Rule, setting: Setting) -> tuple[str, Any] | None:
    """The value the fix writes for this setting, in the file's style (`True` or `true`); None: no mapping."""
    assert rule.fix is not None
    style = bool_style(setting.text)
    if rule.fix.has_set:
        return format_value(rule.fix.set, style), rule.fix.set
    for old, new in rule.fix.map:
        if setting.state == "static" and values_equal(old, setting.value):
            return format_value(new, style), new
    return None


def renamed_key(rule: Rule, key: str) -> str:
    assert rule.fix is not None and rule.fix.rename is not None
    rename = rule.fix.rename
    if "." in rename or "." not in key:
        return rename
    return key.rsplit(".", 1)[0] + "." + rename


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
    return f"{shown} is {setting.text}" + (f", {setting.origin}" if setting.origin else "")


@dataclass
class Site:
    settings: list[Setting] = field(default_factory=list)
    groups: list[SettingGroup] = field(default_factory=list)


class Evaluator:
    def __init__(self, path: str, groups: list[SettingGroup], realise: Realise,
                 facts: LaunchFacts | None = None) -> None:
        self.path = path
        self.groups = groups
        self.realise = realise
        self.facts = facts

    # ---- findings ------------------------------------------------------------------
    def finding(self, rule: Rule, line: int, column: int, key: str, value: str | None, message: str,
                status: Status = Status.FIXABLE) -> Finding:
        return Finding(rule=rule.id, path=self.path, line=line, column=column, key=key, value=value,
                       status=status, message=message, severity=rule.severity)

    @staticmethod
    def manual(finding: Finding, reason: str) -> Finding:
        finding.status = Status.MANUAL
        finding.message = f"{finding.message}; {reason}" if finding.message else reason
        finding.edits = []
        finding.fix_site = None
        return finding

    def write(self, rule: Rule, plans: list[Plan]) -> None:
        """The front end realises every plan of the rule; each finding takes its edits or a reason."""
        live = [p for p in plans if p.actions]
        if live:
            self.realise(live)
        for plan in plans:
            finding = plan.finding
            if plan.refusal is not None:
                self.manual(finding, f"{plan.words}; {plan.refusal}" if plan.words else plan.refusal)
                continue
            finding.edits = [Edit(self.path, span, text, rule.id) for span, text in plan.edits]
            if finding.edits:
                finding.fix_site = (self.path, plan.fix_line or finding.line)
            if plan.words:
                finding.message += f"; {plan.words}"
            if plan.where:
                finding.message += f" {plan.where}" if plan.where.startswith(("at ", "in ", "where ", "after ")) else (
                    f"; {plan.where}")

    # ---- match rules ---------------------------------------------------------------
    def sites(self, rule: Rule) -> list[Site]:
        sites: dict[object, Site] = {}
        for group in self.groups:
            for setting in group.settings:
                if not key_matches(rule, setting):
                    continue
                site = sites.setdefault(setting.site, Site())
                site.settings.append(setting)
                if all(g is not group for g in site.groups):
                    site.groups.append(group)
        return list(sites.values())

    def match_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        plans: list[Plan] = []
        for site in self.sites(rule):
            applies = [group_applies(rule, group, self.facts) for group in site.groups]
            if not any(applies):
                continue
            variants: dict[object, Setting] = {}
            for setting in site.settings:
                variants.setdefault(setting.identity, setting)
            values = list(variants.values())
            verdicts = [value_matches(rule, s) for s in values]
            if all(v is False for v in verdicts):
                continue
            first = values[0]
            finding = self.finding(rule, first.line, first.column, first.key, first.text, describe(first))
            findings.append(finding)
            if not all(applies):
                lines = sorted({g.line for g, ok in zip(site.groups, applies) if not ok})
                self.manual(finding, "shared with launches the rule does not apply to (line "
                            + ", ".join(map(str, lines)) + ")")
                continue
            unknown = [s for s, v in zip(values, verdicts) if v is None]
            if unknown:
                finding.value = None
                self.manual(finding, "a person must check it" if unknown[0].state in ("invalid", "mapping")
                            else "known only at run time: a person must check it")
                continue
            if not all(verdicts):
                choices = " or ".join(f"{s.text} {s.origin or '(literal)'}" for s in values)
                finding.message = f"{first.prefix}{first.key} depends on the branch taken: {choices}"
                self.manual(finding, "a person must choose")
                continue
            if not first.keyed:
                self.manual(finding, "the key is not written in one place")
                continue
            plan = self.plan_fix(rule, finding, values, site.groups[0])
            if plan is not None:
                plans.append(plan)
        self.write(rule, plans)
        return findings

    def plan_fix(self, rule: Rule, finding: Finding, variants: list[Setting], group: SettingGroup) -> Plan | None:
        fix = rule.fix
        if fix is None:
            self.manual(finding, "the rule reports this without a fix")
            return None
        first = variants[0]
        if fix.remove:
            return Plan(finding, group, [Action("remove", first)], "removed")
        actions: list[Action] = []
        words: list[str] = []
        if fix.rename:
            new_key = renamed_key(rule, first.key)
            actions.append(Action("key", first, new_key))
            words.append(f"renamed to {new_key}")
        if fix.prefix is not None and fix.prefix != first.prefix:
            actions.append(Action("prefix", first, fix.prefix))
            words.append(f"prefix set to {fix.prefix!r}")
        if fix.has_set or fix.map:
            new = {new_text(rule, s) for s in variants}
            if None in new:
                self.manual(finding, f"no mapping for the value {first.text}")
                return None
            if len(new) > 1:
                self.manual(finding, "the branches need different new values")
                return None
            (text, value), = new  # type: ignore[misc]
            actions.append(Action("value", first, text, value=value, variants=variants))
            words.append(f"set to {text}")
        return Plan(finding, group, actions, " and ".join(words))

    # ---- ensure rules --------------------------------------------------------------
    def ensure_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        needs: list[tuple[SettingGroup, list[EnsureEntry]]] = []
        for group in self.groups:
            if group.role in (SCRIPT, CALLER) or not group_applies(rule, group, self.facts):
                continue  # a script handed overrides may set the key itself: adding one could clash
            present: dict[str, list[Setting]] = {}
            for setting in group.settings:
                if setting.prefix != "~":
                    present.setdefault(setting.key, []).append(setting)
            entries = [e for e in rule.ensure if not e.if_sets or any(any_match(list(e.if_sets), k) for k in present)]
            if rule.ensure_together:
                conflict = self.conflict(entries, present)
                if conflict is not None:
                    findings.append(self.finding(rule, group.line, group.column, entries[0].key,
                                                 format_value(entries[0].value), conflict, Status.MANUAL))
                    continue
            missing = [e for e in entries if e.key not in present]
            if missing:
                needs.append((group, missing))
        plans: list[Plan] = []
        for group, missing in needs:
            style = next((bool_style(s.text) for s in group.settings
                          if s.state == "static" and isinstance(s.value, bool)), "title")
            for entry in missing:
                prefix = self.prefix_for(entry, group)
                text = format_value(entry.value, style)
                finding = self.finding(rule, group.line, group.column, entry.key, text,
                                       f"{group.label} lacks {prefix}{entry.key}")
                findings.append(finding)
                anchor = missing[0].key if rule.ensure_together else entry.key
                action = Action("insert", None, text, value=entry.value, key=entry.key, prefix=prefix,
                                anchor_key=anchor)
                plans.append(Plan(finding, group, [action], f"adds {prefix}{entry.key}={text}"))
        self.write(rule, plans)
        return findings

    def prefix_for(self, entry: EnsureEntry, group: SettingGroup) -> str:
        """`prefix: auto`: plain where the composed config has the key, `+` where not, `++` if unknown."""
        if entry.prefix != "auto":
            return entry.prefix
        if self.facts is None or group.launch is None:
            return "++"
        found, _ = self.facts.value(group.launch, entry.key)
        return "++" if found is None else "" if found else "+"

    @staticmethod
    def conflict(entries: list[EnsureEntry], present: dict[str, list[Setting]]) -> str | None:
        for entry in entries:
            for setting in present.get(entry.key, []):
                if setting.state != "static" or not values_equal(entry.value, setting.value):
                    shown = setting.text if setting.state == "static" else "a value known only at run time"
                    return (f"inconsistent set: {entry.key} is {shown} at line {setting.line}, "
                            f"where the rule's set has {format_value(entry.value)}; a person must decide")
        return None

    # ---- relation rules ------------------------------------------------------------
    def relation_rule(self, rule: Rule) -> list[Finding]:
        from bot.rules.relations import Side, violations

        findings: list[Finding] = []
        seen: set[object] = set()
        for group in self.groups:
            if group.role == CALLER or not group_applies(rule, group, self.facts):
                continue
            sides = [Side(s.key, s.value, s) for s in group.settings if s.state == "static" and s.prefix != "~"]
            for left, _, message in violations(rule, sides):
                setting: Setting = left.handle
                if setting.site in seen:
                    continue
                seen.add(setting.site)
                findings.append(self.finding(rule, setting.line, setting.column, setting.key, setting.text,
                                             message, Status.MANUAL))
        return findings


def evaluate(path: str, groups: list[SettingGroup], rules: list[Rule], realise: Realise,
             facts: LaunchFacts | None = None) -> list[Finding]:
    evaluator = Evaluator(path, groups, realise, facts)
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


__all__ = ["LaunchFacts", "evaluate", "group_applies", "key_matches", "value_matches"]
