"""The planned actions of bot.rules.evaluate written into a YAML config as minimal byte edits.

Every edit touches only the node it changes; what cannot be changed that way with certainty
(anchors, aliases, merge keys, tags, flow collections, multi-line scalars) is refused with a reason.
Values are replaced, keys renamed, removed or moved here; new keys are added by bot.lang.yaml.insert.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.hydra.grammar import bool_style
from bot.ir import (
    Action,
    Clash,
    InsertKey,
    MoveEntry,
    Plan,
    RemoveKey,
    RenameKey,
    SetBranchValue,
    SetItems,
    SetPrefix,
    SetValue,
    assert_never,
    changes,
)
from bot.lang.yaml.columns import keep_comment_columns
from bot.lang.yaml.document import Doc, Edits, Entry, Text, has_props, merged_mappings
from bot.lang.yaml.entry_lines import SHARED_REASON, TAG_REASON, entry_lines, past_blank, refuse
from bot.lang.yaml.format import yaml_key, yaml_value
from bot.lang.yaml.insert import insert
from bot.model import Span

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode

PREFIX_REASON = "prefixes do not exist in a YAML config"
BRANCHES_REASON = "a person must choose among the values it may take"


def realise(plans: list[Plan], edits_of: Callable[[list[Action], Doc], Edits | str] | None = None) -> None:
    """Each plan as edits of its document, in order (an added key may make the mapping a later one goes in);
    `edits_of`: the edits of one plan's actions, or why there are none (default: a config's keys and values)."""
    planned: list[tuple[Plan, Edits]] = []
    for plan in plans:
        doc: Doc = plan.group.handle
        result = (edits_of or _plan)(plan.actions, doc)
        if isinstance(result, str):
            plan.refusal = result
        else:
            planned.append((plan, result))
    lines: dict[tuple[int, int], int] = {}  # (document, line) -> how many plans edit it
    for plan, result in planned:
        text = plan.group.handle.text
        for line in {text.line_start(start) for start, _, _ in result}:
            lines[(id(text), line)] = lines.get((id(text), line), 0) + 1
    for plan, result in planned:
        text = plan.group.handle.text
        alone = [e for e in result if lines[(id(text), text.line_start(e[0]))] == 1]  # one plan's line only
        result = sorted([*result, *keep_comment_columns(text, alone)[len(alone):]]) if alone else result
        plan.edits = [(Span(text.byte(start), text.byte(end)), new) for start, end, new in result]


def _not_in_a_config(actions: list[Action]) -> str | None:
    """Why a config cannot take one of the actions, if one is what it cannot take."""
    for action in actions:
        match action:
            case SetBranchValue():
                return BRANCHES_REASON
            case SetPrefix():
                return PREFIX_REASON
            case MoveEntry():
                return "a config names no entry point"
            case SetValue() | SetItems() | RenameKey() | RemoveKey() | InsertKey():
                pass
            case _:
                assert_never(action)
    return None


def _plan(actions: list[Action], doc: Doc) -> Edits | str:
    refused = _not_in_a_config(actions)
    if refused is not None:
        return refused
    found = changes(actions)
    if found.insert is not None:
        rel = _relative(doc, found.insert.key)
        if rel is None:
            return f"{found.insert.key} lies outside this file's package ({doc.prefix.rstrip('.')})"
        text = yaml_value(found.insert.value, None, bool_style(found.insert.text))
        return insert(doc, rel, text)
    changed = found.remove or found.items or found.key or found.value
    assert changed is not None
    entry: Entry = changed.setting.handle
    if found.remove is not None:
        return remove(doc, entry)
    if found.items is not None:
        from bot.lang.yaml.items import replace_items

        items = replace_items(doc, entry, found.items)
        if isinstance(items, str) or found.key is None:
            return items
        rel = _relative(doc, found.key.text)
        if rel is None or rel[:-1] != entry.path[:-1]:
            return "the key moves to another mapping: a person must move the list"
        renamed = rename(doc, entry, rel[-1])
        return renamed if isinstance(renamed, str) else sorted([*renamed, *items])
    edits: Edits = []
    if found.key is not None:
        new_key = found.key.text
        rel = _relative(doc, new_key)
        if rel is None:
            return f"{new_key} lies outside this file's package ({doc.prefix.rstrip('.')})"
        if rel[:-1] != entry.path[:-1]:
            return move(doc, entry, rel, found.value)
        renamed = rename(doc, entry, rel[-1])
        if isinstance(renamed, str):
            return renamed
        edits.extend(renamed)
    if found.value is not None:
        replaced = replace_value(doc, entry, found.value.value)
        if isinstance(replaced, str):
            return replaced
        edits.extend(replaced)
    return edits


def _relative(doc: Doc, key: str) -> tuple[str, ...] | None:
    if not key.startswith(doc.prefix):
        return None
    rel = tuple(key[len(doc.prefix) :].split("."))
    return rel if all(rel) else None


def replace_value(doc: Doc, entry: Entry, value: Any) -> Edits | str:
    from ruamel.yaml.nodes import ScalarNode, SequenceNode

    reason = refuse(doc, entry, structure=False)
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
    """The key rewritten in place: its value, with any anchor or tag on it, stays as it is."""
    inherited = entry.shared and not entry.own_anchor  # reached through an alias or a merge key
    reason = (SHARED_REASON if inherited or entry.key.anchor is not None
              else TAG_REASON if has_props(doc.text, entry.key) else None) or _existing(doc, entry.parent, leaf)
    if reason:
        return reason
    old = doc.text.slice(entry.key)
    if "\n" in old:
        return "the key spans several lines"
    return [(entry.key.start_mark.index, entry.key.end_mark.index, yaml_key(leaf, old))]


def _existing(doc: Doc, mapping: MappingNode, leaf: str) -> str | None:
    for node in [mapping, *merged_mappings(mapping)]:
        if any(str(k.value) == leaf for k, _ in node.value):
            return f"{leaf} is already set in the same mapping"
    return None


def remove(doc: Doc, entry: Entry) -> Edits | str:
    span = entry_lines(doc, entry)
    if isinstance(span, str):
        return span
    if doc.last_left(entry):
        return _emptied(doc, entry, "removing")
    doc.gone.add(id(entry.key))
    return [(span[0], past_blank(doc.text, *span), "")]


def _block(doc: Doc, entry: Entry, end: int) -> list[str] | str:
    """A block mapping's lines below its key up to `end` (where its entry's lines end), indented from column 0 as
    they stand relative to one another (a blank line kept empty); refused where the key's line holds more than
    the key, or a line is not indented below it."""
    text = doc.text
    key_line_end = text.line_end(entry.key.start_mark.index)
    rest = text.text[entry.key.end_mark.index : key_line_end].strip()
    if rest != ":":
        return "the mapping's key line holds more than its key: a person must move this value"
    lines = text.text[text.after_line(entry.key.start_mark.index) : end].rstrip("\r\n").split("\n")
    lines = [line.rstrip("\r") for line in lines]
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    if not indents or min(indents) <= entry.key.start_mark.column or any("\t" in line for line in lines):
        return "the mapping's lines are not indented below its key: a person must move this value"
    cut = min(indents)
    return [line[cut:] if line.strip() else "" for line in lines]


def _emptied(doc: Doc, entry: Entry, what: str) -> str:
    """`moving it would leave old empty`; a Clash when other fixes planned here take the mapping's other keys."""
    where = ".".join(entry.path[:-1]) or "the document"
    if len(entry.parent.value) > 1:
        return Clash(f"{what} it would leave {where} empty (other fixes here take its other keys)")
    return f"{what} it would leave {where} empty"


