"""Assignments the shell walk (bot.lang.shell.walk) records as definitions: `V=x`, `A=(...)`, `V+=x`,
`${V:=x}`, and variables a command reads in (`read V`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.lang.shell.directories import tilde
from bot.lang.shell.expansion import as_default
from bot.lang.shell.nodes import descendants, line_of, parse_expansion
from bot.lang.shell.text import BREAK, Piece, split_fields
from bot.lang.shell.variables import Definition, Env, reaching
from bot.model import Span

if TYPE_CHECKING:
    from tree_sitter import Node

    from bot.lang.shell.arms import Guard
    from bot.lang.shell.expansion import Expander
    from bot.lang.shell.nodes import Expansion
    from bot.lang.shell.walk import WalkResult


class AssignmentTracking:
    """The part of the walker that turns assignments into definitions."""

    expander: Expander
    result: WalkResult
    _function: str | None
    _branch: str | None
    _guard: Guard

    _uses: tuple[Node | None, list[tuple[Node, str, Expansion]]]

    if TYPE_CHECKING:  # the statement walking itself: bot.lang.shell.walk.Walker
        def record_uses(self, node: Node, env: Env) -> None: ...

        def _may_expand(self, node: Node) -> bool: ...

    def assignment(self, node: Node, env: Env) -> Env:
        name_node = node.children[0] if node.children else None
        if name_node is None or name_node.type not in ("variable_name", "subscript"):
            self.record_uses(node, env)
            return env
        append = any(c.type == "+=" for c in node.children)
        values = [c for c in node.children[1:] if c.type not in ("=", "+=")]
        for part in values:
            self.record_uses(part, env)
        if name_node.type == "subscript":  # A[3]=x: too rare to track; A may now be anything
            name = (name_node.children[0].text or b"").decode()
            return {**env, name: (self._computed(name, node, "an element assigned by index"),)}
        name = (name_node.text or b"").decode()
        value: Node | None = values[0] if values else None
        if value is not None and value.type == "array":
            kind = "array"
            alternatives = [self._array_items(value, env)]
        else:
            kind = "scalar"
            alternatives = ([tilde(alt, assignment=True) for alt in self.expander.word(value, env)]
                            if value is not None else [[Piece("")]])
        if append:
            previous = [d for d in reaching(env, name) if d.kind != "caller"]
            alternatives = [
                before + ([BREAK] if kind == "array" else []) + after
                for d in previous for before in d.values for after in alternatives
            ] or alternatives
        definition = Definition(
            name=name,
            kind=kind,
            line=line_of(node),
            span=Span(value.start_byte, value.end_byte) if value is not None else None,
            values=alternatives,
            conditional=self._branch is not None or self._function is not None,
            guard=self._guard,
        )
        self.result.definitions.append(definition)
        return {**env, name: (definition,)}

    def _array_items(self, array: Node, env: Env) -> list[Piece | None]:
        items: list[Piece | None] = []
        for child in array.children:
            if child.type in ("(", ")", "comment"):
                continue
            alternatives = [tilde(alt) for alt in self.expander.word(child, env)]
            for alternative in alternatives:  # every branch's value is a possible element
                for element in split_fields(alternative):  # `"${A[@]}"`, an unquoted `$X`: several elements
                    if items:
                        items.append(BREAK)
                    items.extend(element.pieces)
        return items

    def _computed(self, name: str, node: Node, why: str) -> Definition:
        piece = Piece(f"${{{name}}}", dynamic=why)  # shown as the variable, not the command that sets it
        return Definition(name=name, kind="scalar", line=line_of(node), values=[[piece]], guard=self._guard)


    def _assign_defaults(self, node: Node, env: Env) -> Env:
        """`${V:=x}` in a command assigns x to V when V was unset."""
        updated: dict[str, tuple[Definition, ...]] | None = None
        if not self._may_expand(node):
            return env
        known, forms = self._uses
        if known is node:  # record_uses has just read the command's expansions
            found: list[tuple[Node, Expansion | None]] = [(sub, form) for sub, kind, form in forms
                                                         if kind == "expansion"]
        else:
            found = [(sub, parse_expansion(sub)) for sub in descendants(node, {"expansion"})]
        for sub, form in found:
            if form is None or form[2] not in (":=", "="):
                continue
            name, _, _, operand = form
            defs = reaching(env, name)
            if all(d.kind != "caller" for d in defs):
                continue
            alternatives = self.expander._operand(operand or [], env, "b")
            marked = [[as_default(p, name) for p in alt] for alt in alternatives]
            definition = Definition(name=name, kind="scalar", line=line_of(sub),
                                    span=Span(sub.start_byte, sub.end_byte), values=marked, guard=self._guard)
            self.result.definitions.append(definition)
            updated = updated if updated is not None else dict(env)
            updated[name] = (*[d for d in defs if d.kind != "caller"], definition)
        return updated if updated is not None else env

