"""Whether a rule applies: to a group of settings (its `when` conditions) and to a setting (`match`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from bot.hydra.grammar import MISSING, config_reference, fallback_value, values_equal
from bot.hydra.sweeps import Sweep
from bot.ir import Launch, Setting, SettingGroup, State
from bot.rules.globs import any_match
from bot.rules.model import Rule
from bot.rules.suffix import suffix_match


class LaunchFacts(Protocol):
    """What the repository's composed Hydra config says about a launch (bot.hydra.compose.ConfigFacts)."""

    def configs(self, launch: Launch) -> set[str] | None: ...
    def value(self, launch: Launch, key: str) -> tuple[bool | None, Any]: ...  # None: cannot tell
    def not_hydra(self, launch: Launch) -> str | None: ...  # why the launch's own entry point is no Hydra app
    def loads(self, launch: Launch) -> set[str] | None: ...  # the modules its entry point imports; None unknown


def config_conditions_hold(rule: Rule, group: SettingGroup, facts: LaunchFacts | None) -> bool:
    """`when.config` and `when.value`. A value the launch itself sets (a literal) decides `when.value`
    as Hydra would read it; anything else needs the composed config (no launch, no facts: no)."""
    if not rule.when_config and not rule.when_value:
        return True
    undecided = []
    for key, wanted in rule.when_value:
        own = [s for s in group.settings if s.key == key and s.prefix != "~"]
        if own and all(s.state == "static" for s in own):
            if not all(values_equal(wanted, s.value) for s in own):
                return False
        else:
            undecided.append((key, wanted))
    if not rule.when_config and not undecided:
        return True
    if facts is None or group.launch is None:
        return False
    if rule.when_config:
        names = facts.configs(group.launch)
        if names is None or not names & set(rule.when_config):
            return False
    for key, wanted in undecided:
        found, actual = facts.value(group.launch, key)
        if found is not True or not values_equal(wanted, actual):
            return False
    return True


def group_applies(rule: Rule, group: SettingGroup, facts: LaunchFacts | None = None) -> bool:
    if not config_conditions_hold(rule, group, facts):
        return False
    if rule.when_entrypoint and not (group.entry and any_match(list(rule.when_entrypoint), group.entry)):
        return False
    if rule.when_imports and not _loads_one(rule, group, facts):
        return False
    keys = [s.key for s in group.settings if s.prefix != "~"]
    if rule.when_sets and not any(any_match(list(rule.when_sets), k) for k in keys):
        return False
    return not (rule.when_unset and any(any_match(list(rule.when_unset), k) for k in keys))


def _loads_one(rule: Rule, group: SettingGroup, facts: LaunchFacts | None) -> bool:
    """`when.imports`: the launch's entry point loads one of the modules (no launch, or an entry point the
    repository does not hold: no)."""
    if facts is None or group.launch is None:
        return False
    loaded = facts.loads(group.launch)
    return loaded is not None and not loaded.isdisjoint(rule.when_imports)


def names_hydra(rule: Rule) -> bool:
    """Whether the rule is about Hydra's own settings by name (`hydra.job.chdir`): only such a rule reads a
    config's `hydra:` node, which a pattern like `**.dir` must not reach."""
    return any(glob.pattern.startswith("hydra.") for glob in rule.match_key)


def key_matches(rule: Rule, setting: Setting) -> bool:
    if not any_match(list(rule.match_key), setting.key) and not (
            setting.excerpt and suffix_match(rule.match_key, setting.key)):
        return False
    if rule.match_exclude and any_match(list(rule.match_exclude), setting.key):
        return False
    value_test = rule.match_value is not None or rule.match_value_not is not None or rule.match_item is not None
    value_fix = rule.fix is not None and (rule.fix.has_set or bool(rule.fix.map) or bool(edited_items(rule)))
    if setting.state == "mapping" and (value_test or value_fix):
        return False  # a value rule is about a leaf, never a whole subtree
    if rule.match_prefix is not None:
        return setting.prefix in rule.match_prefix
    return not (value_test and setting.prefix == "~")


def value_matches(rule: Rule, setting: Setting) -> bool | None:
    """True, False, or None when the file does not say (a run-time value, an interpolation, a multirun
    sweep some of whose runs break the rule). A mandatory `???` is supplied by each run, where it is
    checked: it breaks no rule on a value. A word Hydra's grammar rejects (`deepspeed==0.16.4`) is no
    override Hydra reads, whatever key it seems to start with: it is never renamed, mapped or removed (a
    sweeper's YAML key with a value Hydra cannot read is a key all the same)."""
    fix = rule.fix
    if setting.rejected:
        return None
    if setting.state == "static" and (isinstance(setting.value, Sweep) or setting.value == MISSING):
        if not reads_value(rule):
            return True  # a rename or a removal takes the whole setting along
        if setting.value == MISSING:
            return False
        elements = setting.value.elements
        if elements is None:
            return None
        verdicts = [value_matches(rule, replace(setting, value=e, text=None)) for e in elements]
        return False if all(v is False for v in verdicts) else None
    if (fix is not None and fix.has_set and not fix.rename and fix.prefix is None and setting.state == "static"
            and values_equal(fix.set, setting.value)):
        return False  # already what the fix would write
    needs_value = fix is not None and bool(fix.map)
    edited = edited_items(rule)
    if rule.match_value is None and rule.match_value_not is None and rule.match_item is None and not edited:
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
    if ok and rule.match_item is not None:
        ok = holds_item(rule.match_item, setting.value)
    return ok and (not edited or holds_item(edited, setting.value))


def reads_value(rule: Rule) -> bool:
    """Whether the rule tests the value or writes a new one."""
    fix = rule.fix
    writes = fix is not None and (fix.has_set or bool(fix.map) or bool(edited_items(rule)))
    return writes or any(t is not None for t in (rule.match_value, rule.match_value_not, rule.match_item))


def edited_items(rule: Rule) -> tuple[Any, ...]:
    """The list elements the rule's fix maps or removes."""
    if rule.fix is None:
        return ()
    return (*(old for old, _ in rule.fix.map_items), *rule.fix.remove_items)


def holds_item(wanted: tuple[Any, ...], value: Any) -> bool:
    """A scalar equal to one of `wanted`, or a list with such an element (compared as Hydra reads them)."""
    elements = value if isinstance(value, list) else [value]
    return any(not isinstance(e, (list, dict)) and values_equal(w, e) for w in wanted for e in elements)


def referenced_verdict(rule: Rule, setting: Setting) -> bool | None:
    """For a value that is another key's (`${k}`, `${oc.select:k,fallback}`) the rule checks where `k`
    is set: False when nothing is left to check here, True when oc.select's fallback breaks the rule
    (worth a note: it applies wherever `k` is not in the config), None when the value says nothing."""
    text = setting.value if isinstance(setting.value, str) else setting.text
    reference = config_reference(text) if setting.state == "dynamic" and text else None
    if reference is None or not key_matches(rule, replace(setting, key=reference.key, prefix="")):
        return None
    if reference.fallback is None:
        return False
    readable, value = fallback_value(reference.fallback)
    if not readable:
        return None
    fallback = replace(setting, state=State.STATIC, value=value, text=reference.fallback)
    return value_matches(rule, fallback)
