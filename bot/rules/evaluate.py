"""Rules x launches of one shell script -> findings, each fixable with edits or manual with a reason.

An override that several launches share (an array element, a packed string) is one site and
one finding. A value that comes through a variable is fixed at the variable's definition when
that definition feeds nothing but overrides this rule fixes the same way; otherwise the
expansion in the override is replaced by the literal, and the finding says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.hydra.grammar import bool_style, format_value, values_equal
from bot.lang.shell.edits import (
    insertion_after_token,
    insertion_after_word,
    quote_for,
    remove_token,
    remove_word,
    word_node,
)
from bot.lang.shell.launches import SHELL_SCRIPT, Launch, Override, line_column
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.text import source_span
from bot.lang.shell.variables import Definition
from bot.model import Edit, Finding, Span, Status
from bot.rules.globs import any_match
from bot.rules.model import EnsureEntry, Rule
from bot.rules.values import ValueInfo, read_value


class LaunchFacts(Protocol):
    """What the repository's Hydra config says about a launch (bot.compose.ConfigFacts)."""

    def configs(self, launch: Launch) -> set[str] | None: ...
    def value(self, launch: Launch, key: str) -> tuple[bool | None, Any]: ...  # None: cannot tell


def config_conditions_hold(rule: Rule, launch: Launch, facts: LaunchFacts | None) -> bool:
    """`when.config` and `when.value`; without the repository's config they cannot hold."""
    if not rule.when_config and not rule.when_value:
        return True
    if facts is None:
        return False
    if rule.when_config:
        names = facts.configs(launch)
        if names is None or not names & set(rule.when_config):
            return False
    for key, wanted in rule.when_value:
        found, actual = facts.value(launch, key)
        if found is not True or not values_equal(wanted, actual):
            return False
    return True


def launch_applies(rule: Rule, launch: Launch, facts: LaunchFacts | None = None) -> bool:
    if not config_conditions_hold(rule, launch, facts):
        return False
    if rule.when_entrypoint and not (launch.module and any_match(list(rule.when_entrypoint), launch.module)):
        return False
    keys = [o.key for o in launch.overrides if o.prefix != "~"]
    if rule.when_sets and not any(any_match(list(rule.when_sets), k) for k in keys):
        return False
    return not (rule.when_unset and any(any_match(list(rule.when_unset), k) for k in keys))


def key_matches(rule: Rule, override: Override) -> bool:
    if not any_match(list(rule.match_key), override.key):
        return False
    if rule.match_exclude and any_match(list(rule.match_exclude), override.key):
        return False
    if rule.match_prefix is not None:
        return override.prefix in rule.match_prefix
    has_value_test = rule.match_value is not None or rule.match_value_not is not None
    return not (has_value_test and override.prefix == "~")


def value_matches(rule: Rule, info: ValueInfo) -> bool | None:
    """True, False, or None when the script does not say (the value is known only at run time)."""
    fix = rule.fix
    if (fix is not None and fix.has_set and not fix.rename and fix.prefix is None and info.state == "static"
            and values_equal(fix.set, info.value)):
        return False  # already what the fix would write
    needs_value = fix is not None and bool(fix.map)
    if rule.match_value is None and rule.match_value_not is None and not needs_value:
        return True
    if rule.match_value is None and rule.match_value_not is None:
        return None if info.state in ("dynamic", "invalid") else info.state != "none"
    if info.state == "none":
        return False
    if info.state != "static":
        return None
    ok = True
    if rule.match_value is not None:
        ok = any(values_equal(v, info.value) for v in rule.match_value)
    if ok and rule.match_value_not is not None:
        ok = not any(values_equal(v, info.value) for v in rule.match_value_not)
    return ok


@dataclass
class Site:
    overrides: list[Override] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)


@dataclass
class ValuePlan:
    """A new value to write for one matched override, before deciding where it goes."""

    finding: Finding
    text: str  # Hydra text of the new value
    use: Span | None  # the `$VAR` in the override, when the value came through one variable
    use_ctx: str
    definitions: list[tuple[Definition, Span, str]]  # (definition, literal span, its quoting ctx)
    direct: tuple[Span, str] | None  # literal in the override itself: (span, ctx)


