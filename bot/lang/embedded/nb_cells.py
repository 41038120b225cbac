"""A notebook's cells of one type as views: each cell's source decoded, every byte mapped back to the JSON
escape it came from, and text an edit inserts written back as JSON in the cell's own layout."""

from __future__ import annotations

from collections.abc import Callable

from bot.lang.embedded.json_spans import JArray, JObject, JString, read_json
from bot.lang.embedded.views import ShellView


def cell_views(data: bytes, cell_type: str, wanted: Callable[[list[str]], bool],
               blanked: Callable[[str], bool] | None = None, root: object = None) -> list[ShellView]:
    """One view a cell of `cell_type` whose source (a string or a list of strings) `wanted` accepts;
    `blanked`: source strings (one line each, in nbformat's layout) turned into blanks (line breaks kept);
    `root`: read_json of `data`, when the caller has read it (a notebook is read once)."""
    if root is None:
        try:
            root = read_json(data)
        except ValueError:
            return []
    cells = root.members.get("cells") if isinstance(root, JObject) else None
    views = []
    for cell in cells.items if isinstance(cells, JArray) else []:
        kind = cell.members.get("cell_type") if isinstance(cell, JObject) else None
        if not isinstance(kind, JString) or kind.text != cell_type:
            continue
        source = cell.members.get("source")
        items = source.items if isinstance(source, JArray) else [source]
        strings = [s for s in items if isinstance(s, JString)]
        if not strings or len(strings) != len(items) or not wanted([s.text for s in strings]):
            continue
        text, host_at = bytearray(), []
        for string in strings:
            blank = blanked is not None and blanked(string.text)
            for ch, (start, _) in zip(string.text, string.chars):
                encoded = (" " if blank and ch != "\n" else ch).encode("utf-8")
                text += encoded
                host_at.extend([start] * len(encoded))
        host_at.append(strings[-1].content_end)
        separator = _separator(source, data) if isinstance(source, JArray) else None
        views.append(ShellView(bytes(text), host_at, [(s.content_start, s.content_end, separator) for s in strings]))
    return views


def _separator(array: JArray, data: bytes) -> str:
    if len(array.items) >= 2:
        return data[array.items[0].end + 1 : array.items[1].start].decode("utf-8")
    return "\n "
