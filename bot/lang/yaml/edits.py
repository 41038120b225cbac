"""The planned actions of bot.rules.evaluate written into a YAML config as minimal byte edits.

Every edit touches only the node it changes; what cannot be changed that way with certainty
(anchors, aliases, merge keys, tags, flow collections, multi-line scalars) is refused with a reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.hydra.grammar import bool_style
from bot.ir import Action, Plan
from bot.lang.yaml.config import Doc, Entry, Text, has_props
from bot.lang.yaml.format import yaml_key, yaml_value
from bot.model import Span

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node

Edits = list[tuple[int, int, str]]  # character spans of the decoded text
PREFIX_REASON = "prefixes do not exist in a YAML config"
SHARED_REASON = "the value is shared through a YAML anchor, alias or merge key"
TAG_REASON = "the key or value has a YAML tag (!...), which the bot does not rewrite"


def realise(plans: list[Plan]) -> None:
    """Each plan as edits of its document, in order (an added key may make the mapping a later one goes in)."""
    for plan in plans:
        doc: Doc = plan.group.handle
        result = _plan(plan.actions, doc)
        if isinstance(result, str):
            plan.refusal = result
        else:
            plan.edits = [(Span(doc.text.byte(start), doc.text.byte(end)), text) for start, end, text in result]


def _plan(actions: list[Action], doc: Doc) -> Edits | str:
    kinds = {a.kind: a for a in actions}
    if "prefix" in kinds:
        return PREFIX_REASON
    if "insert" in kinds:
        action = kinds["insert"]
        rel = _relative(doc, action.key)
        if rel is None:
            return f"{action.key} lies outside this file's package ({doc.prefix.rstrip('.')})"
        text = yaml_value(action.value, None, bool_style(action.text))
        return insert(doc, rel, text)
    setting = actions[0].setting
    assert setting is not None
    entry: Entry = setting.handle
    if "remove" in kinds:
        return remove(doc, entry)
    edits: Edits = []
    value = kinds.get("value")
    if "key" in kinds:
        new_key = kinds["key"].text
        rel = _relative(doc, new_key)
        if rel is None:
            return f"{new_key} lies outside this file's package ({doc.prefix.rstrip('.')})"
        if rel[:-1] != entry.path[:-1]:
            return move(doc, entry, rel, value)
        renamed = rename(doc, entry, rel[-1])
        if isinstance(renamed, str):
            return renamed
        edits.extend(renamed)
    if value is not None:
        replaced = replace_value(doc, entry, value.value)
        if isinstance(replaced, str):
            return replaced
        edits.extend(replaced)
    return edits


def _relative(doc: Doc, key: str) -> tuple[str, ...] | None:
    if not key.startswith(doc.prefix):
        return None
    rel = tuple(key[len(doc.prefix) :].split("."))
    return rel if all(rel) else None


def _refuse(doc: Doc, entry: Entry, *, structure: bool) -> str | None:
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


def replace_value(doc: Doc, entry: Entry, value: Any) -> Edits | str:
    from ruamel.yaml.nodes import ScalarNode, SequenceNode

    reason = _refuse(doc, entry, structure=False)
    if reason:
        return reason
    node = entry.value
    old = doc.text.slice(node)
    if isinstance(node, SequenceNode) and not node.flow_style:
        return "the value is a block sequence; a person must rewrite it"
    if not isinstance(node, (ScalarNode, SequenceNode)):
        return "the value is a mapping"
    if (isinstance(node, ScalarNode) and node.style in ("|", ">")) or "\n" in old:
        return "the value spans several lines; a person must rewrite it"
    if isinstance(node, SequenceNode):
        old = ""  # a list's text gives no quoting to keep
    text = yaml_value(value, old or None, bool_style(old), flow=entry.flow)
    start = node.start_mark.index
    if start == node.end_mark.index:  # `key:` with nothing after it
        colon = _colon(doc.text, entry)
        if colon is None:
            return "cannot find where the empty value stands"
        return [(colon, colon, " " + text)]
    return [(start, node.end_mark.index, text)]


def _colon(text: Text, entry: Entry) -> int | None:
    pos = entry.key.end_mark.index
    rest = text.text[pos : text.line_end(pos)]
    stripped = rest.lstrip(" ")
    if not stripped.startswith(":"):
        return None
    after = stripped[1:].strip()
    if after and not after.startswith("#"):
        return None
    return int(pos) + len(rest) - len(stripped) + 1


def rename(doc: Doc, entry: Entry, leaf: str) -> Edits | str:
    reason = _refuse(doc, entry, structure=False) or _existing(doc, entry.parent, leaf)
    if reason:
        return reason
    old = doc.text.slice(entry.key)
    if "\n" in old:
        return "the key spans several lines"
    return [(entry.key.start_mark.index, entry.key.end_mark.index, yaml_key(leaf, old))]


def _existing(doc: Doc, mapping: MappingNode, leaf: str) -> str | None:
    from bot.lang.yaml.config import merged_mappings

    for node in [mapping, *merged_mappings(mapping)]:
        if any(str(k.value) == leaf for k, _ in node.value):
            return f"{leaf} is already set in the same mapping"
    return None


def remove(doc: Doc, entry: Entry) -> Edits | str:
    span = _entry_lines(doc, entry)
    if isinstance(span, str):
        return span
    if len(entry.parent.value) == 1:
        where = ".".join(entry.path[:-1]) or "the document"
        return f"removing it would leave {where} empty"
    return [(span[0], _past_blank(doc.text, *span), "")]


def _past_blank(text: Text, start: int, end: int) -> int:
    """Between two blank lines, take the second one too: the fields keep one blank line apart."""
    before = text.text[text.line_start(max(start - 1, 0)) : start] if start else "x"
    after = text.after_line(end)
    if end < len(text.text) and not before.strip() and not text.text[end:after].strip():
        return after
    return end


def _entry_lines(doc: Doc, entry: Entry, *, check: bool = True) -> tuple[int, int] | str:
    """The key's whole lines through the end of its value and a trailing comment.

    With `check`, the entry must also be safe to delete (no anchor, tag or merge key in it).
    """
    if check:
        reason = _refuse(doc, entry, structure=True) or _tainted(doc, entry.value)
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
        end = text.after_line(end)
    if end == len(text.text) and not text.text.endswith("\n") and start > 0:
        start -= 2 if text.text[start - 2 : start] == "\r\n" else 1  # keep the missing final newline
    return start, end


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


def insert(doc: Doc, rel: tuple[str, ...], value_text: str) -> Edits | str:
    """Add `leaf: value` under the deepest existing mapping of `rel`, creating the missing ones."""
    from ruamel.yaml.nodes import MappingNode

    mapping: MappingNode = doc.root
    depth = 0
    opened: Edits = []  # an empty `{}` on the path becomes a block mapping
    while depth < len(rel):
        if id(mapping) in doc.merged or has_props(doc.text, mapping):
            return "the mapping has a merge key, anchor or tag, which the bot does not rewrite"
        pair = next(((k, v) for k, v in mapping.value if str(k.value) == rel[depth]), None)
        if pair is None:
            break
        shown = doc.prefix + ".".join(rel[: depth + 1])
        if depth == len(rel) - 1:
            return f"{shown} is already set"
        if not isinstance(pair[1], MappingNode):
            return f"{shown} is not a mapping"
        if pair[1].flow_style:
            if pair[1].value or has_props(doc.text, pair[1]):
                return f"{shown} is a flow mapping ({{...}}), which the bot does not rewrite"
            place = _open_empty(doc, Entry(pair[0], pair[1], mapping, (), False, False))
            if isinstance(place, str):
                return place
            opened, at, indent = place
            return _add(doc, rel, depth + 1, indent, at, value_text, opened)
        mapping, depth = pair[1], depth + 1
    if mapping.flow_style or not mapping.value:
        return "the document is a flow mapping" if mapping.flow_style else "the mapping is empty"
    last_key, last_value = mapping.value[-1]
    point = _entry_lines(doc, Entry(last_key, last_value, mapping, (), False, False), check=False)
    if isinstance(point, str):
        return f"cannot find the end of the mapping: {point}"
    return _add(doc, rel, depth, mapping.value[0][0].start_mark.column, point[1], value_text, opened)


def _open_empty(doc: Doc, entry: Entry) -> tuple[Edits, int, int] | str:
    """`key: {}` -> `key:` with the new lines below it: the edit, where they go, their indent."""
    text = doc.text
    colon = _colon_before(text, entry)
    end = entry.value.end_mark.index
    rest = text.text[end : text.line_end(end)].strip()
    if colon is None or (rest and not rest.startswith("#")):
        return "cannot rewrite the empty mapping {} on its line"
    if text.text[text.line_start(entry.key.start_mark.index) : entry.key.start_mark.index].strip():
        return "the key does not start its line"
    return [(colon, end, "")], text.after_line(end), entry.key.start_mark.column + doc.step


def _colon_before(text: Text, entry: Entry) -> int | None:
    """Index just past the `:` between a key and its value on the same line."""
    between = text.text[entry.key.end_mark.index : entry.value.start_mark.index]
    if between.strip() != ":":
        return None
    return int(entry.key.end_mark.index) + between.index(":") + 1


def _add(doc: Doc, rel: tuple[str, ...], depth: int, indent: int, at: int, value_text: str,
         opened: Edits) -> Edits | str:
    if rel in doc.added:
        return "another fix adds the same key"
    if indent > doc.floors.get(at, indent):
        return "another fix adds lines at the same place, at a shallower level"
    lines, created = _lines(doc, rel, depth, indent, at, value_text)
    if isinstance(lines, str):
        return lines
    if doc.spaced and (not opened or at in doc.tails):
        lines.insert(0, "")  # the file keeps a blank line between fields
    doc.created.update(dict.fromkeys(created, at))
    doc.added.add(rel)
    doc.tails[at] = rel
    doc.floors[at] = min(doc.floors.get(at, indent), indent)
    eol = doc.text.eol
    if at == len(doc.text.text) and not doc.text.text.endswith("\n"):
        return [*opened, (at, at, eol + eol.join(lines))]
    return [*opened, (at, at, eol.join(lines) + eol)]


def _lines(doc: Doc, rel: tuple[str, ...], depth: int, indent: int, at: int,
           value_text: str) -> tuple[list[str] | str, list[tuple[str, ...]]]:
    """The new lines from `depth` down; levels an earlier insert here created are reused."""
    tail = doc.tails.get(at, ())
    lines: list[str] = []
    created: list[tuple[str, ...]] = []
    for level in range(depth, len(rel)):
        path = rel[: level + 1]
        last = level == len(rel) - 1
        if not last and not lines and doc.created.get(path) == at and tail[: len(path)] == path:
            indent += doc.step
            continue
        if not last and path in doc.created:
            return "another fix adds to the same new mapping elsewhere", []
        lines.append(" " * indent + yaml_key(rel[level], None) + (f": {value_text}" if last else ":"))
        if not last:
            created.append(path)
        indent += doc.step
    return lines, created


def move(doc: Doc, entry: Entry, rel: tuple[str, ...], value: Action | None) -> Edits | str:
    """A rename to another parent: the line goes, `leaf: value` is added at the new path."""
    from ruamel.yaml.nodes import ScalarNode

    node = entry.value
    old = doc.text.slice(node)
    if not isinstance(node, ScalarNode) or node.style in ("|", ">") or "\n" in old:
        return "a rename to another mapping moves only a one-line scalar; a person must move this value"
    if "${." in old:
        return "a relative interpolation would point elsewhere after the move"
    span = _entry_lines(doc, entry)
    if isinstance(span, str):
        return span
    if len(entry.parent.value) == 1:
        return f"moving it would leave {'.'.join(entry.path[:-1])} empty"
    text = old if value is None else yaml_value(value.value, old or None, bool_style(old))
    saved = doc.plans()
    added = insert(doc, rel, text or "null")
    if isinstance(added, str):
        return added
    *opened, (at, _, new) = added
    if span[0] < at < span[1]:
        doc.restore(saved)
        return "the new place lies inside the lines that are removed"
    if at in span:  # the new line takes the old one's place
        return sorted([*opened, (span[0], span[1], new)])
    end = _past_blank(doc.text, *span)
    return sorted([*opened, (span[0], span[1] if end == at else end, ""), (at, at, new)])
