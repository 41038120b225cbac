"""A doc's Python blocks read as Python: `compose(overrides=[...])`, `launch(cfg, fn, overrides=[...])`, argv lists.

Docs show Hydra's compose API and hydra-zen's `launch` in ```` ```python ```` and `.. code-block:: python`
blocks, and a rename must reach those override lists as it reaches a script's. Each block becomes a view
(bot.lang.embedded.views.ShellView) of its lines with their common indentation and any `>>>`/`...` prompts
left out, every byte mapped back to the doc; the Python front end's reader runs on the view (a block libcst
cannot parse is skipped: docs show fragments), and its edits and findings are mapped back through it. In an
indented block (reStructuredText) an edit that adds a line is left to a person: the view does not know the
block's indentation for new lines.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial

from bot.context import NO_CONSOLES, Consoles
from bot.lang.embedded.blocks import Block
from bot.lang.embedded.views import ShellView
from bot.lang.front import Unit
from bot.model import Finding, Status

PYTHON_LANGUAGES = {"python", "py", "python3", "pycon", "ipython", "ipython3", "py3"}
_PROMPT = re.compile(rb"(?:>>>|\.\.\.)(?: |$)")


def python_block_views(data: bytes, blocks: list[Block]) -> list[tuple[ShellView, bool]]:
    """(a view of each Python block that may hold an override list, whether the block is indented)."""
    from bot.lang.python.prefilter import LOOKS_LIKE_OVERRIDE

    views = []
    for block in blocks:
        if block.language not in PYTHON_LANGUAGES or not block.lines:
            continue
        start, end = block.lines[0][0], block.lines[-1][1]
        if not LOOKS_LIKE_OVERRIDE.search(data, start, end):
            continue
        rows = [data[s:e] for s, e in block.lines]
        indent = min((len(r) - len(r.lstrip(b" \t")) for r in rows if r.strip()), default=0)
        prompted = any(r.startswith(b">>>", indent) for r in rows)  # a session; `...` alone is Python's Ellipsis
        text, host_at = bytearray(), list[int]()
        for (line_start, line_end), row in zip(block.lines, rows):
            cut = min(indent, len(row))
            if prompted:
                prompt = _PROMPT.match(row, cut)
                if prompt is None:
                    continue  # a doctest's output: not code
                cut = prompt.end()
            text += data[line_start + cut : line_end] + b"\n"
            host_at.extend(range(line_start + cut, line_end + 1))
        host_at.append(block.lines[-1][1])
        views.append((ShellView(bytes(text), host_at), indent > 0 or prompted))
    return views


def python_block_units(data: bytes, blocks: list[Block], consoles: Consoles = NO_CONSOLES) -> list[Unit]:
    """The override lists of every Python block, realised in the block's view and mapped back to the doc."""
    from bot.lang.python.prefilter import may_hold_overrides, stdlib_tree

    units = []
    for view, indented in python_block_views(data, blocks):
        tree = stdlib_tree(view.text)
        if tree is None or not may_hold_overrides(tree, consoles):
            continue  # not Python (a fragment), or no list libcst could read as overrides
        from bot.lang.python.launch import parse, read_groups
        from bot.lang.python.writer import realise

        module = parse(view.text)
        if module is None:
            continue
        groups = read_groups(view.text, module, consoles)
        if groups:
            units.append(Unit(groups, partial(realise, view.text), partial(_to_host, view, data, indented)))
    return units


def _to_host(view: ShellView, data: bytes, indented: bool, finding: Finding) -> Finding:
    if indented and any("\n" in edit.text for edit in finding.edits):
        finding.status, finding.edits, finding.fix_site = Status.MANUAL, [], None
        finding.message += "; the block is indented or prompted: a person must add the line"
    if b"\r\n" in data:  # the view's lines end in `\n`; the doc's in CRLF, which an added line keeps
        finding.edits = [replace(e, text=e.text.replace("\r\n", "\n").replace("\n", "\r\n")) for e in finding.edits]
    return view.to_host(finding, data, lines_in_message=False)
