"""Fixes planned as abstract actions and written into findings; a finding no fix fits becomes manual."""

from __future__ import annotations

from typing import Any

from bot.hydra.grammar import bool_style, format_value, sibling_key, values_equal
from bot.ir import (
    Action,
    Clash,
    Plan,
    Realise,
    RemoveKey,
    RenameKey,
    SetBranchValue,
    SetItems,
    SetPrefix,
    Setting,
    SettingGroup,
    SetValue,
)
from bot.model import Edit, Finding, Reason, Status
from bot.rules.matching import LaunchFacts
from bot.rules.model import EnsureEntry, Rule
from bot.rules.moves import carries, moved_key


def manual(finding: Finding, reason: str) -> Finding:
    finding.status = Status.MANUAL
    finding.message = f"{finding.message}; {reason}" if finding.message else reason
    finding.edits = []
    finding.fix_site = None
    return finding


def write_plans(path: str, rule: Rule, plans: list[Plan], realise: Realise) -> None:
    """The front end realises every plan of the rule; each finding takes its edits or a reason."""
    live = [p for p in plans if p.actions]
    if live:
        realise(live)
    for plan in plans:
        finding = plan.finding
        if plan.refusal is not None:
            manual(finding, f"{plan.refusal} (not written: {plan.words})" if plan.words else plan.refusal)
            if isinstance(plan.refusal, Clash):
                finding.reason = Reason.CONFLICT
            continue
        finding.edits = [Edit(path, span, text, rule.id) for span, text in plan.edits]
        if finding.edits:
            finding.fix_site = (path, plan.fix_line or finding.line)
        if plan.words:
            finding.message += f"; {plan.words}"
        if plan.where:
            finding.message += f" {plan.where}" if plan.where.startswith(("at ", "in ", "where ", "after ")) else (
                f"; {plan.where}")


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


def renamed_key(rule: Rule, key: str) -> str | None:
    """The key's new name: the rename's, beside it or dotted, or (a subtree moved) the rename with the segments
    the match key's wildcards took (None: no match key gives them)."""
    assert rule.fix is not None and rule.fix.rename is not None
    target = rule.fix.rename
    if not carries(target):
        return sibling_key(key, target)
    return next((moved for glob in rule.match_key if (moved := moved_key(glob.pattern, target, key)) is not None),
                None)


def excerpt_key(rule: Rule, setting: Setting) -> str | None:
    """A dotted rename of a key a docs block shows in part, relative to the block (None: cannot tell)."""
    from bot.rules.suffix import full_key

    assert rule.fix is not None and rule.fix.rename is not None
    full = full_key(rule.match_key, setting.key)
    if full is None:
        return None
    above = full[: len(full) - len(setting.key)]
    new = renamed_key(rule, full)
    return new[len(above):] if new is not None and new.startswith(above) else None


def plan_fix(rule: Rule, finding: Finding, variants: list[Setting], group: SettingGroup,
             facts: LaunchFacts | None = None) -> Plan | None:
    fix = rule.fix
    if fix is None:
        manual(finding, "the rule reports this without a fix")
        return None
    first = variants[0]
    if fix.remove:
        return Plan(finding, group, [RemoveKey(first)], "removed")
    if fix.drop_if_default and fix.rename and not first.excerpt:
        new_key = renamed_key(rule, first.key)
        if new_key is not None and _the_default(group, facts, new_key, variants):
            return Plan(finding, group, [RemoveKey(first)], f"removed: {new_key} defaults to {first.text}")
    actions: list[Action] = []
    words: list[str] = []
    if fix.rename:
        new_key = excerpt_key(rule, first) if first.excerpt and "." in fix.rename else renamed_key(rule, first.key)
        if new_key is None:
            manual(finding, "the block shows part of the config: a person must place the new key" if first.excerpt
                   else "the key is not of the shape the move's old key gives")
            return None
        actions.append(RenameKey(first, new_key))
        words.append(f"renamed to {new_key}")
    if fix.prefix is not None and fix.prefix != first.prefix:
        actions.append(SetPrefix(first, fix.prefix))
        words.append(f"prefix set to {fix.prefix!r}")
    if fix.map_items or fix.remove_items:
        action = item_action(rule, finding, variants)
        if action is None:
            return None
        actions.append(action)
        words.append(item_words(rule, first))
    elif fix.has_set or fix.map:
        texts = [new_text(rule, s) for s in variants]
        unmapped = next((s for s, t in zip(variants, texts) if t is None), None)
        if unmapped is not None:
            manual(finding, f"no mapping for the value {unmapped.text}")
            return None
        new = set(texts)
        if len(new) > 1:  # a map over a loop's or the branches' values: each written where it is
            plan = plan_branch_values(rule, finding, variants, [True] * len(variants), group)
            if plan is None:
                manual(finding, "the branches need different new values")
            return plan
        (text, value), = new  # type: ignore[misc]
        actions.append(SetValue(first, text, value, variants))
        words.append(f"set to {text}")
    return Plan(finding, group, actions, " and ".join(words))


