"""Planned fixes written into a shell script: where each edit goes, and when none can be made safely.

A new value goes where the value is written: the override itself, or the definition of the variable
it comes through (changed only when every use of that definition wants the same new value; else
the `$VAR` in the override is replaced), or a caller's value. Removal repairs continuations; an
added override follows the launch's nearest existing one, once for every launch that reads it.
Nothing in or next to a part the parser could not read is edited.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.ir import (
    CALLER,
    InsertKey,
    MoveEntry,
    Plan,
    RemoveKey,
    RenameKey,
    SetBranchValue,
    SetItems,
    SetPrefix,
    SetValue,
    assert_never,
)
from bot.lang.shell.as_launch import shell_launch
from bot.lang.shell.calls import EnvValue
from bot.lang.shell.continuations import cut_short_reason
from bot.lang.shell.edits import (
    quote_for,
    remove_token,
    remove_word,
    word_node,
)
from bot.lang.shell.entry_edit import entry_edit
from bot.lang.shell.inline import inline_quoting_line, words_root
from bot.lang.shell.items import item_site
from bot.lang.shell.launches import Launch, Override, line_of
from bot.lang.shell.nodes import tests_value
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.placement import anchors, entry_insertion, insertion
from bot.lang.shell.removals import join_removals
from bot.lang.shell.text import source_span
from bot.lang.shell.values import ValueInfo
from bot.lang.shell.variables import Definition
from bot.lang.shell.variant_edit import named_elsewhere, variant_edits
from bot.model import Span

Edits = list[tuple[Span, str]]


@dataclass
class ValueSite:
    """Where one finding's new value can go, before choosing among them."""

    plan: Plan
    text: str  # the new value, in Hydra's form
    use: Span | None  # the `$VAR` in the override, when the value came through one variable
    use_ctx: str
    definitions: list[tuple[Definition, Span, str]]  # (definition, literal span, its quoting)
    direct: tuple[Span, str] | None  # a literal in the override itself: (span, quoting)
    items: Edits | None = None  # list elements edited at the definitions (the text is the whole new value)


