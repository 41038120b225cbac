"""Expanding a shell word: the alternatives of pieces it may read at run time, through the variables
whose definitions reach it (bot.lang.shell.variables).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from bot.lang.shell.directories import script_directory, tilde, working_directory
from bot.lang.shell.nodes import parse_expansion
from bot.lang.shell.script_paths import pieces_of, substitution_value
from bot.lang.shell.text import (
    ANSI,
    BARE,
    BREAK,
    DOUBLE,
    SCRIPT_DIR,
    SINGLE,
    WORK_DIR,
    Items,
    Piece,
    Via,
)
from bot.lang.shell.variables import Env, reaching
from bot.model import Span

if TYPE_CHECKING:
    from tree_sitter import Node

    from bot.lang.shell.nodes import Expansion

MAX_ALTERNATIVES = 16
MAX_NESTING = 40  # words inside words; deeper ones are read as run-time values, well within Python's stack
LITERALS = frozenset({"word", "number", "extglob_pattern", "special_variable_name", "variable_name"})


def _text(src: bytes, node: Node) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


class Expander:
    """Expands word nodes of one file into alternatives of piece lists."""

    def __init__(self, src: bytes, script_path: str | None = None) -> None:
        self.src = src
        self.script_path = script_path  # the script's path in the repository, when src is the whole script ($0)
        self.depth = 0  # words being expanded inside one another (`${A:-${B:-...}}`)
        self._forms: dict[Node, Expansion | None] = {}  # parse_expansion of each expansion node, read once

    def form(self, node: Node) -> Expansion | None:
        """parse_expansion(node), read once per node: the walk reads a command's expansions when it records
        their uses, and again when it expands the command's words."""
        forms = self._forms
        if node in forms:
            return forms[node]
        found = forms[node] = parse_expansion(node)
        return found

    # ---- literal text --------------------------------------------------------------
    def _literal(self, start: int, end: int, ctx: str, quote: int) -> Piece:
        """Characters of src[start:end] after removing backslash escapes valid in `ctx`."""
        raw = self.src[start:end]
        if b"\\" not in raw and raw.isascii():  # the common case: one byte per character, no escapes
            return Piece(raw.decode("ascii"), range(start, end), range(start + 1, end + 1), ctx, quote)
        text = raw.decode("utf-8", "replace")
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        pos = start
        i = 0
        escapable = None if ctx == BARE else '$`"\\\n'
        while i < len(text):
            ch = text[i]
            width = len(ch.encode("utf-8"))
            if ctx in (BARE, DOUBLE) and ch == "\\" and i + 1 < len(text):
                nxt = text[i + 1]
                if escapable is None or nxt in escapable:
                    nwidth = len(nxt.encode("utf-8"))
                    if nxt != "\n":
                        chars.append(nxt)
                        starts.append(pos)
                        ends.append(pos + 1 + nwidth)
                    pos += 1 + nwidth
                    i += 2
                    continue
            chars.append(ch)
            starts.append(pos)
            ends.append(pos + width)
            pos += width
            i += 1
        return Piece("".join(chars), tuple(starts), tuple(ends), ctx, quote)

    def _dynamic(self, node: Node, reason: str, ctx: str) -> Piece:
        return Piece(_text(self.src, node), ctx=ctx, dynamic=reason, splittable=ctx == BARE)

    # ---- words ---------------------------------------------------------------------
    def word(self, node: Node, env: Env, ctx: str = BARE, quote: int = -1) -> list[Items]:
        """Alternatives, each a list of pieces and BREAKs, for one word node."""
        if self.depth >= MAX_NESTING:
            return [[self._dynamic(node, f"nested more than {MAX_NESTING} levels deep", ctx)]]
        if node.type in LITERALS:  # most words: no word inside to count as nested
            return [[self._literal(node.start_byte, node.end_byte, ctx, quote)]]
        self.depth += 1
        try:
            return self._word(node, env, ctx, quote)
        finally:
            self.depth -= 1

    def _word(self, node: Node, env: Env, ctx: str, quote: int) -> list[Items]:
        kind = node.type
        if kind in LITERALS:
            return [[self._literal(node.start_byte, node.end_byte, ctx, quote)]]
        if kind == "raw_string":
            return [[self._literal(node.start_byte + 1, node.end_byte - 1, SINGLE, node.start_byte)]]
        if kind == "ansi_c_string":
            inner = self._literal(node.start_byte + 2, node.end_byte - 1, ANSI, node.start_byte)
            return [[inner]]
        if kind in ("string", "translated_string"):
            return self._string(node, env)
        if kind == "concatenation":
            return self._concat([self.word(c, env, ctx, quote) for c in node.children])
        if kind in ("simple_expansion", "expansion"):
            return self.expansion(node, env, ctx)
        if kind == "command_substitution" and script_directory(_text(self.src, node)):
            return [[self._dynamic(node, SCRIPT_DIR, ctx)]]
        if kind == "command_substitution" and working_directory(_text(self.src, node)):
            return [[self._dynamic(node, WORK_DIR, ctx)]]
        if kind == "arithmetic_expansion" or (kind == "command_substitution" and self.src.startswith(
                b"$((", node.start_byte)):  # tree-sitter reads `$((...))` in `${V:-...}` as `$( (...) )`
            return [[self._dynamic(node, "computed by shell arithmetic", ctx)]]
        if kind == "command_substitution":  # `$(realpath "$(dirname "$0")/..")`, `$(basename $(dirname $0))`
            value = substitution_value(node, self.src, lambda inner: self.word(inner, env), self.script_path)
            items = None if value is None else pieces_of(value, _text(self.src, node), ctx)
            if items is not None:
                return [items]
        if kind in ("command_substitution", "process_substitution"):
            return [[self._dynamic(node, "computed by a command", ctx)]]
        if kind == "arithmetic_expansion":
            return [[self._dynamic(node, "computed by shell arithmetic", ctx)]]
        if kind == "brace_expression":
            return [[self._dynamic(node, "a brace expansion", ctx)]]
        return [[self._dynamic(node, f"shell construct {kind}", ctx)]]

    def _string(self, node: Node, env: Env) -> list[Items]:
        parts: list[list[Items]] = []
        pos = node.start_byte + (2 if node.type == "translated_string" else 1)
        end = node.end_byte - 1
        for child in node.children:
            if child.type in ('"', "$"):
                continue
            start = child.start_byte
            if child.type != "string_content":
                # tree-sitter folds blanks before `$` into the expansion node: take them back.
                body = self.src[start : child.end_byte]
                start += len(body) - len(body.lstrip(b" \t\n"))
            if start > pos:
                parts.append([[self._literal(pos, start, DOUBLE, node.start_byte)]])
            if child.type == "string_content":
                parts.append([[self._literal(start, child.end_byte, DOUBLE, node.start_byte)]])
            else:
                parts.append(self.word(child, env, DOUBLE, node.start_byte))
            pos = child.end_byte
        if end > pos:
            parts.append([[self._literal(pos, end, DOUBLE, node.start_byte)]])
        if not parts:
            return [[Piece("", ctx=DOUBLE, quote=node.start_byte, starts=(), ends=())]]
        return self._concat(parts)

    @staticmethod
    def _concat(parts: list[list[Items]]) -> list[Items]:
        combos: list[Items] = [[]]
        for alternatives in parts:
            if len(combos) == 1 and len(alternatives) == 1:  # most parts: one way each
                combos = [combos[0] + alternatives[0]]
                continue
            combos = [a + b for a, b in itertools.product(combos, alternatives)][:MAX_ALTERNATIVES]
        return combos

    # ---- expansions ----------------------------------------------------------------
    def expansion(self, node: Node, env: Env, ctx: str) -> list[Items]:
        form = self.form(node)
        quoted = ctx == DOUBLE
        if form is None:
            return [[self._dynamic(node, "a parameter expansion the bot does not evaluate", ctx)]]
        name, subscript, op, operand = form
        if name.isdigit() and op in (":-", "-") and operand:
            return [[as_default(p, f"${name}") for p in alt] for alt in self._operand(operand, env, ctx)]
        if name.isdigit() or name in ("@", "*", "#", "?", "$", "!", "-", "0"):
            what = f"${name}" if len(name) == 1 else "${" + name + "}"
            return [[self._dynamic(node, f"from the caller ({what})", ctx)]]
        if op is not None and op not in (":-", "-", ":=", "="):
            return [[self._dynamic(node, f"computed by ${{{name}{op}...}}", ctx)]]
        out: list[Items] = []
        use = Span(node.start_byte, node.end_byte)
        for definition in reaching(env, name):
            via = Via(name, definition, use, ctx)
            if definition.kind == "caller" and name == "PWD" and operand is None:
                out.append([self._dynamic(node, WORK_DIR, ctx)])  # bash keeps PWD where `cd` leads
                continue
            if definition.kind == "caller":
                if operand is not None:
                    for alt in self._operand(operand, env, ctx):
                        out.append([as_default(p, name) for p in alt])
                else:
                    reason = f"from {name}, which this script never assigns (the caller's environment)"
                    out.append([self._dynamic(node, reason, ctx)])
                continue
            for alt in definition.values:
                if op in (":-", ":=") and operand is not None and definition.kind == "scalar" and _empty(alt):
                    out.extend(self._operand(operand, env, ctx))  # `${V:-x}` where V is set but empty: x
                    continue
                out.append(_splice(alt, via, definition.kind, subscript, quoted))
        return out[:MAX_ALTERNATIVES] or [[]]

    def _operand(self, nodes: list[Node], env: Env, ctx: str) -> list[Items]:
        parts = [self.word(n, env, DOUBLE if ctx == DOUBLE else BARE) for n in nodes]
        if not parts:
            return [[Piece("", ctx=ctx)]]
        alternatives = self._concat(parts)
        # bash expands a leading ~ of `${V:-~/x}`, but not inside double quotes
        return alternatives if ctx == DOUBLE else [tilde(alt) for alt in alternatives]


