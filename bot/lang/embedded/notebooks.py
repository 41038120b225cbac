"""Shell in Jupyter notebooks: `!` lines and `%%bash` cells of code cells, as one view of the notebook, and
the shell blocks of markdown cells, a view each cell.

Cell sources are JSON strings, so the view maps each decoded character back to the escape it came
from, and text an edit inserts is written back as JSON in the notebook's own layout (one string per
line). An edited notebook must differ only in its code cells' sources.
"""

from __future__ import annotations

import json
import re

from bot.context import NO_CONSOLES, Consoles
from bot.lang.embedded.json_spans import JArray, JObject, JString, read_json
from bot.lang.embedded.views import ShellView

CELL_MAGIC = re.compile(r"^%%(?:bash|sh|script[ \t]+(?:ba)?sh)\b")


class NotebookError(ValueError):
    pass


def notebook_views(data: bytes, consoles: Consoles = NO_CONSOLES) -> list[ShellView]:
    try:
        root = read_json(data)
    except ValueError as exc:
        raise NotebookError(f"not a notebook: {exc}") from None
    cells = root.members.get("cells") if isinstance(root, JObject) else None
    if not isinstance(cells, JArray):
        return []
    text = bytearray()
    host_at: list[int] = []
    encoders: list[tuple[int, int, str | None]] = []
    found = False
    for cell in cells.items:
        if not isinstance(cell, JObject):
            continue
        kind = cell.members.get("cell_type")
        source = cell.members.get("source")
        if not isinstance(kind, JString) or kind.text != "code":
            continue
        items = source.items if isinstance(source, JArray) else [source]
        strings = [s for s in items if isinstance(s, JString)]
        if not strings or len(strings) != len(items):
            continue
        # a string's text and its spans have one entry per character (bot.lang.embedded.json_spans): the spans,
        # one tuple per character, are paired with it only for a cell that holds shell (most hold none)
        shown = _shell_chars("".join([s.text for s in strings]))
        if not any(shown):
            continue
        chars = [(ch, span) for s in strings for ch, span in zip(s.text, s.chars)]
        found = True
        for s in strings:
            separator = _array_separator(source, data) if isinstance(source, JArray) else None
            encoders.append((s.content_start, s.content_end, separator))
        for (ch, (start, _)), show in zip(chars, shown):
            encoded = (ch if show or ch == "\n" else " ").encode("utf-8")
            text += encoded
            host_at.extend([start] * len(encoded))
        text += b"\n"
        host_at.append(strings[-1].content_end)
    views = _markdown_shell_views(data, consoles, root)
    if not found:
        return views
    host_at.append(host_at[-1])
    return [ShellView(bytes(text), host_at, encoders), *views]


def _markdown_shell_views(data: bytes, consoles: Consoles, root: JObject) -> list[ShellView]:
    """The shell blocks of each markdown cell, read as a Markdown file's are, in the notebook's terms: a
    Markdown view keeps its text's offsets, so the cell's own mapping to the JSON applies to it unchanged;
    `root`: the notebook as read_json read it."""
    from bot.lang.embedded.blocks import markdown_views
    from bot.lang.embedded.nb_cells import cell_views

    views = []
    for cell in cell_views(data, "markdown", _fenced, root=root):
        for block in markdown_views(cell.text, consoles):
            views.append(ShellView(block.text, cell.host_at, cell.encoders, names=block.names,
                                   hidden_errors=block.hidden_errors, own=block.own))
    return views


def _fenced(lines: list[str]) -> bool:
    return any("```" in line or "~~~" in line for line in lines)


def _shell_chars(source: str) -> list[bool]:
    """For each character of a cell's source: is it shell (after `!`, or in a %%bash cell)?"""
    shown = [False] * len(source)
    lines = source.splitlines(keepends=True)
    if lines and CELL_MAGIC.match(lines[0]):
        first = len(lines[0])
        return [False] * first + [True] * (len(source) - first)
    pos = 0
    continued = False
    quote: str | None = None  # inside a Python triple-quoted string: `!` there is text, not a shell escape
    for line in lines:
        body = line.rstrip("\r\n")
        stripped = body.lstrip()
        if quote is not None or (not continued and not stripped.startswith("!")):
            quote = _after_triple_quotes(body, quote)
            pos += len(line)
            continue
        if continued:
            shown[pos : pos + len(body)] = [True] * len(body)
        elif stripped.startswith("!") and not stripped.startswith("!="):
            bang = pos + len(body) - len(stripped)
            shown[bang + 1 : pos + len(body)] = [True] * (len(body) - (bang + 1 - pos))
        continued = (continued or stripped.startswith("!")) and body.endswith("\\")
        pos += len(line)
    return shown


def _after_triple_quotes(line: str, quote: str | None) -> str | None:
    """Whether a triple-quoted string is still open after this line of Python (an approximation)."""
    if '"""' not in line and "'''" not in line:
        return quote  # most lines: none opens or closes here
    i = 0
    while i < len(line):
        if quote is None and line[i] == "#":
            return None
        for mark in ('"""', "'''"):
            if line.startswith(mark, i) and quote in (None, mark):
                quote = None if quote == mark else mark
                i += 3
                break
        else:
            i += 1
    return quote


def _array_separator(array: JArray, data: bytes) -> str:
    if len(array.items) >= 2:
        return data[array.items[0].end + 1 : array.items[1].start].decode("utf-8")
    if array.items:
        return data[array.start + 1 : array.items[0].start].decode("utf-8")
    return "\n "


def notebook_problem(before: bytes, after: bytes) -> str | None:
    """None when only code cells' sources differ and the notebook still reads as JSON."""
    try:
        old, new = json.loads(before), json.loads(after)
    except ValueError as exc:
        return f"the edited notebook is not valid JSON ({exc})"
    if not isinstance(old, dict) or not isinstance(new, dict):
        return "the notebook is not a JSON object"
    old_cells, new_cells = old.get("cells", []), new.get("cells", [])
    if len(old_cells) != len(new_cells) or {k: v for k, v in old.items() if k != "cells"} != {
            k: v for k, v in new.items() if k != "cells"}:
        return "the edit changed the notebook outside cell sources"
    for a, b in zip(old_cells, new_cells):
        if {k: v for k, v in a.items() if k != "source"} != {k: v for k, v in b.items() if k != "source"}:
            return "the edit changed the notebook outside cell sources"
    return None
