"""Trailing comments that line up with their neighbours' stay lined up when an edit changes a line's length.

`gpus: 1          # n` beside `precision: 32    # bits`: renaming `gpus` to `devices` takes three blanks out
of the padding, so the comment keeps its column. Only a comment aligned with one on a nearby line counts
(a lone `x: 1  # c` keeps its two blanks), and only where blanks can be taken (at least one stays).
"""

from __future__ import annotations

import re

from bot.lang.yaml.document import Edits, Text

_PADDED_COMMENT = re.compile(r"( {2,})#")
_NEAR = 3  # lines above and below where an aligned comment shows the column is meant


def keep_comment_columns(text: Text, edits: Edits) -> Edits:
    """The edits, plus one for each edited line whose aligned trailing comment would move."""
    lines: dict[int, list[tuple[int, int, str]]] = {}
    for start, end, new in edits:
        if "\n" in new or "\n" in text.text[start:end]:
            continue
        lines.setdefault(text.line_start(start), []).append((start, end, new))
    extra: Edits = []
    for line_start, items in lines.items():
        last = max(end for _, end, _ in items)
        line_end = text.line_end(line_start)
        found = _PADDED_COMMENT.search(text.text, last, line_end)
        if found is None or any(q in text.text[last : found.start()] for q in "'\"#"):
            continue
        delta = sum(len(new) - (end - start) for start, end, new in items)
        padding = len(found.group(1)) - delta
        if delta == 0 or padding < 1 or not _aligned(text, line_start, found.end() - 1 - line_start):
            continue
        extra.append((found.start(1), found.end(1), " " * padding))
    return [*edits, *extra]  # the padding edits last


def _aligned(text: Text, line_start: int, column: int) -> bool:
    """Whether a line near this one has a trailing comment at the same column."""
    whole = text.text
    before, after = line_start, text.after_line(line_start)
    starts = []
    for _ in range(_NEAR):
        if before > 0:
            before = text.line_start(before - 1)
            starts.append(before)
        if after < len(whole):
            starts.append(after)
            after = text.after_line(after)
    for start in starts:
        line = whole[start : text.line_end(start)]
        if len(line) > column and line[column] == "#" and line[:column].strip() and line[column - 1] == " ":
            return True
    return False
