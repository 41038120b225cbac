"""Where moves land: a key that a group would set more than once once its keys are renamed.

Hydra takes the last of two overrides of one key without a word, and YAML refuses a mapping that holds a key
twice, so renaming `a.profiler.ranks` to `shared.profiler.ranks` in a launch that already sets the new key, or
that also sets `b.profiler.ranks` which another move takes to the same place (per-role sections merged into
one), must not simply rename each. When every one of them carries the same value, one is kept (the new key
already written, else the first in the file) and the others are removed; when they differ, a person chooses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.ir import Setting, SettingGroup
from bot.rules.fixes import renamed_key
from bot.rules.matching import LaunchFacts, group_applies, key_matches, value_matches
from bot.rules.model import Rule


@dataclass(frozen=True)
class Landing:
    """The settings of one group that end at `key` (more than one written place, at least one of them moved)."""

    key: str
    keeper: Setting  # the one left at `key`: the new key as already written, else the first moved there
    settings: tuple[Setting, ...]  # every one of them, in the file's order (a setting per written place)
    agree: bool  # every one carries the same written value

    def describe(self) -> str:
        return ", ".join(f"{s.key}={_written(s) or s.text} (line {s.line})" for s in self.settings)


def _moves(rules: Iterable[Rule]) -> list[Rule]:
    """The enabled rules that rename a key and do nothing else to it."""
    return [r for r in rules if r.enabled and r.match_key and r.fix is not None and r.fix.rename
            and not (r.fix.remove or r.fix.has_set or r.fix.map or r.fix.map_items or r.fix.remove_items
                     or r.fix.entrypoint or r.fix.drop_if_default)]


def _landing_key(moves: list[Rule], setting: Setting) -> str | None:
    """The key a move takes the setting to (the first move that applies), or None when none does."""
    for rule in moves:
        if key_matches(rule, setting) and value_matches(rule, setting) is True:
            return renamed_key(rule, setting.key)
    return None


def _written(setting: Setting) -> str | None:
    """The value as written: a literal's text, a run-time value's words (`$DISCRETE`: one variable of one
    command has one value), None for a deletion, a mapping or a value Hydra cannot read."""
    if setting.state == "static":
        return setting.text
    if setting.state == "dynamic":
        return getattr(setting, "value_written", None)
    return None


def _value(group: SettingGroup, setting: Setting) -> object:
    """What the setting writes, comparable with another's: a mapping by the keys under it and their values."""
    if setting.state != "mapping":
        return _written(setting)
    lead = setting.key + "."
    under = tuple(sorted((s.key[len(lead):], str(_value(group, s))) for s in group.settings
                         if s.key.startswith(lead) and "." not in s.key[len(lead):]))
    return under or None


def _same_value(group: SettingGroup, settings: list[Setting]) -> bool:
    written = {_value(group, s) for s in settings}
    return len(written) == 1 and None not in written


def landings(groups: list[SettingGroup], rules: Iterable[Rule],
             facts: LaunchFacts | None = None) -> dict[tuple[int, int], Landing]:
    """(id of the group, id of the written place) -> its landing, for every place of a crowded key."""
    every_move = _moves(rules)
    found: dict[tuple[int, int], Landing] = {}
    if not every_move:
        return found
    for group in groups:
        moves = [r for r in every_move if group_applies(r, group, facts)]
        if not moves:
            continue
        ends: dict[str, dict[int, tuple[Setting, bool]]] = {}
        for setting in group.settings:
            if setting.excerpt:
                continue
            new = _landing_key(moves, setting)
            place = ends.setdefault(new or setting.key, {})
            if id(setting.site) not in place:  # a place's values in other branches are one place
                place[id(setting.site)] = (setting, new is not None)
        for key, places in ends.items():
            if len({s.key for s, _ in places.values()}) < 2 or not any(moved for _, moved in places.values()):
                continue  # one key written twice was so before the move: renaming each changes nothing
            settings = sorted((s for s, _ in places.values()), key=lambda s: (s.line, s.column))
            written = [s for s, moved in places.values() if not moved]
            keeper = written[0] if written else settings[0]
            every = [s for s in group.settings if id(s.site) in places]  # each branch's value too
            landing = Landing(key, keeper, tuple(settings), _same_value(group, every))
            for site in places:
                found[(id(group), site)] = landing
    return found


def crowded(found: dict[tuple[int, int], Landing], groups: list[SettingGroup], setting: Setting) -> Landing | None:
    """The landing of the setting's written place in any of the groups that read it."""
    for group in groups:
        landing = found.get((id(group), id(setting.site)))
        if landing is not None:
            return landing
    return None
