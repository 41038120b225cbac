"""The shell family's front end: scripts, and the shell in docs, notebooks and workflows.

Each view of a file (the whole script; a doc's shell blocks; a notebook's shell cells; a workflow
step) is analysed with tree-sitter-bash into launch groups, plus the values the file hands the
repository scripts it runs; a view's findings are mapped back to the file's lines and bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING

from bot.context import NO_CONSOLES, Consoles, ScanContext
from bot.ir import HELD, LAUNCH, ErrorRegion, Plan, Realise
from bot.lang.focus import Focus
from bot.lang.front import UNREADABLE, LaunchView, Reading, ShellFamily, SourceUnreadable, Unit
from bot.lang.shell.as_launch import as_launch
from bot.lang.shell.calls import env_inputs, resolve
from bot.lang.shell.launches import line_of
from bot.lang.shell.parse import ShellScript, analyse, parse_tree
from bot.lang.shell.settings import callee_groups, launch_groups, runs_carried
from bot.lang.shell.writer import ShellWriter
from bot.model import Finding

if TYPE_CHECKING:
    from tree_sitter import Tree

    from bot.lang.embedded.views import ShellView

_LAUNCH_LIKE = re.compile(rb"python|torchrun|\bcoverage\b|\buv\b|deepspeed|accelerate|\bsrun\b|mpirun|\bray\b"
                          rb"|\.py\b|\.sh\b|\[[@*]\]|\$\{?\w*(?:PYTHON|LAUNCH|CMD|RUN|ENTRY)")


@dataclass
class ShellFamilyFront:
    path: str
    kind: str
    family: ShellFamily  # how the kind is read (bot.lang.FRONT_ENDS)
    context: ScanContext | None = None  # the scan's repository: the scripts a file calls, its console scripts
    focus: Focus | None = None  # views it leaves unwanted hold nothing for the rules: they are not analysed
    # what it read, by text: each text is parsed once, whoever asks (the rules, the focus, silencing, the
    # compose judge, compose-check, the verification of edited text)
    _views: dict[bytes, list[ShellView]] = field(default_factory=dict)
    _trees: dict[bytes, Tree] = field(default_factory=dict)
    _scripts: dict[bytes, ShellScript] = field(default_factory=dict)

    @property
    def consoles(self) -> Consoles:
        return self.context.consoles if self.context is not None else NO_CONSOLES

    def views(self, data: bytes) -> list[ShellView]:
        if data not in self._views:
            self._views[data] = self.family.views(data, self.consoles, self.tree)
        return self._views[data]

    def tree(self, text: bytes) -> Tree:
        """tree-sitter-bash's tree of a view's text (bot.lang.shell.parse.parse_tree)."""
        if text not in self._trees:
            self._trees[text] = parse_tree(text)
        return self._trees[text]

    def script(self, text: bytes) -> ShellScript:
        if text not in self._scripts:
            carries = partial(runs_carried, self.context.root, self.path) if self.context is not None else None
            self._scripts[text] = analyse(text, all_exported=self.family.all_exported, path=self.path,
                                          consoles=self.consoles, tree=self.tree(text),
                                          whole_script=self.family.hands_inputs, carries=carries)
        return self._scripts[text]

    def launch_views(self, data: bytes) -> list[LaunchView]:
        """Each view's launches (those the view reports) as bot.ir.Launch; ValueError when the bytes do not read
        as the kind."""
        out = []
        for view in self.views(data):
            script = self.script(view.text)
            launches = [as_launch(launch, script) for launch in script.launches
                        if view.reports(launch.site.node.start_byte)]
            out.append(LaunchView(view, launches, script.partly_parsed, script.error_lines,
                                  partial(error_regions, script, self.consoles)))
        return out

    def read(self, data: bytes) -> Reading:
        try:
            views = self.views(data)
        except ValueError as exc:
            raise SourceUnreadable(str(exc)) from None
        reading = Reading()
        for view in views:
            if self.focus is not None and not self.focus.wanted(view.text, self.path, self.tree):
                continue
            script = self.script(view.text)
            writer = ShellWriter(script)
            host: Callable[[Finding], Finding] = partial(_to_host, view, data, True)
            groups = launch_groups(script)
            if view.held:  # recipes run the variable with more words, which may set what an ensure would add
                groups = [replace(g, role=HELD) if g.role == LAUNCH else g for g in groups]
            realise: Realise = writer.realise
            if view.own is not None:  # a doc block read apart: the launches before it are another view's
                groups = [g for g in groups if g.launch is not None and view.reports(g.launch.start)]
                realise = partial(_confined, writer.realise, view.own)
            reading.units.append(Unit(groups, realise, host))
            reading.launches += len(groups)
            reading.reads.update(callee for launch in script.launches if launch.carrier is not None
                                 and (callee := resolve(launch.carrier, self.path, None)) is not None)
            if self.family.hands_inputs:  # what a caller can hand to keys that hold a token
                reading.inputs = {item.variable for item in env_inputs(script.launches, self._holds_token)}
            if script.partly_parsed and self.family.whole_file:
                reading.partly_parsed = True
                reading.regions.extend(error_regions(script, self.consoles))
            if view.own is not None and script.calls:  # a doc block read apart: its own calls only
                first, last = (line_of(view.text, at) for at in (view.own[0], max(view.own[0], view.own[1] - 1)))
                script = replace(script, calls=[c for c in script.calls if first <= c.line <= last])
            if self.context is not None and script.calls:
                holds = self.focus.holds if self.focus is not None else None
                callers = callee_groups(script, self.path, self.context.root, reading.reads, holds, self.consoles)
                reading.units.append(Unit(callers, writer.realise, partial(_to_host, view, data, False)))
        return reading

    def _holds_token(self, key: str) -> bool:
        return self.focus is None or self.focus.mentions(key.encode())

    def errors(self, data: bytes) -> int:
        try:
            views = self.views(data)
        except ValueError:
            return UNREADABLE
        host = self.family.host_errors(data) if self.family.host_errors is not None else 0
        return host + sum(len(self.script(v.text).errors) + v.hidden_errors for v in views)

    def problem(self, before: bytes, after: bytes) -> str | None:
        try:
            if len(self.views(before)) != len(self.views(after)):
                return "the edit changed where the shell code is"
        except ValueError as exc:
            return f"the edited file no longer reads as {self.kind}: {exc}"
        return self.family.host_problem(before, after) if self.family.host_problem is not None else None


def _confined(realise: Realise, own: tuple[int, int], plans: list[Plan]) -> None:
    """Realise the plans of a doc block read apart; an edit outside the block (a value set in an
    earlier block, whose uses in later blocks this reading does not see) is left to a person."""
    realise(plans)
    for plan in plans:
        if plan.refusal is None and any(not own[0] <= span.start <= span.end <= own[1] for span, _ in plan.edits):
            plan.refusal = ("not edited: the value is set in an earlier block of the doc, read here beside a "
                            "block that does not parse on its own; a person must check its other uses")
            plan.edits = []


def _to_host(view: ShellView, data: bytes, lines_in_message: bool, finding: Finding) -> Finding:
    return view.to_host(finding, data, lines_in_message=lines_in_message)


def error_regions(script: ShellScript, consoles: Consoles = NO_CONSOLES) -> list[ErrorRegion]:
    """The script's parse errors as regions (whole lines, one line of margin), and whether a launch,
    or a definition a launch reads, is in one; a launch-like word in a region counts as a launch."""
    lines = script.error_lines()
    text = script.src.split(b"\n")
    region = b"\n".join(text[line - 1] for line in sorted(lines) if 0 < line <= len(text))
    near = bool(lines & _launch_lines(script)) or bool(_LAUNCH_LIKE.search(region)) or consoles.named_in(region)
    return [ErrorRegion(region, near)]


def _launch_lines(script: ShellScript) -> set[int]:
    """Lines of every launch command and of every definition its overrides are read through."""
    lines: set[int] = set()
    for launch in script.launches:
        node = launch.site.node
        lines.update(range(int(node.start_point[0]) + 1, int(node.end_point[0]) + 2))
        for override in launch.overrides:
            for piece in override.field.pieces:
                for via in piece.via:
                    span = via.definition.span
                    if span is not None:
                        first = line_of(script.src, span.start)
                        lines.update(range(first, first + script.src.count(b"\n", span.start, span.end) + 1))
    return lines
