"""Adding a key to a YAML config: `leaf: value` under the deepest existing mapping of its path, with
the missing mappings created, indented and spaced as the document does.

Inserts planned earlier in the same run are remembered on the `Doc`, so two fixes that add to the
same new mapping share it, and two that would collide are refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ir import Clash
from bot.lang.yaml.document import Doc, Edits, Entry, Text, has_props
from bot.lang.yaml.entry_lines import entry_lines
from bot.lang.yaml.format import yaml_key

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode


def insert(doc: Doc, rel: tuple[str, ...], value_text: str, block: list[str] | None = None) -> Edits | str:
    """Add `leaf: value` under the deepest existing mapping of `rel`, creating the missing ones; with `block`
    (a block mapping's lines, indented from column 0), `leaf:` and the lines below it."""
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
            return _add(doc, rel, depth + 1, indent, at, value_text, opened, block)
        mapping, depth = pair[1], depth + 1
    if mapping.flow_style or not mapping.value:
        return "the document is a flow mapping" if mapping.flow_style else "the mapping is empty"
    last_key, last_value = mapping.value[-1]
    point = entry_lines(doc, Entry(last_key, last_value, mapping, (), False, False), check=False)
    if isinstance(point, str):
        return f"cannot find the end of the mapping: {point}"
    return _add(doc, rel, depth, mapping.value[0][0].start_mark.column, point[1], value_text, opened, block)


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
         opened: Edits, block: list[str] | None = None) -> Edits | str:
    if rel in doc.added:
        return Clash("another fix adds the same key")
    if indent > doc.floors.get(at, indent):
        return Clash("another fix adds lines at the same place, at a shallower level")
    lines, created = _lines(doc, rel, depth, indent, at, value_text)
    if isinstance(lines, str):
        return lines
    if block is not None:  # `leaf:` then the mapping's lines, one step below it
        inner = " " * (indent + doc.step * (len(rel) - depth))
        lines[-1] = lines[-1].removesuffix(": ") + ":"
        lines.extend(inner + line if line else "" for line in block)
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
            return Clash("another fix adds to the same new mapping elsewhere"), []
        lines.append(" " * indent + yaml_key(rel[level], None) + (f": {value_text}" if last else ":"))
        if not last:
            created.append(path)
        indent += doc.step
    return lines, created