def _empty(items: Items) -> bool:
    """A value known to be the empty string."""
    return all(p is not None and p.static and not p.text for p in items)


def as_default(piece: Piece | None, name: str) -> Piece | None:
    """The piece marked as the `${V:-...}` default of V (the caller may override it)."""
    if piece is None:
        return None
    # dataclasses.replace, without its per-field look-ups
    return Piece(piece.text, piece.starts, piece.ends, piece.ctx, piece.quote, piece.via, piece.dynamic,
                 piece.default_of or name, piece.splittable)


def _splice(items: Items, via: Via, kind: str, subscript: str | None, quoted: bool) -> Items:
    """A definition's value as seen through one use of the variable."""
    if kind == "array":
        elements = _elements(items)
        if subscript in ("@", "*"):
            chosen = elements
        elif subscript and not subscript.isdigit():  # `${A[$i]}`, `${A[-1]}`: an element chosen at run time
            text = f"${{{via.var}[{subscript}]}}"
            return [Piece(text, dynamic=f"{text} is chosen at run time").with_via(via, not quoted)]
        else:
            index = int(subscript) if subscript else 0
            chosen = elements[index : index + 1]
        if subscript == "*" and quoted:
            joined: Items = []
            for i, element in enumerate(chosen):
                if i:
                    joined.append(Piece(" ", dynamic=None, splittable=False))
                joined.extend(element)
            chosen = [joined]
        out: Items = []
        for i, element in enumerate(chosen):
            if i:
                out.append(BREAK if quoted else Piece(" ", splittable=True))
            out.extend(p.with_via(via, not quoted) if p is not None else None for p in element)
        return out
    return [p.with_via(via, not quoted) if p is not None else None for p in items]


def _elements(items: Items) -> list[Items]:
    out: list[Items] = [[]]
    for item in items:
        if item is BREAK:
            out.append([])
        else:
            out[-1].append(item)
    return [e for e in out if e]
