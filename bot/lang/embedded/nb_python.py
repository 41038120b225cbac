"""A notebook's code cells read as Python: `compose(config_name=..., overrides=[...])` and argv lists.

Hydra's compose API is how notebooks use Hydra, so their override lists are where a rename must reach.
Each code cell's source is decoded into a view (bot.lang.embedded.views.ShellView, which maps every byte
back to the JSON escape it came from and writes inserted text as JSON), its `!` and `%` lines blanked;
the Python front end's reader runs on the view (a cell libcst cannot parse is skipped: a notebook's cells
are often unfinished), and its edits and findings are mapped back through it.
"""

from __future__ import annotations

from functools import partial

from bot.lang.embedded.json_spans import JArray, JObject, JString, read_json
from bot.lang.embedded.views import ShellView
from bot.lang.front import Unit
from bot.model import Finding


def code_cells(data: bytes) -> list[ShellView]:
    """One view a code cell that may hold an override list ([] for no notebook)."""
    from bot.lang.python.prefilter import LOOKS_LIKE_OVERRIDE

    try:
        root = read_json(data)
    except ValueError:
        return []
    cells = root.members.get("cells") if isinstance(root, JObject) else None
    views = []
    for cell in cells.items if isinstance(cells, JArray) else []:
        kind = cell.members.get("cell_type") if isinstance(cell, JObject) else None
        if not isinstance(kind, JString) or kind.text != "code":
            continue
        source = cell.members.get("source")
        items = source.items if isinstance(source, JArray) else [source]
        strings = [s for s in items if isinstance(s, JString)]
        if not strings or len(strings) != len(items) or strings[0].text.startswith("%%"):
            continue  # a cell magic runs another language
        text, host_at = bytearray(), []
        for string in strings:
            magic = string.text.lstrip().startswith(("!", "%"))  # one line a string, in nbformat's layout
            for ch, (start, _) in zip(string.text, string.chars):
                encoded = (" " if magic and ch != "\n" else ch).encode("utf-8")
                text += encoded
                host_at.extend([start] * len(encoded))
        host_at.append(strings[-1].content_end)
        if not LOOKS_LIKE_OVERRIDE.search(text):
            continue
        separator = data[items[0].end + 1 : items[1].start].decode("utf-8") if len(items) >= 2 else "\n "
        views.append(ShellView(bytes(text), host_at, [(s.content_start, s.content_end, separator) for s in strings]))
    return views


def python_cell_units(data: bytes) -> list[Unit]:
    """The override lists of every code cell, realised in the cell's view and mapped back to the notebook."""
    from bot.lang.python.launch import parse, read_groups
    from bot.lang.python.writer import realise

    units = []
    for view in code_cells(data):
        module = parse(view.text)
        if module is None:
            continue
        groups = read_groups(view.text, module)
        if groups:
            units.append(Unit(groups, partial(realise, view.text), partial(_to_host, view, data)))
    return units


def _to_host(view: ShellView, data: bytes, finding: Finding) -> Finding:
    return view.to_host(finding, data, lines_in_message=False)
