"""A loaded, validated rule (format 1, or a format 2 migration of several steps). Built only by bot.rules.loader."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.rules.globs import Glob

PREFIXES = ("", "+", "++", "~")
SEVERITIES = ("error", "warning", "note")  # note: never fails --check, never a problem in a pull request
CHANGE_TYPES = ("fix", "chore", "refactor")  # the commit type of a rule's pull request


@dataclass(frozen=True)
class EnsureEntry:
    key: str
    value: Any
    prefix: str
    if_sets: tuple[Glob, ...] = ()


RELATION_OPS = (">=", ">", "<=", "<", "==", "!=", "multiple_of")


@dataclass(frozen=True)
class Relation:
    """Extension: a launch's `left` value must stand in `op` to a sibling key's value or a constant."""

    left: tuple[Glob, ...]
    op: str
    right: str | None = None  # a key: a name without dots is a sibling of the left key
    value: Any = None  # the constant, when there is no right key
    message: str = ""


@dataclass(frozen=True)
class Fix:
    set: Any = None
    has_set: bool = False
    rename: str | None = None
    map: tuple[tuple[Any, Any], ...] = ()
    remove: bool = False
    prefix: str | None = None
    map_items: tuple[tuple[Any, Any], ...] = ()  # list elements: old -> new
    remove_items: tuple[Any, ...] = ()  # list elements dropped
    entrypoint: tuple[tuple[str, str], ...] = ()  # launches: old dotted module prefix -> new, longest first
    drop_if_default: bool = False  # a renamed override whose value is the new key's default is removed instead


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    description: str
    severity: str
    enabled: bool
    source: str
    upstream: str | None = None
    change_type: str = "fix"  # the pull request's conventional-commit type: fix | chore
    files: tuple[Glob, ...] = ()
    trigger_paths: tuple[Glob, ...] = ()
    trigger_text: tuple[str, ...] = ()
    when_sets: tuple[Glob, ...] = ()
    when_unset: tuple[Glob, ...] = ()
    when_entrypoint: tuple[Glob, ...] = ()
    when_imports: tuple[str, ...] = ()  # the launch's entry point loads one of these modules (static imports)
    when_config: tuple[str, ...] = ()  # the launch's composed config is one of these or inherits one
    when_value: tuple[tuple[str, Any], ...] = ()  # composed values, from an override or the YAML
    match_key: tuple[Glob, ...] = ()
    match_exclude: tuple[Glob, ...] = ()
    match_value: tuple[Any, ...] | None = None
    match_value_not: tuple[Any, ...] | None = None
    match_prefix: tuple[str, ...] | None = None
    match_item: tuple[Any, ...] | None = None  # the value is one of these, or a list holding one
    fix: Fix | None = None
    ensure: tuple[EnsureEntry, ...] = ()
    ensure_together: bool = False
    relation: Relation | None = None
    comments: str = ""  # note | fix | off for commented-out overrides and prose literals; "": the default
    # a migration (format 2): its steps, each a rule of this id with one match and fix (or ensure, or
    # relation); the scan evaluates the steps, everything else (reports, pull requests, baselines) the migration
    steps: tuple[Rule, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def comment_policy(self, prose: bool = False) -> str:
        """What the rule does to overrides in comments (or prose): the field, else fix for a mechanical fix
        (in prose not a `set`: a sentence naming a value a rule replaces mostly says it no longer works)."""
        if self.comments:
            return self.comments
        fix = self.fix
        if fix is None or fix.remove or (prose and fix.has_set):
            return "note"
        if fix.map_items or fix.remove_items or fix.entrypoint:  # comments and prose are not written so
            return "note"
        return "fix"

    def prefilter_tokens(self) -> list[bytes] | None:
        """Byte strings of which a file must contain one for this rule to fire; None: no filter."""
        if self.steps:  # a migration fires where one of its steps does
            each = [step.prefilter_tokens() for step in self.steps]
            return None if any(t is None for t in each) else sorted({t for ts in each for t in ts or ()})
        tokens: set[str] = set()
        for glob in (*self.match_key, *(self.relation.left if self.relation else ())):
            leaves = glob.leaf_alternatives()
            if leaves is None:
                return None
            tokens.update(leaves)
            tokens.update(leaf.rsplit("/", 1)[-1] for leaf in leaves if "/" in leaf)  # `model/encoder` is
            # written `- encoder: small` in model's own defaults list
        if self.fix is not None:  # a moved launch names the old package, dotted or as a path
            tokens.update(old.rsplit(".", 1)[-1] for old, _ in self.fix.entrypoint)
        if self.ensure:
            anchors = list(self.when_sets)
            if not anchors:
                if any(not entry.if_sets for entry in self.ensure):
                    return None
                anchors = [g for entry in self.ensure for g in entry.if_sets]
            for glob in anchors:
                fragments = glob.literal_fragments()
                if not fragments:
                    return None
                tokens.add(max(fragments, key=len).strip("."))
        return sorted(t.encode() for t in tokens if t) or None


def evaluated(rules: list[Rule]) -> list[Rule]:
    """What the scan evaluates: each rule, or a migration's steps in its place."""
    return [step for rule in rules for step in (rule.steps or (rule,))]


def consults_config(rules: list[Rule]) -> bool:
    """Whether a rule reads the composed Hydra config (when.config, when.value, prefix: auto, drop_if_default) or
    the modules a launch's entry point loads (when.imports).

    Composition reads files discovery does not list and the environment (`oc.env`), and an entry point's
    imports are other files: the caches never hold such results.
    """
    return any(r.when_config or r.when_value or r.when_imports or any(e.prefix == "auto" for e in r.ensure)
               or (r.fix is not None and r.fix.drop_if_default) for r in evaluated(rules) if r.enabled)