class ShellWriter:
    def __init__(self, script: ShellScript) -> None:
        self.script = script
        self.src = script.src
        self._error_lines = script.error_lines()

    def line_of(self, pos: int) -> int:
        return line_of(self.src, pos)

    def near_error(self, edits: Edits) -> int | None:
        for span, _ in edits:
            first = self.line_of(span.start)
            last = self.line_of(max(span.start, span.end - 1)) if span.end > span.start else first
            if hit := self._error_lines.intersection(range(first, last + 1)):
                return min(hit)
        return None

    def done(self, plan: Plan, edits: Edits, where: str = "") -> None:
        if (line := self.near_error(edits)) is not None:
            plan.refusal = (f"not edited: line {line} is in or next to a part of the file the shell parser "
                            "could not read")
            return
        if (line := inline_quoting_line(self.script, edits)) is not None:
            plan.refusal = (f"not edited: line {line} is in a `bash -c` string, and the new text would need "
                            "quoting there that a person must write")
            return
        plan.edits, plan.where = edits, where
        if edits:
            plan.fix_line = self.line_of(edits[0][0].start)

    # ---- the protocol --------------------------------------------------------------
    def realise(self, plans: list[Plan]) -> None:
        values: list[ValueSite] = []
        inserts: list[tuple[Plan, InsertKey]] = []
        for plan in plans:
            first = plan.actions[0]
            match first:
                case MoveEntry():
                    edits, plan.refusal = entry_edit(self.script, shell_launch(plan.group), first)
                    self.done(plan, edits)
                case SetBranchValue():
                    edits, where, plan.refusal = variant_edits(self.script, plan)
                    self.done(plan, edits, where) if plan.refusal is None else None
                case _ if plan.group.role == CALLER:
                    self.caller(plan)
                case InsertKey():
                    inserts.append((plan, first))  # placed once every value is
                case SetValue() | SetItems() | RenameKey() | SetPrefix() | RemoveKey():
                    site = self.change(plan)
                    if site is not None:
                        values.append(site)
                case _:
                    assert_never(first)
        join_removals(self.script, [p for p in plans if isinstance(p.actions[0], RemoveKey)])
        self.place_values(values)
        self.place_inserts(inserts)

    def caller(self, plan: Plan) -> None:
        """A value handed to a script: only a new value can be written, where the caller writes it."""
        value = plan.actions[0]
        text = None
        if isinstance(value, SetValue) and len(plan.actions) == 1:
            handed: EnvValue = value.setting.handle
            text = quote_for(handed.ctx, value.text)
        if text is None:
            plan.refusal = "a person must change the value handed to the script"
            return
        self.done(plan, [(handed.span, text)], "where it is handed over")

    # ---- keys, prefixes, removal ---------------------------------------------------
    def change(self, plan: Plan) -> ValueSite | None:
        """Edits of the key and prefix; the value's place is chosen later, with every other value."""
        edits: Edits = []
        value_action: SetValue | SetItems | None = None
        for action in plan.actions:
            match action:
                case RemoveKey():
                    removal = self.removal(action.setting.handle[0])
                    if removal is None:
                        plan.refusal = "cannot remove it without touching other text"
                    else:
                        self.done(plan, [removal])
                    return None
                case RenameKey():
                    key_span = action.setting.handle[0].key_span
                    assert key_span is not None
                    edits.append((key_span, action.text))
                case SetPrefix():
                    prefix_span = action.setting.handle[0].prefix_span
                    if prefix_span is None:
                        plan.refusal = "the prefix is not written in one place"
                        return None
                    edits.append((prefix_span, action.text))
                case SetValue() | SetItems():
                    value_action = action
                case InsertKey() | MoveEntry() | SetBranchValue():
                    pass  # planned alone (bot.rules.fixes) and written by realise
                case _:
                    assert_never(action)
        if value_action is None:
            self.done(plan, edits)
            return None
        plan.edits = edits
        if isinstance(value_action, SetItems):
            found = item_site(self.src, value_action)
            if isinstance(found, str):
                plan.refusal = found
                return None
            items, via, definitions, text = found
            if via is None:
                self.done(plan, [*edits, *items])
                return None
            return ValueSite(plan, text, via.use, via.use_ctx, [(d, via.use, "") for d in definitions], None, items)
        return self.value_site(plan, value_action)

    def removal(self, override: Override) -> tuple[Span, str] | None:
        assert override.key_span is not None
        if not override.key_chain or override.key_chain[-1].definition.kind == "array":
            node = word_node(words_root(self.script, override.key_span), override.key_span)
            if node is None or node.start_byte > (override.prefix_span or override.key_span).start:
                return None
            span = source_span(override.field.pieces)
            quoted = 1 if node.type in ("string", "raw_string") else 0  # an element split when spread holds more
            if span is None or span == Span(node.start_byte + quoted, node.end_byte - quoted):
                return remove_word(self.src, node)
            return remove_token(self.src, span)
        span = source_span(override.field.pieces)
        edit = remove_token(self.src, span) if span is not None else None
        definition = override.key_chain[-1].definition
        if edit is not None and definition.span is not None and any(v.use_ctx == "d" for v in override.key_chain):
            cut, text = edit  # `"$PACKED"` left empty still hands over an empty word, which Hydra rejects
            left = self.src[definition.span.start : cut.start] + text.encode() + self.src[cut.end : definition.span.end]
            if not left.strip(b"\"' \t\r\n\\"):
                return None
        return edit

    # ---- values --------------------------------------------------------------------
    def value_site(self, plan: Plan, action: SetValue) -> ValueSite | None:
        variants: list[tuple[Override, ValueInfo]] = [s.handle for s in action.variants]
        override, info = variants[0]
        pieces = override.value_pieces
        if not pieces:
            plan.refusal = "the value is empty; write it by hand"
            return None
        if not info.extra:
            span = source_span(pieces)
            if span is None:
                plan.refusal = "the value is spread over several quoted parts"
                return None
            return ValueSite(plan, action.text, None, "", [], (span, pieces[0].ctx))
        uses = {variant.extra[0].use for _, variant in variants}
        if len(uses) != 1 or any(not p.via or p.via[-1].use not in {v.use for v in info.extra} for p in pieces):
            plan.refusal = "the value is built from several parts"
            return None
        definitions: list[tuple[Definition, Span, str]] = []
        for variant_override, variant in variants:
            span = source_span(variant_override.value_pieces) if len(variant.extra) == 1 else None
            if span is None:
                definitions = []
                break
            definitions.append((variant.extra[0].definition, span, variant_override.value_pieces[0].ctx))
        via = info.extra[0]
        return ValueSite(plan, action.text, via.use, via.use_ctx, definitions, None)

    def place_values(self, sites: list[ValueSite]) -> None:
        wanted: dict[Span, str] = {s.use: s.text for s in sites if s.use is not None}
        for site in sites:
            plan = site.plan
            if site.direct is not None:
                span, ctx = site.direct
                text = quote_for(ctx, site.text)
                if text is None:
                    plan.refusal = f"cannot write {site.text} safely in this quoting"
                else:
                    self.done(plan, [*plan.edits, (span, text)])
                continue
            assert site.use is not None
            blocker = self.definition_blocker(site, wanted)
            if blocker is None and site.items is not None:
                lines = ", ".join(str(d.line) for d, _, _ in site.definitions)
                self.done(plan, [*plan.edits, *site.items], f"at the definition (line {lines})")
                continue
            if blocker is None:
                edits = [(span, quote_for(ctx, site.text)) for _, span, ctx in site.definitions]
                if all(text is not None for _, text in edits):
                    lines = ", ".join(str(d.line) for d, _, _ in site.definitions)
                    where = f"at the definition{'s' if len(edits) > 1 else ''} (line {lines})"
                    self.done(plan, [*plan.edits, *((s, t) for s, t in edits if t is not None)], where)
                    continue
                blocker = "its quoting"
            text = quote_for(site.use_ctx, site.text)
            if text is None:
                plan.refusal = f"cannot write {site.text} safely in this quoting"
                continue
            self.done(plan, [*plan.edits, (site.use, text)], f"in the override, since {blocker}")

    def definition_blocker(self, site: ValueSite, wanted: dict[Span, str]) -> str | None:
        """Why the fix cannot go at the definitions (None: it can)."""
        if not site.definitions:
            return "the value comes through more than one variable"
        for definition, _, _ in site.definitions:
            if definition.kind != "scalar" or len(definition.values) != 1:
                return f"{definition.name} has more than one possible value"
            for use in definition.uses:  # a test of the value takes the branch written for the new one
                if wanted.get(use) != site.text and not tests_value(self.script.tree, use.start, use.end):
                    return f"{definition.name} is also used at line {self.line_of(use.start)}"
            elsewhere = named_elsewhere(self.script, definition.name, definition.uses)
            if elsewhere is not None:  # a function's body, a string for `bash -c`
                return f"{definition.name} is also named at line {elsewhere}"
        return None

    # ---- added overrides -----------------------------------------------------------
    def place_inserts(self, plans: list[tuple[Plan, InsertKey]]) -> None:
        """Each addition after the best anchor that every launch reading it needs, and once for all of them."""
        needs: dict[int, dict[str, str]] = {}  # launch -> key -> the text it needs added
        for plan, action in plans:
            text = f"{action.prefix}{action.key}={action.text}"
            needs.setdefault(id(shell_launch(plan.group)), {})[action.key] = text
        placed: dict[tuple[int, str], tuple[Edits, str]] = {}
        for plan, action in plans:
            launch = shell_launch(plan.group)
            done = placed.get((id(launch), action.key))
            if done is not None:  # an insertion planned for another launch reaches this one too
                self.done(plan, *done)
                continue
            self.insert(plan, action, launch, needs, placed)

    def insert(self, plan: Plan, action: InsertKey, launch: Launch, needs: dict[int, dict[str, str]],
               placed: dict[tuple[int, str], tuple[Edits, str]]) -> None:
        if launch.cut_short is not None:
            plan.refusal = cut_short_reason(launch.cut_short, launch.cut_by)
            return
        added = f"{action.prefix}{action.key}={action.text}"
        if not any(o.key_span is not None and (o.field.static or not o.key_chain) for o in launch.overrides):
            edit = entry_insertion(self.script, launch, added) if not launch.overrides else None
            if edit is None:
                plan.refusal = "the launch has no override written in the script to place it after"
                return
            self.done(plan, [edit], "after the entry point")
            if plan.refusal is None:
                placed[(id(launch), action.key)] = ([edit], "after the entry point")
            return
        for anchor, sharers in anchors(self.script, launch, action.key, added, action.anchor_key, needs, placed):
            edit = insertion(self.script, anchor, added)
            if edit is None:
                continue
            where = f"after {anchor.key} (line {anchor.line})"
            self.done(plan, [edit], where)
            if plan.refusal is None:
                for reader in (launch, *sharers):
                    placed[(id(reader), action.key)] = ([edit], where)
            return
        plan.refusal = "no place to add it that only launches needing it read"
