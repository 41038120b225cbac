"""One branch's value (or one value of a loop) rewritten where it is written, the others left alone.

`for e in "${ENGINES[@]}"` with `ENGINES=("vllm" "sglang_async")`, or `N=a` in one arm and `N=b` in
another: a map that has a new value for only some of them is written at their literals, through every
variable they come by. Each of those variables must be used only to hand the value on (the override,
the next variable of the chain), nothing else may name them (a test, a function's body, a string run by
`bash -c`), and no mapped value may equal another of the values (a loop must not come to run one
twice). Where that does not hold, the finding stays manual: writing the new value into the override
instead would give every branch, or every round of the loop, the same value.
"""

from __future__ import annotations

from bot.ir import Plan, SetBranchValue
from bot.lang.shell.edits import quote_for
from bot.lang.shell.launches import Override, line_of
from bot.lang.shell.nodes import descendants
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.text import source_span
from bot.lang.shell.values import ValueInfo, value_chain
from bot.model import Span

Edits = list[tuple[Span, str]]


def variant_edits(script: ShellScript, plan: Plan) -> tuple[Edits, str, str | None]:
    """(edits, where, None), or ([], "", why the values cannot be written where they are)."""
    edits: Edits = []
    lines: list[int] = []
    branches = [a for a in plan.actions if isinstance(a, SetBranchValue)]  # a plan of them alone (rules.fixes)
    mapped = {id(a.setting): a.text for a in branches}
    for action in branches:  # a loop must not come to run one value twice, nor branches meant to differ agree
        old = action.setting.text
        others = [mapped.get(id(v), v.text) for v in action.variants if v is not action.setting and v.text != old]
        if action.text in others:
            return [], "", f"another of its values is {action.text} already"
    for action in branches:
        override, info = action.setting.handle
        found = _edit(script, override, info, action.text)
        if isinstance(found, str):
            return [], "", found
        edits.append(found)
        lines.append(line_of(script.src, found[0].start))
    shown = sorted(set(lines))
    return edits, f"where {'they are' if len(edits) > 1 else 'it is'} written (line{'s' if len(shown) > 1 else ''} " \
                  f"{', '.join(map(str, shown))})", None


def _edit(script: ShellScript, override: Override, info: ValueInfo, text: str) -> tuple[Span, str] | str:
    pieces = override.value_pieces
    if not info.extra or not pieces or any(value_chain(override, p) != info.extra for p in pieces):
        return "the value is built from several parts"
    span = source_span(pieces)
    written = quote_for(pieces[0].ctx, text) if span is not None else None
    if span is None or written is None:
        return "the value is not one literal that can be rewritten"
    for via in info.extra:
        definition = via.definition
        for use in definition.uses:
            if use != via.use:  # a test too: the new value may take another branch than the old one did
                return f"{definition.name} is also used at line {line_of(script.src, use.start)}"
        elsewhere = named_elsewhere(script, definition.name, [via.use])
        if elsewhere is not None:  # a function's body, a string for `bash -c` or `eval`, a comment
            return f"{definition.name} is also named at line {elsewhere}"
    return span, written


def named_elsewhere(script: ShellScript, name: str, known: list[Span]) -> int | None:
    """The line of an expansion of `name` (as bash expands it: not in a comment or a single-quoted
    string) outside the `known` uses that may read the same value: one in a function's body (bash looks
    its variables up when it is called), or one the analysis did not tie to an assignment of the name."""
    assigned = {id(d): d for d in script.definitions if d.name == name}
    for launch in script.launches:  # a loop's variable is no assignment: its uses are found through the launches
        for override in launch.overrides:
            assigned.update((id(v.definition), v.definition) for p in override.field.pieces for v in p.via
                            if v.var == name)
    others = [u for d in assigned.values() for u in d.uses]
    bodies = [(n.start_byte, n.end_byte) for n in descendants(script.tree.root_node, {"function_definition"})]
    for variable in descendants(script.tree.root_node, {"variable_name"}):
        parent = variable.parent
        if variable.text != name.encode() or parent is None or parent.type not in ("simple_expansion", "expansion"):
            continue
        at = parent.start_byte
        if any(use.start <= at < use.end for use in known) or any(
                d.span is not None and d.span.start <= at < d.span.end for d in assigned.values()):
            continue  # `V=${V:-x}` reads the caller's value in its own assignment
        if any(a <= at < b for a, b in bodies) or not any(u.start <= at < u.end for u in others):
            return line_of(script.src, at)
    return None
