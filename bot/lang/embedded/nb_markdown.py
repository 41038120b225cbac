"""A notebook's markdown cells read as Markdown: their YAML blocks and prose literals.

Each markdown cell's source is decoded into a view (bot.lang.embedded.views.ShellView, which maps
every byte back to the JSON escape it came from and writes inserted text as JSON); the Markdown
readers run on the view and their findings are mapped back through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.context import NO_CONSOLES, Consoles
from bot.ir import ErrorRegion, Plan, Realise
from bot.lang.embedded.blocks import markdown_blocks
from bot.lang.embedded.nb_cells import cell_views
from bot.lang.embedded.views import ShellView
from bot.lang.front import Unit
from bot.model import Finding


def markdown_cells(data: bytes) -> list[ShellView]:
    """One view a markdown cell that may hold an override ([] for no notebook)."""
    return cell_views(data, "markdown", lambda lines: any("=" in line or "`" in line for line in lines))


@dataclass
class _ThroughView:
    """A unit of a cell's view: plans realised in the view, findings mapped through it to the file."""

    view: ShellView
    data: bytes
    realise: Realise
    to_view: Callable[[Finding], Finding] | None

    def plans(self, plans: list[Plan]) -> None:
        self.realise(plans)

    def finding(self, finding: Finding) -> Finding:
        if self.to_view is not None:
            finding = self.to_view(finding)
        return self.view.to_host(finding, self.data, lines_in_message=False)


def notebook_units(data: bytes, consoles: Consoles = NO_CONSOLES) -> tuple[list[Unit], list[ErrorRegion]]:
    """The YAML blocks and prose literals of every markdown cell."""
    from bot.lang.embedded import literals
    from bot.lang.embedded.doc_yaml import yaml_units

    units: list[Unit] = []
    regions: list[ErrorRegion] = []
    for view in markdown_cells(data):
        doc = markdown_blocks(view.text, consoles)
        found, bad = yaml_units(view.text, doc.blocks)
        regions.extend(bad)
        prose = literals.prose_literals(view.text, doc.prose, rst=False)
        groups = literals.literal_groups(view.text, [], prose, [])
        if groups:
            found.append(Unit(groups, literals.realise))
        for unit in found:
            through = _ThroughView(view, data, unit.realise, unit.to_host)
            units.append(Unit(unit.groups, through.plans, through.finding))
    return units, regions


def notebook_yaml_errors(data: bytes, consoles: Consoles = NO_CONSOLES) -> int:
    from bot.lang.embedded.doc_yaml import yaml_errors

    return sum(yaml_errors(view.text, markdown_blocks(view.text, consoles).blocks) for view in markdown_cells(data))
