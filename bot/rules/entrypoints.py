"""`fix.entrypoint`: launches of a module that moved, one finding per place the entry point is written.

The longest old prefix (at a dot boundary) of the launch's module wins; the front end writes the new
prefix in the entry's own form (module or script path). Where the repository is known, the new
module must be in it, else the finding is manual.
"""

from __future__ import annotations

from typing import Protocol

from bot.ir import CALLER, SCRIPT, Launch, MoveEntry, Plan, SettingGroup
from bot.model import Finding
from bot.rules.fixes import manual
from bot.rules.model import Rule

KEY = "<entrypoint>"


class EntryTargets(Protocol):
    """Whether the repository holds what a launch would run with its module prefix `old` moved to `new`."""

    def has(self, launch: Launch, old: str, new: str) -> bool: ...


def moved_to(rule: Rule, module: str) -> tuple[str, str] | None:
    """(old prefix, new prefix) of the rule's longest mapping key that the module starts with."""
    assert rule.fix is not None
    for old, new in rule.fix.entrypoint:  # longest first
        if module == old or module.startswith(old + "."):
            return old, new
    return None


def launches(groups: list[SettingGroup]) -> list[tuple[SettingGroup, list[SettingGroup]]]:
    """Groups that launch a module, once per place their entry point is written (with every group there)."""
    sites: dict[object, list[SettingGroup]] = {}
    for group in groups:
        if group.entry and group.entry_written and group.role not in (SCRIPT, CALLER):
            sites.setdefault(group.entry_site if group.entry_site is not None else id(group), []).append(group)
    return [(members[0], members) for members in sites.values()]


def plan_move(rule: Rule, finding: Finding, group: SettingGroup, moved: tuple[str, str],
              targets: EntryTargets | None) -> Plan | None:
    old, new = moved
    assert group.entry is not None
    module = new + group.entry[len(old):]
    if targets is not None and group.launch is not None and not targets.has(group.launch, old, new):
        manual(finding, f"the target is not in this checkout (no {module} in the repository)")
        return None
    return Plan(finding, group, [MoveEntry(module, old, new)], f"now runs {module}")
