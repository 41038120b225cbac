"""The migration an upstream change calls for, read from what it did to its apps' composed configs.

The steps: the key changes of every app (bot.upstream.key_changes over bot.upstream.config_tree), the values its
Python renames (bot.upstream.value_renames), the new flags it puts in front of code that ran before
(bot.upstream.flag_guards), and removals its own launch edits show to be moves. Each step is verified by Hydra's
own reading of the two configs: the old form composed before the change and is refused or inert after it, the new
form is a key of the config after it. A step is of high confidence when at least one more source agrees:

- a move: the value is unchanged under the new key, or the change's own launches set the new key instead;
- a removal: the change drops the Python that read the key, or no Python of the repository reads it after;
- a required key: the value added is the one every launch that relied on it composed before;
- a deprecated key: the change's YAML marks it deprecated, and its default became null.

A step stays a suggestion when a key the change adds carries a removed key's name, when another app's config still
has the key, or when the apps read it differently (listed, for a person). Keys or sections merged into one are
moves like any other: the rules apply them where a launch sets them alike, and leave a launch that sets them
differently to a person (bot.rules.landing).
High steps make the migration `watch` runs (and opens as a draft); bot.upstream.migration_rule writes both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.upstream.change_text import YAML_KEY, ChangeText, change_text, is_test
from bot.upstream.flag_guards import GuardedFlag, guarded_flags
from bot.upstream.key_changes import (
    DEPRECATED,
    GUARDED,
    MOVED,
    REMOVED,
    REQUIRED,
    VALUE,
    Flat,
    KeyChange,
    key_changes,
)
from bot.upstream.migration_rule import HIGH, LOW, Step, migration_rule
from bot.upstream.value_renames import ValueRename, value_renames

if TYPE_CHECKING:
    from bot.upstream.config_tree import AppConfig

OVERRIDE = re.compile(r"""(?:^|[\s"'])([+~]{0,2})([A-Za-z_][\w.]*\.[\w.]+)=([^\s"'\\]*)""")


@dataclass
class ConfigMigration:
    rule: dict[str, Any] | None  # the high-confidence steps as one format 2 rule
    suggested: dict[str, Any] | None  # the others, as one rule a maintainer may adopt
    steps: list[Step] = field(default_factory=list)
    disagreeing: list[str] = field(default_factory=list)  # keys the apps read differently


def _reads(lines: list[str], key: str) -> int:
    """How many of these Python lines read the config key: its parent's name, then its own (`fsdp_config.x`,
    `fsdp_config.get("x"`, `fsdp_config["x"]`); a name alone is too often another object's attribute."""
    leaf = key.rpartition(".")[2]
    parent = key.rpartition(".")[0].rpartition(".")[2]
    if not parent:
        return 0
    pattern = re.compile(rf"""\b{re.escape(parent)}(\.|\[['"]|\.get\(['"]){re.escape(leaf)}\b""")
    return sum(1 for line in lines if pattern.search(line))


class TreePython:
    """The tree's Python lines (tests aside), read once: the first time a removal asks whether any reads its key."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: list[list[str]] | None = None

    def reads(self, key: str) -> bool:
        if self._files is None:
            self._files = []
            for path in self.root.rglob("*.py"):
                if is_test(path.relative_to(self.root).as_posix()) or path.is_symlink():
                    continue
                try:
                    self._files.append(path.read_text(encoding="utf-8", errors="replace").splitlines())
                except OSError:
                    continue
        return any(_reads(lines, key) for lines in self._files)


def _own_edits(text: ChangeText) -> dict[str, set[str]]:
    """Old key -> the keys the change's own launch edits set instead (a removed `old=v` beside an added `new=v` in
    one hunk), or "" where they drop the override."""
    out: dict[str, set[str]] = {}
    for hunk in text.launch_hunks:
        removed = [(m.group(2), m.group(3)) for line in hunk.removed for m in OVERRIDE.finditer(line)]
        added = [(m.group(2), m.group(3)) for line in hunk.added for m in OVERRIDE.finditer(line)]
        added_keys = {key for key, _ in added}
        for key, value in removed:
            if key in added_keys:
                continue
            instead = {k for k, v in added if v == value and k not in {r for r, _ in removed}}
            out.setdefault(key, set()).update(instead or {""})
    return out


@dataclass
class Sources:
    """What the steps' sources are read from, made once per change: its own lines, the keys its own launches set
    instead of others (_own_edits) and the names of those they add, the keys of the configs after it (`valid`),
    the names of keys new in them, the new keys more than one old key moves to, and the tree's Python."""

    text: ChangeText
    python: TreePython
    valid: set[str]
    new_leaves: set[str]
    own: dict[str, set[str]] = field(default_factory=dict)
    launched: set[str] = field(default_factory=set)
    shared: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.own = _own_edits(self.text)
        self.launched = {m.group(2).rpartition(".")[2] for hunk in self.text.launch_hunks for line in hunk.added
                         for m in OVERRIDE.finditer(line)}


def _moved_by_edits(step: Step, sources: Sources) -> Step:
    """A removal the change's own launch edits make a move of (`old=v` -> `new=v`, the new key one of the config
    after it): that move, generalised to the launches the change did not touch."""
    change = step.change
    if change.kind != REMOVED or change.subtree:
        return step
    instead = sources.own.get(change.old, set()) - {""}
    if len(instead) != 1 or next(iter(instead)) not in sources.valid:
        return step
    new = next(iter(instead))
    moved = KeyChange(MOVED, change.old, new, change.value,
                      evidence=f"`{change.old}` is gone and the change's own launches set `{new}` instead")
    return Step(moved, step.configs, ["the change's own launch edits make this move; the new key is in the config"])


def _named_anew(change: KeyChange, sources: Sources) -> bool:
    """Whether a key the change adds (to a config, or to its own launches) has the removed key's name, or for a
    section one of its keys' names: the removal may be a move the configs alone do not show."""
    names = {change.old.rpartition(".")[2]} | set(change.subtree_leaves)
    return bool(names & (sources.new_leaves | sources.launched))


def _still_valid(change: KeyChange, valid: set[str]) -> bool:
    """Whether a config after the change (another app's) still has the key, or for a section a key under it."""
    return change.old in valid or (change.subtree and any(k.startswith(change.old + ".") for k in valid))


_MERGED = " (others move there too: a launch that sets them differently is left to a person)"


def _agreeing(step: Step, sources: Sources) -> list[str]:
    """The sources besides Hydra's reading that agree on the step (none: it is only suggested). Where several
    old keys move to one new key, a launch that sets them alike keeps the value once and one that sets them
    differently is left for a person (bot.rules.landing)."""
    change = step.change
    merged = change.new is not None and change.new in sources.shared
    if merged and change.kind != MOVED:
        return []
    if change.kind in (MOVED, REMOVED) and _still_valid(change, sources.valid):
        return []  # another app's config still has it: its launches would lose a setting that works
    if change.kind == MOVED:
        if change.subtree:
            return ["the whole section is unchanged under the new key" + (_MERGED if merged else "")]
        if change.renamed_only:
            return [f"the new key's path is the old name's words under `{change.new.rpartition('.')[0]}`"
                    if change.new else ""]
        return [f"the value `{change.value}` is unchanged under the new key" + (_MERGED if merged else "")]
    if change.kind == REQUIRED:
        return [f"`{change.value}` is what every launch that left it unset composed before the change"]
    if change.kind == DEPRECATED:
        return [] if change.successor else ["the change's YAML marks it deprecated"]
    if _named_anew(change, sources):
        return []  # a new key of its name may be where it went: a person tells
    own, text = sources.own, sources.text
    edits = own.get(change.old, set())
    under = ({k for key, keys in own.items() if key.startswith(change.old + ".") for k in keys} if change.subtree
             else set())
    if (edits | under) - {""}:  # the change's own launches set another key instead: a move this diff did not see
        return []
    if edits:
        return ["the change's own launch edits drop it"]
    dropped = _reads(text.removed_python, change.old) - _reads(text.added_python, change.old)
    if dropped > 0:
        return [f"the change drops {dropped} line(s) of Python that read it"]
    if not change.subtree and not sources.python.reads(change.old):
        return ["no Python of the repository reads it after the change"]
    return []


def _launch_key(key: str) -> bool:
    """Keys a launch may set: never Hydra's `_target_`-style internals."""
    return not any(part.startswith("_") and part.endswith("_") for part in key.split("."))


def _value_renames(apps: list[AppConfig], text: ChangeText) -> list[ValueRename]:
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for app in apps:
        for key, value in Flat.of(app.before or {}).leaves.items():
            before.setdefault(key, value)
        for key, value in Flat.of(app.after or {}).leaves.items():
            after.setdefault(key, value)
    return value_renames(text.python_hunks, text.yaml_hunks, before, after)


def _guarded_flags(apps: list[AppConfig], text: ChangeText) -> list[GuardedFlag]:
    added: dict[str, Any] = {}
    for app in apps:
        if app.before is None or app.after is None:
            continue
        old = Flat.of(app.before)
        for key, value in Flat.of(app.after).leaves.items():
            if not old.has(key):
                added.setdefault(key, value)
    return guarded_flags(text.python_hunks, added)


def _code_says(text: ChangeText) -> bool:
    """Whether the change's Python renames a value its YAML or a deprecation message agrees on, or guards old code
    with a flag its YAML adds: then the configs are read for the keys."""
    from bot.upstream.flag_guards import guarded_blocks
    from bot.upstream.value_renames import python_renames, yaml_renames

    renamed = python_renames(text.python_hunks)
    if renamed:
        in_yaml = yaml_renames(text.yaml_hunks)
        if any(pair in in_yaml or "deprecation" in code.kinds for pair, code in renamed.items()):
            return True
    added = {m.group(1) for hunk in text.yaml_hunks for line in hunk.added if (m := YAML_KEY.match(line))}
    added |= {m.group(1) for line in text.added_yaml if (m := YAML_KEY.match(line))}
    return any(name in added for hunk in text.python_hunks for name, _ in guarded_blocks(hunk))


def _derived(change: KeyChange) -> bool:
    """A removed key whose value was an interpolation of another: derived, not a setting launches make."""
    return change.kind == REMOVED and isinstance(change.value, str) and "${" in change.value


def _no_moves_onto_switches(steps: dict[tuple[object, ...], Step], by_key: dict[str, set[tuple[object, ...]]]) -> None:
    """Drop the moves onto a new flag that guards code which ran before: that code ran whatever any old key said,
    so no old key is the flag under another name (`critic.profiler.discrete` beside a new `enable` of the same
    default is not its rename)."""
    switches = {s.change.old for s in steps.values() if s.change.kind == GUARDED}
    for ident in [i for i, s in steps.items() if s.change.kind in (MOVED, DEPRECATED) and s.change.new in switches]:
        by_key.get(steps.pop(ident).change.old, set()).discard(ident)


def _section_switch(text: ChangeText, key: str) -> str | None:
    """The flag's section (its parent key) where the change's own launch edits turn the flag on only beside
    other keys of that section (`x.profiler.enable=True` added beside `x.profiler.ranks=...`): launches that
    configure the section ran the guarded code; the others are left as they are."""
    parent, _, leaf = key.rpartition(".")
    if not parent:
        return None
    setting = [hunk for hunk in text.launch_hunks if any(f"{leaf}=" in line for line in hunk.added)]
    section = re.escape(parent.rpartition(".")[2])
    sibling = re.compile(rf"\b{section}\.(?!{re.escape(leaf)}=)[\w.]+=")
    if setting and all(any(sibling.search(line) for line in hunk.added + hunk.context) for hunk in setting):
        return parent
    return None


def _launches_set(text: ChangeText, key: str) -> bool:
    """Whether the change's own edits of scripts, docs or notebooks add a line setting the key (`leaf=`)."""
    leaf = key.rpartition(".")[2]
    return any(f"{leaf}=" in line for hunk in text.launch_hunks for line in hunk.added)


def read_migration(history: Path, tree: Path, before: str, after: str, paths: list[str],
                   upstream: str = "", new_defaults: bool = False) -> ConfigMigration:
    """The migration the change's config edits call for, from every app of `tree` they reach. `new_defaults` (an
    upgrade's): a new flag in front of code that ran before is set only where the change's own launches set it
    (the upstream kept the old behaviour itself); else the upgrade takes the upstream's new default."""
    from bot.upstream.config_tree import app_configs

    text = change_text(history, before, after)
    if not text.reshaped and not _code_says(text):
        return ConfigMigration(None, None)  # nothing a launch can break: no app is composed
    steps: dict[tuple[object, ...], Step] = {}
    by_key: dict[str, set[tuple[object, ...]]] = {}
    apps = app_configs(history, tree, before, after, paths)
    flats = [(app, Flat.of(app.before or {}), Flat.of(app.after or {})) for app in apps]  # each app's, once
    for app in apps:
        if app.before is None or app.after is None:
            continue
        for change in key_changes(app.before, app.after, text.deprecated):
            if not _launch_key(change.old) or _derived(change):
                continue
            step = steps.setdefault(change.ident(), Step(change))
            step.configs.add(app.config_name)
            by_key.setdefault(change.old, set()).add(change.ident())
    for rename in _value_renames(apps, text):
        change = KeyChange(VALUE, rename.key, None, (rename.old, rename.new), in_list=rename.in_list,
                           evidence=f"the change's Python reads `{rename.new}` where it read `{rename.old}` for "
                                    f"`{rename.key}`" if rename.verified else "")
        step = steps.setdefault(change.ident(), Step(change, agreeing=list(rename.sources)))
        step.configs.update(app.config_name for app, old, _ in flats if app.before and rename.key in old.leaves)
        if not rename.verified:
            step.agreeing = []
    for flag in _guarded_flags(apps, text):
        if new_defaults and not _launches_set(text, flag.key):
            continue
        section = _section_switch(text, flag.key)
        change = KeyChange(GUARDED, flag.key, None, flag.keep,
                           evidence=f"`{flag.key}` is new, and {flag.where} now runs code that always ran only when "
                                    f"it is {flag.keep}" + ("" if section is None else
                                    f", set where a launch sets a key of `{section}`, as the change's own launches do"))
        step = steps.setdefault(change.ident(), Step(change, agreeing=[
            "the guarded code is the code that ran before, so the value keeps what launches did"], section=section))
        step.configs.update(app.config_name for app, _, new in flats if app.after and flag.key in new.leaves)
    _no_moves_onto_switches(steps, by_key)
    disagreeing = sorted(k for k, idents in by_key.items() if len(idents) > 1)
    valid = {key for _, _, new in flats for key in new.leaves}
    new_leaves = {key.rpartition(".")[2] for app, old, new in flats if app.before is not None
                  for key in set(new.leaves) - set(old.leaves)}
    sources = Sources(text, TreePython(tree), valid, new_leaves)
    kept = [_moved_by_edits(s, sources) for s in steps.values() if s.change.old not in disagreeing]
    targets = [s.change.new for s in kept if s.change.new is not None]
    sources.shared = {t for t in targets if targets.count(t) > 1}
    for step in kept:
        if step.change.kind not in (VALUE, GUARDED) and not step.agreeing:
            step.agreeing = _agreeing(step, sources)
        step.confidence = HIGH if step.agreeing else LOW
    kept.sort(key=lambda s: (s.change.old, s.change.kind))
    high = [s for s in kept if s.confidence == HIGH]
    low = [s for s in kept if s.confidence == LOW]
    return ConfigMigration(migration_rule(high, upstream, HIGH, valid), migration_rule(low, upstream, LOW, valid),
                           kept, disagreeing)


