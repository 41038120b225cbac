"""Elements of a Hydra list value edited in place: the others, their order and quoting stay as written."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from bot.hydra.grammar import HydraSyntaxError, format_value, parse_override

TextEdits = list[tuple[int, int, str]]  # (start, end, new text) in an override value's text


def list_elements(text: str) -> list[tuple[int, int]] | None:
    """The (start, end) of each element of a Hydra list value (`[a, 'b']`, blanks aside); None if not one."""
    start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    if start >= end or text[start] != "[" or text[end - 1] != "]":
        return None
    spans: list[tuple[int, int]] = []
    depth, quote, begin, i = 0, "", start + 1, start + 1
    while i < end - 1:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            spans.append((begin, i))
            begin = i + 1
        i += 1
    if quote or depth:
        return None
    spans.append((begin, end - 1))
    out = [(a + len(text[a:b]) - len(text[a:b].lstrip()), b - len(text[a:b]) + len(text[a:b].rstrip()))
           for a, b in spans]
    return [] if out == [(end - 1, end - 1)] else out


def list_edits(text: str, replace: dict[int, Any], drop: set[int]) -> TextEdits | None:
    """Edits of a list value's text that replace and drop elements in place (others, order, quoting kept).

    A quoted element keeps its quotes; the result must read back (with Hydra's grammar) as the edited
    list, else None.
    """
    spans = list_elements(text)
    if spans is None or any(i >= len(spans) for i in (*replace, *drop)) or len(drop) >= len(spans):
        return None
    edits: TextEdits = []
    for i, new in sorted(replace.items()):
        a, b = spans[i]
        quote = text[a] if text[a] in "'\"" and b - a >= 2 and text[b - 1] == text[a] else ""
        if quote and isinstance(new, str):
            edits.append((a + 1, b - 1, new.replace("\\", "\\\\").replace(quote, "\\" + quote)))
        else:
            edits.append((a, b, format_value(new)))
    first_kept = min(i for i in range(len(spans)) if i not in drop)
    for i in sorted(drop):
        if i > first_kept:  # from the end of the element before (its separator) to this one's end
            edits.append((spans[i - 1][1], spans[i][1], ""))
        else:  # before any element that stays: up to the next element
            edits.append((spans[i][0], spans[i + 1][0], ""))
    edits.sort()
    if any(a[1] > b[0] for a, b in pairwise(edits)):
        return None
    try:
        old = parse_override(f"k={text}").value
        new_value = parse_override(f"k={apply_text_edits(text, edits)}").value
    except HydraSyntaxError:
        return None
    if not isinstance(old, list):
        return None
    wanted = [replace.get(i, v) for i, v in enumerate(old) if i not in drop]
    return edits if new_value == wanted else None


def apply_text_edits(text: str, edits: TextEdits) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text
