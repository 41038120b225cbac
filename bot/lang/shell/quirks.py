"""Valid bash that tree-sitter-bash reads as an error, made readable without moving a byte.

Two shapes seen in real launch scripts make tree-sitter-bash 0.25 give up although bash runs
them: parentheses nested in an arithmetic expansion (`${N:-$(((a + b) * 2))}`) and a default
that starts with a bracket (`${CONTENTS:-['npu','cpu']}`). Where such a shape stands on a line
with a parse error, a copy of the source is masked (the inner parentheses become blanks, the
bracket an underscore) and parsed again; the copy has the same length, so every node keeps its
byte offsets, and the bot still reads every value from the original bytes. The masked parse is
used only when it has fewer errors. Arithmetic is a run-time value to the bot either way.
"""

from __future__ import annotations

import re

from bot.model import Span

_ARITHMETIC = re.compile(rb"\$\(\(")
_BRACKET_DEFAULT = re.compile(rb"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=+?]\[")


def masked(src: bytes, errors: list[Span]) -> bytes | None:
    """The source with the known quirks masked on lines that hold an error; None if there are none."""
    if not errors:
        return None
    lines = _lines(src, errors)
    out = bytearray(src)
    changed = False
    for match in _ARITHMETIC.finditer(src):
        if _line_of(src, match.start()) not in lines:
            continue
        inner = _inner_parentheses(src, match.end())
        for position in inner:
            out[position] = ord(" ")
        changed |= bool(inner)
    for match in _BRACKET_DEFAULT.finditer(src):
        if _line_of(src, match.start()) in lines:
            out[match.end() - 1] = ord("_")
            changed = True
    return bytes(out) if changed else None


def _inner_parentheses(src: bytes, start: int) -> list[int]:
    """Positions of the parentheses nested inside `$(( ... ))` whose body starts at `start`."""
    depth = 0
    found: list[int] = []
    for position in range(start, len(src)):
        char = src[position]
        if char == ord("("):
            depth += 1
            found.append(position)
        elif char == ord(")"):
            if depth == 0:
                return found if src[position : position + 2] == b"))" else []
            depth -= 1
            found.append(position)
        elif char == ord("$") and src[position : position + 3] == b"$((":
            return []  # nested arithmetic: left as it is
    return []


def _line_of(src: bytes, position: int) -> int:
    return src.count(b"\n", 0, position)


def _lines(src: bytes, errors: list[Span]) -> set[int]:
    lines: set[int] = set()
    for span in errors:
        first = _line_of(src, span.start)
        lines.update(range(first, _line_of(src, max(span.start, span.end - 1)) + 1))
    return lines
