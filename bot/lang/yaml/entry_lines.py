"""The lines a YAML entry stands on, and why it may not be changed: the checks every YAML edit starts from.

An anchor, alias, merge key or tag makes an edit change more than the one value, and a flow
collection cannot be rewritten line by line: such entries are refused with a reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.lang.yaml.document import Doc, Entry, Text, has_props

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

SHARED_REASON = "the value is shared through a YAML anchor, alias or merge key"
TAG_REASON = "the key or value has a YAML tag (!...), which the bot does not rewrite"


def refuse(doc: Doc, entry: Entry, *, structure: bool) -> str | None:
    """Why the entry's value (or, with `structure`, its place in the mapping) cannot be edited."""
    if entry.shared or entry.key.anchor is not None:
        return SHARED_REASON
    if has_props(doc.text, entry.key) or has_props(doc.text, entry.value):
        return TAG_REASON
    if structure and entry.flow:
        return "the key stands in a flow mapping ({...}), which the bot does not rewrite"
    if structure and id(entry.parent) in doc.merged:
        return "the mapping has a merge key (<<), which the bot does not rewrite"
    return None



def past_blank(text: Text, start: int, end: int) -> int:
    """Between two blank lines, take the second one too: the fields keep one blank line apart."""
    before = text.text[text.line_start(max(start - 1, 0)) : start] if start else "x"
    after = text.after_line(end)
    if end < len(text.text) and not before.strip() and not text.text[end:after].strip():
        return after
    return end


def entry_lines(doc: Doc, entry: Entry, *, check: bool = True) -> tuple[int, int] | str:
    """The key's whole lines through the end of its value and a trailing comment.

    With `check`, the entry must also be safe to delete (no anchor, tag or merge key in it).
    """
    if check:
        reason = refuse(doc, entry, structure=True) or _tainted(doc, entry.value)
        if reason:
            return reason
    text = doc.text
    key_start = entry.key.start_mark.index
    start = text.line_start(key_start)
    if text.text[start:key_start].strip():
        return "the key does not start its line"
    end = _subtree_end(text, entry)
    if end is None:
        return "cannot find where the value ends"
    if not (end > 0 and text.text[end - 1] == "\n"):
        rest = text.text[end : text.line_end(end)].strip()
        if rest and not rest.startswith("#"):
            return "something else follows the value on its line"
        comment = text.text.find("#", end, text.line_end(end)) if rest else -1
        end = text.after_line(end)
        if comment >= 0:
            end = _comment_goes_on(text, end, comment - text.line_start(comment))
    if end == len(text.text) and not text.text.endswith("\n") and start > 0:
        start -= 2 if text.text[start - 2 : start] == "\r\n" else 1  # keep the missing final newline
    return start, end


def _comment_goes_on(text: Text, end: int, column: int) -> int:
    """Past the lines that carry on a trailing comment: a `#` alone on its line, at that comment's column."""
    while end < len(text.text):
        line = text.text[end : text.line_end(end)]
        if not (line[:column].strip() == "" and line[column : column + 1] == "#" and column > 0):
            break
        end = text.after_line(end)
    return end


def _tainted(doc: Doc, node: Node) -> str | None:
    """Anchors or tags inside a subtree: deleting or measuring it would be unsafe."""
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    if has_props(doc.text, node):
        return SHARED_REASON if node.anchor is not None else TAG_REASON
    if isinstance(node, MappingNode) and node.flow_style is False and id(node) in doc.merged:
        return "the mapping has a merge key (<<), which the bot does not rewrite"
    if isinstance(node, (MappingNode, SequenceNode)):
        children = [n for pair in node.value for n in pair] if isinstance(node, MappingNode) else node.value
        for child in children:
            reason = _tainted(doc, child)
            if reason:
                return reason
    return None


def _subtree_end(text: Text, entry: Entry) -> int | None:
    """Where the value's last character stands: block collections end at their last leaf."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    node: Any = entry.value
    end: int = entry.key.end_mark.index
    while True:
        if node.anchor is not None:
            return None  # an alias has the marks of its anchor: where it stands is not known
        if isinstance(node, ScalarNode) and node.start_mark.index == node.end_mark.index:
            colon = text.text.find(":", end, text.line_end(end) + 1)  # `key:` alone: the empty value's
            return None if colon < 0 else colon + 1  # marks point at what follows
        if isinstance(node, ScalarNode) or node.flow_style:
            return max(end, int(node.end_mark.index))
        if isinstance(node, MappingNode) and node.value:
            key, node = node.value[-1]
            end = max(end, key.end_mark.index)
        elif isinstance(node, SequenceNode) and node.value:
            node = node.value[-1]
        else:
            return None
