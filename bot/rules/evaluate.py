"""The one evaluator: rules x groups of settings -> findings, each fixable with a plan or manual.

It reads any front end's settings (bot.ir): a setting read by several groups (an array element two
launches expand) is one site and one finding; the values a site takes in different branches are
its variants. Fixes are planned as abstract actions, which the file's front end realises as byte
edits, all plans of one rule at once (a shell variable's definition is fixed only when every use
of it wants the same value).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bot.hydra.grammar import bool_style, config_reference, format_value
from bot.hydra.sweeps import Sweep
from bot.ir import (
    CALLER,
    COMMENT,
    DEFAULTS_LIST,
    EXCERPT,
    HELD,
    HYDRA_NODE,
    IN_LIST,
    PROSE,
    SCRIPT,
    STRANDED,
    SWEEP_PARAMS,
    InsertKey,
    Plan,
    Realise,
    RemoveKey,
    RenameKey,
    Setting,
    SettingGroup,
    State,
)
from bot.model import NOTE, Finding, Status
from bot.rules.entrypoints import KEY, EntryTargets, launches, moved_to, plan_move
from bot.rules.fixes import ensure_conflict, manual, new_text, plan_branch_values, plan_fix, prefix_for, write_plans
from bot.rules.globs import any_match
from bot.rules.landing import Landing, crowded, landings
from bot.rules.matching import (
    LaunchFacts,
    group_applies,
    key_matches,
    names_hydra,
    referenced_verdict,
    value_matches,
)
from bot.rules.model import EnsureEntry, Rule
from bot.rules.moves import carries
from bot.rules.references import removal_references, rename_references


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


def fallback_note(setting: Setting) -> str:
    text = setting.value if isinstance(setting.value, str) else setting.text or ""
    reference = config_reference(text)
    assert reference is not None
    return (f"{setting.prefix}{setting.key} takes {reference.key} (checked where that is set), or the fallback "
            f"{reference.fallback} where the config has no {reference.key}")


@dataclass
class Site:
    settings: list[Setting] = field(default_factory=list)
    groups: list[SettingGroup] = field(default_factory=list)


NO_ENSURE = (SCRIPT, CALLER, EXCERPT, COMMENT, PROSE, STRANDED, HYDRA_NODE, SWEEP_PARAMS, DEFAULTS_LIST, IN_LIST, HELD)


class Evaluator:
    def __init__(self, path: str, groups: list[SettingGroup], realise: Realise,
                 facts: LaunchFacts | None = None, targets: EntryTargets | None = None,
                 landed: dict[tuple[int, int], Landing] | None = None) -> None:
        self.path = path
        self.groups = groups
        self.realise = realise
        self.facts = facts
        self.targets = targets
        self.landed = landed or {}  # keys several moves (or a move and the launch itself) would set
        self.pending: list[Plan] = []  # the plans of the steps of one rule id, realised together
        self.pending_rule: Rule | None = None

    def write(self, rule: Rule, plans: list[Plan]) -> None:
        """Plans are realised together with the other steps' of the same rule (a migration's moves and removals
        edit one command as one change: two steps removing its last two overrides do not clash)."""
        if self.pending_rule is not None and self.pending_rule.id != rule.id:
            self.flush()
        self.pending_rule = rule
        self.pending.extend(plans)

    def flush(self) -> None:
        if self.pending_rule is not None:
            write_plans(self.path, self.pending_rule, self.pending, self.realise)
        self.pending, self.pending_rule = [], None

    # ---- findings ------------------------------------------------------------------
    def finding(self, rule: Rule, line: int, column: int, key: str, value: str | None, message: str,
                status: Status = Status.FIXABLE, groups: list[SettingGroup] | None = None) -> Finding:
        return Finding(rule=rule.id, path=self.path, line=line, column=column, key=key, value=value,
                       status=status, message=message, severity=rule.severity,
                       scope=tuple(g.lines for g in groups or () if g.lines is not None))

    # ---- match rules ---------------------------------------------------------------
    def sites(self, rule: Rule) -> list[Site]:
        sites: dict[object, Site] = {}
        for group in self.groups:
            silent = group.role in (COMMENT, PROSE) and rule.comment_policy(group.role == PROSE) == "off"
            if silent or (group.role == HYDRA_NODE and not names_hydra(rule)):
                continue
            matched = [s for s in group.settings if key_matches(rule, s)]
            moved = _moved_mappings(rule, matched)
            for setting in matched:
                if any(setting.key.startswith(key + ".") for key in moved) or _already_moved(rule, setting):
                    continue  # inside a config's mapping the same move takes whole; or the new form
                site = sites.setdefault(setting.site, Site())
                site.settings.append(setting)
                if all(g is not group for g in site.groups):
                    site.groups.append(group)
        return list(sites.values())

    def plain_sweeps(self, values: list[Setting], groups: list[SettingGroup]) -> list[Setting]:
        """`a=x,y` is a sweep only to Hydra: to an app of the repository that is none (`OmegaConf.from_cli`), the
        string as written."""
        if self.facts is None or not any(isinstance(s.value, Sweep) for s in values) or not all(
                g.launch is not None and not g.launch.multirun and self.facts.not_hydra(g.launch) for g in groups):
            return values
        return [replace(s, value=s.text.strip("'\"")) if isinstance(s.value, Sweep) and s.text else s for s in values]

    def match_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        plans: list[Plan] = []
        for site in self.sites(rule):
            applies = [group_applies(rule, group, self.facts) for group in site.groups]
            if not any(applies):
                continue
            values, verdicts, noted = self.verdicts(rule, site)
            if all(v is False for v in verdicts):
                continue  # also a value that is another key's: the rule checks that key where it is set
            if site.groups[0].role in (EXCERPT, COMMENT, PROSE) and not self.changes(rule, values, verdicts):
                continue  # text shown, not run: only what the rule would change is worth a word
            first = values[0]
            finding = self.finding(rule, first.line, first.column, first.key, first.text, describe(first),
                                   groups=site.groups)
            findings.append(finding)
            plan = self.site_fix(rule, site, finding, values, (verdicts, noted), applies)
            if plan is not None:
                plans.append(plan)
        self.write(rule, plans)
        return findings

    def verdicts(self, rule: Rule, site: Site) -> tuple[list[Setting], list[bool | None], list[bool | None]]:
        """The site's distinct values, whether each breaks the rule (None: unknown), and for those unknown
        whether the key a value interpolates breaks it (the verdict then: False when that key's does not)."""
        variants: dict[object, Setting] = {}
        for setting in site.settings:
            variants.setdefault(setting.identity, setting)
        values = self.plain_sweeps(list(variants.values()), site.groups)
        verdicts = [value_matches(rule, s) for s in values]
        noted = [referenced_verdict(rule, s) if v is None else None for s, v in zip(values, verdicts)]
        return values, [False if n is False else v for v, n in zip(verdicts, noted)], noted

    def site_fix(self, rule: Rule, site: Site, finding: Finding, values: list[Setting],
                 judged: tuple[list[bool | None], list[bool | None]], applies: list[bool]) -> Plan | None:
        """The fix of a site's finding, or None with the finding made manual (or a note) and why."""
        verdicts, noted = judged
        first, role = values[0], site.groups[0].role
        if role == STRANDED:
            finding.value = None
            manual(finding, site.groups[0].label)
            return None
        if role in (COMMENT, PROSE):
            finding.severity = NOTE
            if rule.comment_policy(role == PROSE) == "note":
                manual(finding, "reported, not rewritten (the rule's comments policy)")
                return None
        if all(v is False or n is True for v, n in zip(verdicts, noted)):
            finding.severity, finding.message, finding.value = NOTE, fallback_note(first), None
            manual(finding, "check that every config this one is composed into sets that key")
            return None
        if not all(applies):
            lines = sorted({g.line for g, ok in zip(site.groups, applies) if not ok})
            manual(finding, "shared with launches the rule does not apply to (line "
                   + ", ".join(map(str, lines)) + ")")
            return None
        unknown = [s for s, v in zip(values, verdicts) if v is None]
        if unknown:
            finding.value = None
            manual(finding, "a person must check it" if unknown[0].state in ("invalid", "mapping")
                   else "a multirun sweep, some of whose runs break the rule: a person must check it"
                   if isinstance(unknown[0].value, Sweep) else "known only at run time: a person must check it")
            return None
        if not all(verdicts):
            choices = " or ".join(f"{s.text} {s.origin or '(literal)'}" for s in values)
            finding.message = f"{first.prefix}{first.key} depends on the branch taken: {choices}"
            plan = plan_branch_values(rule, finding, values, verdicts, site.groups[0])
            if plan is None:
                manual(finding, "a person must choose")
            return plan
        if not first.keyed:
            manual(finding, "the key is not written in one place")
            return None
        landing = crowded(self.landed, site.groups, first) if rule.fix is not None and rule.fix.rename else None
        if landing is not None:
            return self.crowded_fix(finding, first, site.groups[0], landing)
        return plan_fix(rule, finding, values, site.groups[0], self.facts if len(site.groups) == 1 else None)

    @staticmethod
    def crowded_fix(finding: Finding, setting: Setting, group: SettingGroup, landing: Landing) -> Plan | None:
        """A move to a key the group would then set more than once (bot.rules.landing): the value kept once
        when they all agree, else a person's choice."""
        if not landing.agree:
            said = ("is already set, to another value" if landing.keeper.key == landing.key
                    else "would be set more than once, with different values")
            manual(finding, f"{landing.key} {said} ({landing.describe()}): a person must choose one")
            return None
        if landing.keeper.site is setting.site:
            return Plan(finding, group, [RenameKey(setting, landing.key)], f"renamed to {landing.key}")
        return Plan(finding, group, [RemoveKey(setting)],
                    f"removed: {landing.key} takes the same value from line {landing.keeper.line}")

    # ---- entry point rules ---------------------------------------------------------
    def entrypoint_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        plans: list[Plan] = []
        for group, sharing in launches(self.groups):
            applies = [group_applies(rule, g, self.facts) for g in sharing]
            moved = moved_to(rule, group.entry or "")
            if not any(applies) or moved is None:
                continue
            finding = self.finding(rule, group.line, group.column, KEY, group.entry,
                                   f"{group.label}: {moved[0]} moved to {moved[1]}", groups=sharing)
            findings.append(finding)
            if not all(applies):
                manual(finding, "the entry point is shared with launches the rule does not apply to")
                continue
            plan = plan_move(rule, finding, group, moved, self.targets)
            if plan is not None:
                plans.append(plan)
        self.write(rule, plans)
        return findings

    @staticmethod
    def changes(rule: Rule, values: list[Setting], verdicts: list[bool | None]) -> bool:
        """Every variant matches and, for a map, has a new value."""
        if not all(verdicts):
            return False
        return rule.fix is None or not rule.fix.map or all(new_text(rule, s) is not None for s in values)

    # ---- ensure rules --------------------------------------------------------------
    def ensure_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        needs: list[tuple[SettingGroup, list[EnsureEntry]]] = []
        for group in self.groups:
            if group.role in NO_ENSURE \
                    or not group_applies(rule, group, self.facts):
                continue  # a script handed overrides may set the key itself; a doc shows a part; a comment
            present: dict[str, list[Setting]] = {}
            for setting in group.settings:
                if setting.prefix != "~":
                    present.setdefault(setting.key, []).append(setting)
            entries = [e for e in rule.ensure if not e.if_sets or any(any_match(list(e.if_sets), k) for k in present)]
            if rule.ensure_together:
                conflict = ensure_conflict(entries, present)
                if conflict is not None:
                    findings.append(self.finding(rule, group.line, group.column, entries[0].key,
                                                 format_value(entries[0].value), conflict, Status.MANUAL, [group]))
                    continue
            missing = [e for e in entries if e.key not in present]
            if missing:
                needs.append((group, missing))
        plans: list[Plan] = []
        for group, missing in needs:
            style = next((bool_style(s.text) for s in group.settings
                          if s.state == "static" and isinstance(s.value, bool)), "title")
            not_hydra = self.facts.not_hydra(group.launch) if self.facts is not None and group.launch else None
            for entry in missing:
                prefix = prefix_for(entry, group, self.facts)
                text = format_value(entry.value, style)
                finding = self.finding(rule, group.line, group.column, entry.key, text,
                                       f"{group.label} lacks {prefix}{entry.key}", groups=[group])
                findings.append(finding)
                if not_hydra is not None:  # its own argument reading, which a Hydra override may not fit
                    manual(finding, f"{not_hydra}: a person must check how it takes this setting")
                    continue
                anchor = missing[0].key if rule.ensure_together else entry.key
                action = InsertKey(entry.key, prefix, text, entry.value, anchor)
                plans.append(Plan(finding, group, [action], f"adds {prefix}{entry.key}={text}"))
        self.write(rule, plans)
        return findings

    # ---- relation rules ------------------------------------------------------------
    def relation_rule(self, rule: Rule) -> list[Finding]:
        from bot.rules.relations import Side, violations

        findings: list[Finding] = []
        seen: set[object] = set()
        for group in self.groups:
            if group.role in (CALLER, EXCERPT, COMMENT, PROSE, STRANDED, HYDRA_NODE, SWEEP_PARAMS, DEFAULTS_LIST,
                              IN_LIST, HELD) \
                    or not group_applies(rule, group, self.facts):
                continue
            sides = [Side(s.key, s.value, s) for s in group.settings if s.state == "static" and s.prefix != "~"]
            for left, _, message in violations(rule, sides):
                setting: Setting = left.handle
                if setting.site in seen:
                    continue
                seen.add(setting.site)
                findings.append(self.finding(rule, setting.line, setting.column, setting.key, setting.text,
                                             message, Status.MANUAL, [group]))
        return findings


def evaluate(path: str, groups: list[SettingGroup], rules: list[Rule], realise: Realise,
             facts: LaunchFacts | None = None, targets: EntryTargets | None = None) -> list[Finding]:
    """`targets`: the repository, asked whether a moved entry point's new module is there (None: not asked)."""
    evaluator = Evaluator(path, groups, realise, facts, targets, landings(groups, rules, facts))
    findings: list[Finding] = []
    for rule in rules:
        if not rule.enabled:
            continue
        if rule.match_key:
            findings.extend(evaluator.match_rule(rule))
            findings.extend(rename_references(evaluator, rule))
            findings.extend(removal_references(evaluator, rule))
        if rule.ensure:
            findings.extend(evaluator.ensure_rule(rule))
        if rule.relation is not None:
            findings.extend(evaluator.relation_rule(rule))
        if rule.fix is not None and rule.fix.entrypoint:
            findings.extend(evaluator.entrypoint_rule(rule))
    evaluator.flush()
    return findings


__all__ = ["EntryTargets", "LaunchFacts", "evaluate", "group_applies", "key_matches", "value_matches"]


def _already_moved(rule: Rule, setting: Setting) -> bool:
    """A config's mapping at a key that a move takes into itself (`manager` -> `manager.name`: a value became a
    section holding it): that mapping is the new form, nothing to move."""
    if rule.fix is None or rule.fix.rename is None or carries(rule.fix.rename) or setting.state is not State.MAPPING:
        return False
    return rule.fix.rename.startswith(setting.key + ".")


def _moved_mappings(rule: Rule, matched: list[Setting]) -> set[str]:
    """The keys of a config's mappings that a subtree move (`a.** -> b.**`) takes whole, with what they hold."""
    if rule.fix is None or rule.fix.rename is None or not carries(rule.fix.rename):
        return set()
    return {s.key for s in matched if s.state is State.MAPPING and not s.excerpt}
