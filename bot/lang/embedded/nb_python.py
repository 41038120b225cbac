"""A notebook's code cells read as Python: `compose(config_name=..., overrides=[...])` and argv lists.

Hydra's compose API is how notebooks use Hydra, so their override lists are where a rename must reach.
Each code cell's source is decoded into a view (bot.lang.embedded.views.ShellView, which maps every byte
back to the JSON escape it came from and writes inserted text as JSON), its `!` and `%` lines blanked;
the Python front end's reader runs on the view (a cell libcst cannot parse is skipped: a notebook's cells
are often unfinished), and its edits and findings are mapped back through it.
"""

from __future__ import annotations

from functools import partial

from bot.context import NO_CONSOLES, Consoles
from bot.lang.embedded.nb_cells import cell_views
from bot.lang.embedded.views import ShellView
from bot.lang.front import Unit
from bot.model import Finding


def code_cells(data: bytes) -> list[ShellView]:
    """One view a code cell that may hold an override list ([] for no notebook); `!` and `%` lines blanked,
    a cell magic's cell (`%%bash`: another language) left out."""
    from bot.lang.python.prefilter import LOOKS_LIKE_OVERRIDE

    def wanted(lines: list[str]) -> bool:
        return not lines[0].startswith("%%") and bool(LOOKS_LIKE_OVERRIDE.search("".join(lines).encode("utf-8")))

    return cell_views(data, "code", wanted, lambda line: line.lstrip().startswith(("!", "%")))


def python_cell_units(data: bytes, consoles: Consoles = NO_CONSOLES) -> list[Unit]:
    """The override lists of every code cell, realised in the cell's view and mapped back to the notebook."""
    from bot.lang.python.launch import parse, read_groups
    from bot.lang.python.writer import realise

    units = []
    for view in code_cells(data):
        module = parse(view.text)
        if module is None:
            continue
        groups = read_groups(view.text, module, consoles)
        if groups:
            units.append(Unit(groups, partial(realise, view.text), partial(_to_host, view, data)))
    return units


def _to_host(view: ShellView, data: bytes, finding: Finding) -> Finding:
    return view.to_host(finding, data, lines_in_message=False)