class FileEvaluator:
    def __init__(self, path: str, script: ShellScript, facts: LaunchFacts | None = None) -> None:
        self.facts = facts
        self.path = path
        self.script = script
        self.src = script.src
        self._error_lines = script.error_lines()

    # ---- helpers -------------------------------------------------------------------
    def line_of(self, pos: int) -> int:
        return self.src.count(b"\n", 0, pos) + 1

    def near_error(self, span: Span) -> int | None:
        if not self._error_lines:
            return None
        first = self.line_of(span.start)
        last = self.line_of(max(span.start, span.end - 1)) if span.end > span.start else first
        for line in range(first, last + 1):
            if line in self._error_lines:
                return line
        return None

    def finding(self, rule: Rule, override: Override, info: ValueInfo | None, status: Status,
                message: str) -> Finding:
        return Finding(
            rule=rule.id, path=self.path, line=override.line, column=override.column,
            key=override.key, value=info.text if info and info.text is not None else None,
            status=status, message=message, severity=rule.severity,
        )

    def manual(self, finding: Finding, reason: str) -> Finding:
        finding.status = Status.MANUAL
        finding.message = f"{finding.message}; {reason}" if finding.message else reason
        finding.edits.clear()
        finding.fix_site = None
        return finding

    def attach(self, finding: Finding, rule: Rule, edits: list[tuple[Span, str]], where: str = "") -> Finding:
        for span, _ in edits:
            line = self.near_error(span)
            if line is not None:
                return self.manual(finding, f"not edited: line {line} is in or next to a part of the "
                                            "file the shell parser could not read")
        finding.edits = [Edit(self.path, span, text, rule.id) for span, text in edits]
        if edits:
            finding.fix_site = (self.path, self.line_of(edits[0][0].start))
        if where:
            finding.message = f"{finding.message} {where}" if where.startswith(("at ", "in ")) else (
                f"{finding.message}; {where}")
        return finding

    # ---- match rules ---------------------------------------------------------------
    def sites(self, rule: Rule) -> dict[object, Site]:
        sites: dict[object, Site] = {}
        for launch in self.script.launches:
            for override in launch.overrides:
                if not key_matches(rule, override):
                    continue
                ident: object = override.key_span or id(override)
                site = sites.setdefault(ident, Site())
                site.overrides.append(override)
                if all(existing is not launch for existing in site.launches):
                    site.launches.append(launch)
        return sites

    def match_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        plans: list[ValuePlan] = []
        for site in self.sites(rule).values():
            applies = [launch_applies(rule, launch, self.facts) for launch in site.launches]
            if not any(applies):
                continue
            variants: dict[tuple[object, ...], tuple[Override, ValueInfo]] = {}
            for override in site.overrides:
                info = read_value(override)
                variants.setdefault(info.identity(), (override, info))
            verdicts = [value_matches(rule, info) for _, info in variants.values()]
            if all(v is False for v in verdicts):
                continue
            first, first_info = next(iter(variants.values()))
            finding = self.finding(rule, first, first_info, Status.FIXABLE, "")
            findings.append(finding)
            finding.message = self.describe(first, first_info, rule)
            if not all(applies):
                lines = sorted({launch.line for launch, ok in zip(site.launches, applies) if not ok})
                self.manual(finding, "shared with launches the rule does not apply to (line "
                            + ", ".join(map(str, lines)) + ")")
                continue
            unknown = [info for (_, info), v in zip(variants.values(), verdicts) if v is None]
            if unknown:
                finding.value = None
                if unknown[0].state == "invalid":
                    self.manual(finding, "a person must check it")
                else:
                    self.manual(finding, "known only at run time: a person must check it")
                continue
            if not all(verdicts):
                choices = " or ".join(
                    f"{info.text} {info.origin() or '(literal)'}" for _, info in variants.values()
                )
                finding.message = f"{first.prefix}{first.key} depends on the branch taken: {choices}"
                self.manual(finding, "a person must choose")
                continue
            if first.key_span is None:
                self.manual(finding, "the key is not written in one place")
                continue
            self.plan_fix(rule, finding, list(variants.values()), plans)
        self.place_values(rule, plans)
        return findings

    def describe(self, override: Override, info: ValueInfo, rule: Rule) -> str:
        shown = f"{override.prefix}{override.key}"
        if info.state == "dynamic":
            return f"{shown} is set at run time, {info.reason}"
        if info.state == "none":
            return f"{shown} deletes the key"
        if info.state == "invalid":
            return f"{shown}={info.text}: {info.reason}"
        origin = info.origin()
        return f"{shown} is {info.text}" + (f", {origin}" if origin else "")

    def plan_fix(self, rule: Rule, finding: Finding, variants: list[tuple[Override, ValueInfo]],
                 plans: list[ValuePlan]) -> None:
        fix = rule.fix
        if fix is None:
            self.manual(finding, "the rule reports this without a fix")
            finding.status = Status.MANUAL
            return
        override, info = variants[0]
        edits: list[tuple[Span, str]] = []
        if fix.remove:
            removal = self.removal(override)
            if removal is None:
                self.manual(finding, "cannot remove it without touching other text")
            else:
                self.attach(finding, rule, [removal], "removed")
            return
        assert override.key_span is not None
        if fix.rename:
            new_key = fix.rename if "." in fix.rename else override.key.rsplit(".", 1)[0] + "." + fix.rename
            if "." not in override.key and "." not in fix.rename:
                new_key = fix.rename
            edits.append((override.key_span, new_key))
        if fix.prefix is not None and fix.prefix != override.prefix:
            if override.prefix_span is None:
                self.manual(finding, "the prefix is not written in one place")
                return
            edits.append((override.prefix_span, fix.prefix))
        if fix.has_set or fix.map:
            new_texts = {self.new_value(rule, info) for _, info in variants}
            if None in new_texts:
                self.manual(finding, f"no mapping for the value {info.text}")
                return
            if len(new_texts) > 1:
                self.manual(finding, "the branches need different new values")
                return
            new_text = next(iter(new_texts))
            assert new_text is not None
            plan = self.value_plan(finding, variants, new_text)
            if plan is None:
                return
            renamed = f"renamed to {edits[0][1]} and " if fix.rename and edits else ""
            finding.message += f"; {renamed}set to {new_text}"
            self.attach(finding, rule, edits)
            plan.finding = finding
            if finding.status is Status.FIXABLE:
                plans.append(plan)
            return
        self.attach(finding, rule, edits, self.key_change_words(rule))

    @staticmethod
    def key_change_words(rule: Rule) -> str:
        assert rule.fix is not None
        words = []
        if rule.fix.rename:
            words.append(f"renamed to {rule.fix.rename}")
        if rule.fix.prefix is not None:
            words.append(f"prefix set to {rule.fix.prefix!r}")
        return ", ".join(words)

    def new_value(self, rule: Rule, info: ValueInfo) -> str | None:
        assert rule.fix is not None
        style = bool_style(info.text)
        if rule.fix.has_set:
            return format_value(rule.fix.set, style)
        for old, new in rule.fix.map:
            if info.state == "static" and values_equal(old, info.value):
                return format_value(new, style)
        return None

    def value_plan(self, finding: Finding, variants: list[tuple[Override, ValueInfo]],
                   new_text: str) -> ValuePlan | None:
        override, info = variants[0]
        pieces = override.value_pieces
        if not pieces:
            self.manual(finding, "the value is empty; write it by hand")
            return None
        if not info.extra:
            span = source_span(pieces)
            if span is None:
                self.manual(finding, "the value is spread over several quoted parts")
                return None
            return ValuePlan(finding, new_text, None, "", [], (span, pieces[0].ctx))
        uses = {info.extra[0].use for _, info in variants}
        if len(uses) != 1 or any(not p.via or p.via[-1].use not in {v.use for v in info.extra} for p in pieces):
            self.manual(finding, "the value is built from several parts")
            return None
        definitions: list[tuple[Definition, Span, str]] = []
        for _, variant in variants:
            if len(variant.extra) != 1:
                definitions = []
                break
            variant_override = next(o for o, i in variants if i is variant)
            span = source_span(variant_override.value_pieces)
            if span is None:
                definitions = []
                break
            definitions.append((variant.extra[0].definition, span, variant_override.value_pieces[0].ctx))
        via = info.extra[0]
        return ValuePlan(finding, new_text, via.use, via.use_ctx, definitions, None)

    def place_values(self, rule: Rule, plans: list[ValuePlan]) -> None:
        wanted: dict[Span, str] = {p.use: p.text for p in plans if p.use is not None}
        for plan in plans:
            finding = plan.finding
            if plan.direct is not None:
                span, ctx = plan.direct
                text = quote_for(ctx, plan.text)
                if text is None:
                    self.manual(finding, f"cannot write {plan.text} safely in this quoting")
                    continue
                self.attach(finding, rule, [*((e.span, e.text) for e in finding.edits), (span, text)])
                continue
            assert plan.use is not None
            blocker = self.definition_blocker(plan, wanted)
            if blocker is None:
                edits = []
                for _, span, ctx in plan.definitions:
                    text = quote_for(ctx, plan.text)
                    if text is None:
                        blocker = "its quoting"
                        break
                    edits.append((span, text))
                else:
                    lines = ", ".join(str(d.line) for d, _, _ in plan.definitions)
                    where = f"at the definition{'s' if len(edits) > 1 else ''} (line {lines})"
                    self.attach(finding, rule, [*((e.span, e.text) for e in finding.edits), *edits], where)
                    continue
            text = quote_for(plan.use_ctx, plan.text)
            if text is None:
                self.manual(finding, f"cannot write {plan.text} safely in this quoting")
                continue
            self.attach(finding, rule, [*((e.span, e.text) for e in finding.edits), (plan.use, text)],
                        f"in the override, since {blocker}")

    def definition_blocker(self, plan: ValuePlan, wanted: dict[Span, str]) -> str | None:
        """Why the fix cannot go at the definitions (None: it can)."""
        if not plan.definitions:
            return "the value comes through more than one variable"
        for definition, _, _ in plan.definitions:
            if definition.kind != "scalar" or len(definition.values) != 1:
                return f"{definition.name} has more than one possible value"
            for use in definition.uses:
                if wanted.get(use) != plan.text:
                    return f"{definition.name} is also used at line {self.line_of(use.start)}"
        return None

    def removal(self, override: Override) -> tuple[Span, str] | None:
        assert override.key_span is not None
        if not override.key_chain or override.key_chain[-1].definition.kind == "array":
            node = word_node(self.script.tree, override.key_span)
            if node is None or node.start_byte > (override.prefix_span or override.key_span).start:
                return None
            return remove_word(self.src, node)
        span = source_span(override.field.pieces)
        if span is None:
            return None
        return remove_token(self.src, span)

    # ---- relation rules ------------------------------------------------------------
    def relation_rule(self, rule: Rule) -> list[Finding]:
        from bot.rules.relations import Side, violations

        findings: list[Finding] = []
        seen: set[tuple[int, int]] = set()
        for launch in self.script.launches:
            if not launch_applies(rule, launch, self.facts):
                continue
            sides = []
            for override in launch.overrides:
                info = read_value(override)
                if override.prefix != "~" and info.state == "static":
                    sides.append(Side(override.key, info.value, (override, info)))
            for left, _, message in violations(rule, sides):
                override, info = left.handle
                if (override.line, override.column) in seen:
                    continue
                seen.add((override.line, override.column))
                findings.append(self.finding(rule, override, info, Status.MANUAL, message))
        return findings

    # ---- ensure rules --------------------------------------------------------------
    def ensure_rule(self, rule: Rule) -> list[Finding]:
        findings: list[Finding] = []
        needs: dict[int, list[EnsureEntry]] = {}
        for launch in self.script.launches:
            if launch.entry_kind == SHELL_SCRIPT or not launch_applies(rule, launch, self.facts):
                continue  # a script handed overrides may set the key itself: adding one could clash
            present: dict[str, list[Override]] = {}
            for override in launch.overrides:
                if override.prefix != "~":
                    present.setdefault(override.key, []).append(override)
            keys = list(present)
            entries = [e for e in rule.ensure if not e.if_sets or any(any_match(list(e.if_sets), k) for k in keys)]
            if rule.ensure_together:
                conflict = self.conflict(entries, present)
                if conflict is not None:
                    findings.append(self.launch_finding(rule, launch, entries[0], Status.MANUAL, conflict))
                    continue
            missing = [e for e in entries if e.key not in present]
            if missing:
                needs[id(launch)] = missing
        placed: dict[tuple[int, str], tuple[Span, str, str]] = {}
        for launch in self.script.launches:
            missing = needs.get(id(launch), [])
            anchor_key = missing[0].key if rule.ensure_together and missing else None
            for entry in missing:
                finding = self.launch_finding(rule, launch, entry, Status.FIXABLE, "")
                findings.append(finding)
                done = placed.get((id(launch), entry.key))
                if done is not None:  # an insertion planned for another launch reaches this one too
                    span, text, where = done
                    self.attach(finding, rule, [(span, text)], where)
                    continue
                self.plan_insert(rule, finding, launch, entry, anchor_key or entry.key, needs, placed)
        return findings

    def conflict(self, entries: list[EnsureEntry], present: dict[str, list[Override]]) -> str | None:
        for entry in entries:
            for override in present.get(entry.key, []):
                info = read_value(override)
                if info.state != "static" or not values_equal(entry.value, info.value):
                    shown = info.text if info.state == "static" else f"a run-time value ({info.reason})"
                    return (f"inconsistent set: {entry.key} is {shown} at line {override.line}, "
                            f"where the rule's set has {format_value(entry.value)}")
        return None

    def launch_finding(self, rule: Rule, launch: Launch, entry: EnsureEntry, status: Status,
                       message: str) -> Finding:
        _, column = line_column(self.src, launch.site.node.start_byte)
        return Finding(
            rule=rule.id, path=self.path, line=launch.line, column=column, key=entry.key,
            value=format_value(entry.value), status=status,
            message=message or f"launch of {launch.entry} lacks {self.prefix_for(entry, launch)}{entry.key}",
            severity=rule.severity,
        )

    def plan_insert(self, rule: Rule, finding: Finding, launch: Launch, entry: EnsureEntry, anchor_key: str,
                    needs: dict[int, list[EnsureEntry]], placed: dict[tuple[int, str], tuple[Span, str, str]]) -> None:
        """Insert after the best anchor that every launch reading it needs, and only once for all of them."""
        anchors = self.anchors(launch, anchor_key)
        if not anchors:
            self.manual(finding, "the launch has no override written in the script to place it after")
            return
        for anchor in anchors:
            sharers = [other for other in self.script.launches
                       if other is not launch and any(o.key_span == anchor.key_span for o in other.overrides)]
            if any(entry not in needs.get(id(other), []) or (id(other), entry.key) in placed for other in sharers):
                continue
            edit = self.insertion(anchor, entry, launch)
            if edit is None:
                continue
            where = f"adds {self.prefix_for(entry, launch)}{entry.key} after {anchor.key} (line {anchor.line})"
            self.attach(finding, rule, [edit], where)
            if finding.status is Status.FIXABLE:
                for reader in (launch, *sharers):
                    placed[(id(reader), entry.key)] = (edit[0], edit[1], where)
            return
        self.manual(finding, "no place to add it that only launches needing it read")

    def anchors(self, launch: Launch, key: str) -> list[Override]:
        """Existing overrides of the launch, best place first: longest shared key prefix, then last."""
        target = key.split(".")
        scored = []
        for index, override in enumerate(launch.overrides):
            if override.key_span is None or not override.field.static:
                continue
            parts = override.key.split(".")
            common = 0
            for a, b in zip(parts, target):
                if a != b:
                    break
                common += 1
            scored.append((common, index, override))
        scored.sort(key=lambda t: (-t[0], -t[1]))
        return [o for _, _, o in scored]

    def prefix_for(self, entry: EnsureEntry, launch: Launch) -> str:
        """`prefix: auto`: plain where the composed config has the key, `+` where it has not; `++` if unknown."""
        if entry.prefix != "auto":
            return entry.prefix
        if self.facts is None:
            return "++"
        found, _ = self.facts.value(launch, entry.key)
        return "++" if found is None else "" if found else "+"

    def insertion(self, anchor: Override, entry: EnsureEntry, launch: Launch) -> tuple[Span, str] | None:
        style = "title"
        for override in launch.overrides:
            info = read_value(override)
            if info.state == "static" and isinstance(info.value, bool):
                style = bool_style(info.text)
                break
        hydra_text = f"{self.prefix_for(entry, launch)}{entry.key}={format_value(entry.value, style)}"
        assert anchor.key_span is not None
        if not anchor.key_chain or anchor.key_chain[-1].definition.kind == "array":
            node = word_node(self.script.tree, anchor.key_span)
            if node is None:
                return None
            text = quote_for("b", hydra_text)
            return None if text is None else insertion_after_word(self.src, node, text)
        span = source_span(anchor.field.pieces)
        if span is None or anchor.field.pieces[0].ctx not in ("d", "s"):
            return None  # a word in an unquoted assignment: a second word would end the assignment
        text = quote_for(anchor.field.pieces[0].ctx, hydra_text)
        return None if text is None else insertion_after_token(self.src, span, text)


def evaluate(path: str, script: ShellScript, rules: list[Rule], facts: LaunchFacts | None = None) -> list[Finding]:
    evaluator = FileEvaluator(path, script, facts)
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


__all__ = ["LaunchFacts", "evaluate", "launch_applies"]
