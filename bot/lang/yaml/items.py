"""List elements edited in place in a YAML list: flow (`[console, tracking]`) or block (`- tracking`).

A replaced element keeps its quoting; a removed one takes its separator (flow) or its line (block)
with it. Elements with anchors, tags or several lines, and lines shared with other text, are refused.
"""

from __future__ import annotations

from bot.hydra.grammar import bool_style
from bot.ir import SetItems
from bot.lang.yaml.document import Doc, Edits, Entry, has_props
from bot.lang.yaml.entry_lines import refuse
from bot.lang.yaml.format import yaml_value


def replace_items(doc: Doc, entry: Entry, action: SetItems) -> Edits | str:
    from ruamel.yaml.nodes import ScalarNode, SequenceNode

    reason = refuse(doc, entry, structure=False)
    if reason:
        return reason
    node = entry.value
    if not isinstance(node, SequenceNode):
        return "the value is not a list"
    elements = node.value
    text = doc.text
    for i in (*action.items, *action.drop):
        element = elements[i]
        if not isinstance(element, ScalarNode) or has_props(text, element) or "\n" in text.slice(element):
            return "an element the fix changes is not a one-line scalar without anchor or tag"
    flow = bool(node.flow_style) or entry.flow
    edits: Edits = []
    for i, new in action.items.items():
        old = text.slice(elements[i])
        edits.append((elements[i].start_mark.index, elements[i].end_mark.index,
                      yaml_value(new, old, bool_style(old), flow=flow)))
    first_kept = min(i for i in range(len(elements)) if i not in action.drop)
    for i in action.drop:
        element = elements[i]
        if node.flow_style:  # the separator before it, or the one after it before any element that stays
            start = elements[i - 1].end_mark.index if i > first_kept else element.start_mark.index
            end = element.end_mark.index if i > first_kept else elements[i + 1].start_mark.index
            if "#" in text.text[start:end].replace(text.slice(element), ""):
                return "a comment sits next to an element the fix removes"
            edits.append((start, end, ""))
            continue
        line = text.line_start(element.start_mark.index)
        rest = text.text[element.end_mark.index : text.line_end(element.end_mark.index)].strip()
        if text.text[line : element.start_mark.index].strip() != "-" or (rest and not rest.startswith("#")):
            return "an element the fix removes shares its line with other text"
        edits.append((line, text.after_line(element.end_mark.index), ""))
    return sorted(edits)
