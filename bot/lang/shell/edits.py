"""Byte edits on shell source that keep the script's layout.

Three operations: write a value into a quoting context, remove an override word (repairing
continuation lines and moving a command's tail up), and insert an override after an anchor in
the neighbours' style. Each returns (span, text) or None when it cannot be done safely.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.lang.shell.text import ANSI, BARE, DOUBLE, SINGLE
from bot.model import Span

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

SAFE_BARE = re.compile(r"^[A-Za-z0-9_.,:/@%+=\-]*$")
WORD_PARENTS = {"command", "array"}


_HYDRA_SINGLE = re.compile(r"'([^'\"\\\\]*)'")  # a Hydra string in single quotes, no quote or escape inside


def quote_for(ctx: str, text: str) -> str | None:
    """`text` (Hydra's text of a value or an override) written so the shell hands it over unchanged from a
    position in context `ctx`. Inside single quotes, a string Hydra quotes with `'` is quoted with `"`
    instead (`'480'` and `"480"` are one value for Hydra)."""
    if ctx in (BARE, SINGLE) and "'" in text:
        text = _HYDRA_SINGLE.sub(r'"\1"', text)
    if ctx == BARE:
        if SAFE_BARE.match(text) and not text.startswith("~"):
            return text
        return None if "'" in text else f"'{text}'"
    if ctx == DOUBLE:
        return re.sub(r'([\\"$`])', r"\\\1", text)
    if ctx == SINGLE:
        return None if "'" in text else text
    if ctx == ANSI:
        return None
    return None


def _line_bounds(src: bytes, pos: int) -> tuple[int, int]:
    start = src.rfind(b"\n", 0, pos) + 1
    end = src.find(b"\n", pos)
    return start, len(src) if end < 0 else end


def _newline(src: bytes, pos: int) -> str:
    _, end = _line_bounds(src, pos)
    if end < len(src) and end > 0 and src[end - 1 : end] == b"\r":
        return "\r\n"
    if end >= len(src) and b"\r\n" in src:
        return "\r\n"
    return "\n"


def _indent(src: bytes, pos: int) -> str:
    start, _ = _line_bounds(src, pos)
    line = src[start:pos]
    return line[: len(line) - len(line.lstrip(b" \t"))].decode()


def word_node(tree: Tree | Node, span: Span) -> Node | None:
    """The argument or array element that holds the bytes of `span`, if it is a whole word; `tree`: the
    script's, or the root of a `bash -c` string's (bot.lang.shell.inline.words_root)."""
    root = tree.root_node if hasattr(tree, "root_node") else tree
    node: Node | None = root.descendant_for_byte_range(span.start, span.end)
    while node is not None and node.parent is not None and node.parent.type not in WORD_PARENTS:
        node = node.parent
    if node is None or node.parent is None:
        return None
    if node.type in ("variable_assignment", "command_name", "file_redirect", "comment"):
        return None
    return node


def _starts_line(src: bytes, pos: int) -> bool:
    start, _ = _line_bounds(src, pos)
    return src[start:pos].strip(b" \t") == b""


def _rest_of_line(src: bytes, pos: int) -> bytes:
    _, end = _line_bounds(src, pos)
    return src[pos:end].rstrip(b"\r")


def _continuation_start(src: bytes, line_start: int) -> int | None:
    """Where the ` \\` ending the line before `line_start` begins (whitespace included)."""
    if line_start == 0:
        return None
    prev_end = line_start - 1  # the \n
    i = prev_end
    if i > 0 and src[i - 1 : i] == b"\r":
        i -= 1
    if i == 0 or src[i - 1 : i] != b"\\":
        return None
    j = i - 1
    while j > 0 and src[j - 1 : j] in (b" ", b"\t"):
        j -= 1
    return j


def remove_word(src: bytes, node: Node) -> tuple[Span, str] | None:
    """Delete one argument or array element, keeping the rest of the command well formed."""
    ws, we = node.start_byte, node.end_byte
    in_array = node.parent is not None and node.parent.type == "array"
    line_start, line_end = _line_bounds(src, ws)
    rest = _rest_of_line(src, we)
    if _starts_line(src, ws):
        stripped = rest.strip(b" \t")
        if stripped in (b"\\", b""):
            if in_array or stripped == b"\\":
                end = min(len(src), line_end + 1)
                return Span(line_start, end), ""
            cont = _continuation_start(src, line_start)
            if cont is None:
                return None
            return Span(cont, we + (len(rest) - len(rest.lstrip(b" \t")) if not stripped else 0)), ""
        if stripped.startswith(b"#"):
            gap = len(rest) - len(rest.lstrip(b" \t"))
            return Span(ws, we + gap), ""
        if not in_array:
            cont = _continuation_start(src, line_start)
            if cont is not None:
                return Span(cont, we), ""
        gap = len(rest) - len(rest.lstrip(b" \t"))
        return Span(ws, we + gap), ""
    j = ws
    while j > line_start and src[j - 1 : j] in (b" ", b"\t"):
        j -= 1
    return Span(j, we), ""


def remove_word_before(src: bytes, node: Node) -> Span | None:
    """The word with the blanks and line continuations between it and the word before it: the form
    that leaves the line breaks after it in place (the next word's removal takes those)."""
    before = node.prev_sibling
    if before is None:
        return None
    gap = src[before.end_byte : node.start_byte].replace(b"\\\r\n", b"").replace(b"\\\n", b"")
    if gap.strip(b" \t") or before.end_byte == node.start_byte:
        return None
    return Span(before.end_byte, node.end_byte)


def remove_token(src: bytes, span: Span) -> tuple[Span, str]:
    """Delete a word inside a packed string, with the blanks (and `\\` newlines) on one side."""

    def blank_after(i: int) -> int:
        while True:
            if i < len(src) and src[i : i + 1] in (b" ", b"\t"):
                i += 1
            elif src[i : i + 2] == b"\\\n":
                i += 2
            elif src[i : i + 3] == b"\\\r\n":
                i += 3
            else:
                return i

    def blank_before(i: int) -> int:
        while True:
            if i > 0 and src[i - 1 : i] in (b" ", b"\t"):
                i -= 1
            elif i >= 2 and src[i - 2 : i] == b"\\\n":
                i -= 2
            elif i >= 3 and src[i - 3 : i] == b"\\\r\n":
                i -= 3
            else:
                return i

    after = blank_after(span.end)
    before = blank_before(span.start)
    closing = after >= len(src) or src[after : after + 1] in (b'"', b"'")
    opening = before == 0 or src[before - 1 : before] in (b'"', b"'", b"=")
    if not closing:
        return Span(span.start, after), ""
    if not opening:
        return Span(before, span.end), ""
    return Span(span.start, span.end), ""


def insertion_after_word(src: bytes, node: Node, new_text: str) -> tuple[Span, str]:
    """Text that adds `new_text` as the next argument or array element after `node`."""
    we = node.end_byte
    in_array = node.parent is not None and node.parent.type == "array"
    nl = _newline(src, node.start_byte)
    indent = _indent(src, node.start_byte)
    rest = _rest_of_line(src, we)
    stripped = rest.strip(b" \t")
    if not _starts_line(src, node.start_byte):
        return Span(we, we), " " + new_text
    if in_array:
        if stripped.startswith(b"#"):
            end = we + len(rest)
            return Span(end, end), nl + indent + new_text
        if stripped == b"\\":
            return Span(we, we), " \\" + nl + indent + new_text
        if stripped == b"":
            return Span(we, we), nl + indent + new_text
        return Span(we, we), " " + new_text
    return Span(we, we), " \\" + nl + indent + new_text


def insertion_after_token(src: bytes, span: Span, new_text: str) -> tuple[Span, str]:
    """Add `new_text` after a word inside a packed string, in the string's own layout."""
    rest = _rest_of_line(src, span.end)
    if _starts_line(src, span.start) and rest.strip(b" \t") == b"\\":
        nl = _newline(src, span.start)
        return Span(span.end, span.end), " \\" + nl + _indent(src, span.start) + new_text
    return Span(span.end, span.end), " " + new_text