def move(doc: Doc, entry: Entry, rel: tuple[str, ...], value: SetValue | None) -> Edits | str:
    """A rename to another parent: the lines go, `leaf: value` is added at the new path (a block mapping with
    its lines, indented for their new place)."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    node = entry.value
    old = doc.text.slice(node)
    whole = isinstance(node, MappingNode) and not node.flow_style and node.value and value is None
    if not whole and (not isinstance(node, ScalarNode) or node.style in ("|", ">") or "\n" in old):
        return ("a rename to another mapping moves only a one-line scalar or a block mapping; a person must move "
                "this value")
    if "${." in old:
        return "a relative interpolation would point elsewhere after the move"
    span = entry_lines(doc, entry)
    if isinstance(span, str):
        return span
    block: list[str] | None = None
    if whole and rel[: len(entry.path)] == entry.path:
        return "the mapping would move into itself: a person must move this value"
    if whole:  # the lines that go below the key are the lines that come back below its new place
        lines = _block(doc, entry, span[1])
        if isinstance(lines, str):
            return lines
        block = lines
    if doc.last_left(entry) and rel[: len(entry.path) - 1] != entry.path[:-1]:
        return _emptied(doc, entry, "moving")
    saved = doc.plans()
    if block is not None:
        added = insert(doc, rel, "", block)
    else:
        text = old if value is None else yaml_value(value.value, old or None, bool_style(old))
        after = doc.text.text[node.end_mark.index : doc.text.line_end(node.end_mark.index)]
        comment = after if after.strip().startswith("#") else ""  # the line's own comment goes along
        added = insert(doc, rel, (text or "null") + comment)
    if isinstance(added, str):
        return added
    *opened, (at, _, new) = added
    if span[0] < at < span[1]:
        doc.restore(saved)
        return "the new place lies inside the lines that are removed"
    if at == span[1] and at in saved[1]:  # lines another fix adds there would come before the new one
        doc.restore(saved)
        return Clash("another fix adds lines right where this key would go")
    doc.gone.add(id(entry.key))
    if at in span:  # the new line takes the old one's place
        return sorted([*opened, (span[0], span[1], new)])
    end = past_blank(doc.text, *span)
    return sorted([*opened, (span[0], span[1] if end == at else end, ""), (at, at, new)])
