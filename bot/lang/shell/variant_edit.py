"""One branch's value (or one value of a loop) rewritten where it is written, the others left alone.

`for e in "${ENGINES[@]}"` with `ENGINES=("vllm" "sglang_async")`, or `N=a` in one arm and `N=b` in
another: a map that has a new value for only some of them is written at their literals, through every
variable they come by. Each of those variables must be used only to hand the value on (the override,
the next variable of the chain) or in a test that does not name the old value, and the values must
stay distinct (a loop must not come to run one twice). Where
that does not hold, the finding stays manual: writing the new value into the override instead would
give every branch, or every round of the loop, the same value.
"""

from __future__ import annotations

import re

from bot.ir import Plan
from bot.lang.shell.edits import quote_for
from bot.lang.shell.launches import Override, line_of
from bot.lang.shell.nodes import tests_value
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.text import source_span
from bot.lang.shell.values import ValueInfo, value_chain
from bot.model import Span

Edits = list[tuple[Span, str]]


def variant_edits(script: ShellScript, plan: Plan) -> tuple[Edits, str, str | None]:
    """(edits, where, None), or ([], "", why the values cannot be written where they are)."""
    edits: Edits = []
    lines: list[int] = []
    mapped = {id(a.setting): a.text for a in plan.actions}
    after = [mapped.get(id(v), v.text) for v in plan.actions[0].variants]
    twice = next((t for t in after if after.count(t) > 1), None)
    if twice is not None:  # a loop would run it twice, or branches meant to differ would not
        return [], "", f"two of its values would both be {twice}"
    for action in plan.actions:
        assert action.setting is not None
        override, info = action.setting.handle
        found = _edit(script, override, info, action.text)
        if isinstance(found, str):
            return [], "", found
        edits.append(found)
        lines.append(line_of(script.src, found[0].start))
    return edits, f"where {'they are' if len(edits) > 1 else 'it is'} written (line {', '.join(map(str, lines))})", None


def _edit(script: ShellScript, override: Override, info: ValueInfo, text: str) -> tuple[Span, str] | str:
    pieces = override.value_pieces
    if not info.extra or not pieces or any(value_chain(override, p) != info.extra for p in pieces):
        return "the value is built from several parts"
    span = source_span(pieces)
    written = quote_for(pieces[0].ctx, text) if span is not None else None
    if span is None or written is None:
        return "the value is not one literal that can be rewritten"
    old = script.src[span.start : span.end].strip(b"'\"")
    for via in info.extra:
        definition = via.definition
        for use in definition.uses:
            if use == via.use:
                continue
            line = line_of(script.src, use.start)
            if not tests_value(script.tree, use.start, use.end):
                return f"{definition.name} is also used at line {line}"
            if re.search(rb"(?<![\w.-])" + re.escape(old) + rb"(?![\w.-])", script.src.split(b"\n")[line - 1]):
                return f"line {line} tests {definition.name} for {old.decode('utf-8', 'replace')}"
    return span, written