def _the_default(group: SettingGroup, facts: LaunchFacts | None, key: str, variants: list[Setting]) -> bool:
    """Whether every value the override takes is what the launch's composed config has at `key` already."""
    if facts is None or group.launch is None or any(s.state != "static" for s in variants):
        return False
    found, default = facts.value(group.launch, key)
    return bool(found) and all(values_equal(default, s.value) for s in variants)


def plan_branch_values(rule: Rule, finding: Finding, variants: list[Setting], verdicts: list[bool | None],
                       group: SettingGroup) -> Plan | None:
    """A map where only some of the site's branches (or loop values) match: each matching value mapped
    where it is written, the others left as they are. None: the fix is more than a map of values."""
    fix = rule.fix
    if fix is None or not fix.map or fix.has_set or fix.rename or fix.remove or fix.prefix is not None \
            or fix.map_items or fix.remove_items or fix.entrypoint:
        return None
    actions: list[SetBranchValue] = []
    for setting, verdict in zip(variants, verdicts):
        new = new_text(rule, setting) if verdict else None
        if new is not None:
            actions.append(SetBranchValue(setting, new[0], new[1], variants))
    if not actions:
        return None
    words = dict.fromkeys(f"{a.setting.text} set to {a.text}" for a in actions)
    return Plan(finding, group, list(actions), " and ".join(words))


def prefix_for(entry: EnsureEntry, group: SettingGroup, facts: LaunchFacts | None) -> str:
    """`prefix: auto`: plain where the composed config has the key, `+` where not, `++` if unknown, as where
    the key is not there and the launch passes on its caller's arguments (`"$@"`), which may choose a config
    group that has it."""
    if entry.prefix != "auto":
        return entry.prefix
    if facts is None or group.launch is None:
        return "++"
    found, _ = facts.value(group.launch, entry.key)
    return "++" if found is None or (not found and group.open_args) else "" if found else "+"


def ensure_conflict(entries: list[EnsureEntry], present: dict[str, list[Setting]]) -> str | None:
    """Why a set of `ensure_mode: together` cannot be completed: one of its keys has another value."""
    for entry in entries:
        for setting in present.get(entry.key, []):
            if setting.state != "static" or not values_equal(entry.value, setting.value):
                shown = setting.text if setting.state == "static" else "a value known only at run time"
                return (f"inconsistent set: {entry.key} is {shown} at line {setting.line}, "
                        f"where the rule's set has {format_value(entry.value)}; a person must decide")
    return None


def item_action(rule: Rule, finding: Finding, variants: list[Setting]) -> SetValue | SetItems | None:
    """The list elements mapped and dropped; a scalar is mapped. A name the mapping makes equal to another
    element that was a different name is kept once (`[tracking, wandb]` -> `[wandb]`); repeats the list
    already had, and numbers (layer sizes are ordered), stay where they are (`[32, 32]` -> `[64, 64]`)."""
    assert rule.fix is not None
    fix, first = rule.fix, variants[0]
    if any(v.value != first.value for v in variants[1:]):
        manual(finding, "the branches give it different values: a person must choose")
        return None
    if not isinstance(first.value, list):
        for old, new in fix.map_items:
            if values_equal(old, first.value):
                text = format_value(new, bool_style(first.text))
                return SetValue(first, text, new, variants)
        manual(finding, f"removing {first.text} would leave {first.key} without a value: a person must decide")
        return None
    replace: dict[int, Any] = {}
    drop: list[int] = []
    kept: list[tuple[Any, Any]] = []  # (the element now, what it was)
    for i, element in enumerate(first.value):
        new, mapped = element, False
        if not isinstance(element, (list, dict)):
            if any(values_equal(gone, element) for gone in fix.remove_items):
                drop.append(i)
                continue
            new, mapped = next(((n, True) for old, n in fix.map_items if values_equal(old, element)), (element, False))
        if isinstance(new, str) and any(isinstance(now, str) and now == new and not values_equal(was, element)
                                        for now, was in kept):
            drop.append(i)  # the mapping made two names one: kept once
            continue
        kept.append((new, element))
        if mapped:
            replace[i] = new
    if not kept:
        manual(finding, f"{first.key} would be an empty list: a person must decide")
        return None
    value = [v for v, _ in kept]
    return SetItems(first, format_value(value), value, variants, replace, tuple(drop))


def item_words(rule: Rule, setting: Setting) -> str:
    """What an element fix does to this value, in words: `tracking replaced by wandb`."""
    assert rule.fix is not None
    elements = setting.value if isinstance(setting.value, list) else [setting.value]
    words = [f"{format_value(old)} replaced by {format_value(new)}" for old, new in rule.fix.map_items
             if any(values_equal(old, e) for e in elements)]
    words += [f"{format_value(gone)} removed" for gone in rule.fix.remove_items
              if any(values_equal(gone, e) for e in elements)]
    return ", ".join(words)
