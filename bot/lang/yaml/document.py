"""A YAML config document as the edits see it: the text with byte offsets and line helpers, a setting's
place in the tree (`Entry`), and the document's layout (indent step, blank lines, merge keys, anchors).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

MERGE_TAG = "tag:yaml.org,2002:merge"
Edits = list[tuple[int, int, str]]  # planned edits of a document: character spans of the decoded text


class Text:
    """The decoded file with ruamel's character indexes mapped to byte offsets and line helpers."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.text = data.decode("utf-8")
        self.eol = "\r\n" if "\r\n" in self.text else "\n"
        self.table: list[int] | None = None
        if not data.isascii():
            self.table, pos = [], 0
            for ch in self.text:
                self.table.append(pos)
                pos += len(ch.encode("utf-8"))
            self.table.append(pos)

    def byte(self, index: int) -> int:
        return index if self.table is None else self.table[index]

    def line_start(self, index: int) -> int:
        return self.text.rfind("\n", 0, index) + 1

    def line_end(self, index: int) -> int:
        """Index of the line break (or the end of the text) of the line holding `index`."""
        end = self.text.find("\n", index)
        end = len(self.text) if end < 0 else end
        return end - 1 if end > index and self.text[end - 1] == "\r" else end

    def after_line(self, index: int) -> int:
        """Index just past the line break that ends the line holding `index`."""
        end = self.text.find("\n", index)
        return len(self.text) if end < 0 else end + 1

    def slice(self, node: Node) -> str:
        return self.text[node.start_mark.index : node.end_mark.index]


@dataclass
class Entry:
    """A setting's place in the tree: the handle the edits work from."""

    key: ScalarNode
    value: Node
    parent: MappingNode
    path: tuple[str, ...]  # below the document's package
    shared: bool  # inside an anchored node, reached through an alias or a merge key
    flow: bool  # inside a flow collection
    own_anchor: bool = False  # shared only because its value carries an anchor: the key is written once


@dataclass
class Doc:
    """One document: the group's handle, with the inserts planned so far in this run."""

    text: Text
    root: MappingNode
    prefix: str  # the package with a trailing dot, or ""
    step: int
    spaced: bool = False  # the document keeps a blank line between sibling fields
    merged: set[int] = field(default_factory=set)  # ids of mappings that hold a merge key
    created: dict[tuple[str, ...], int] = field(default_factory=dict)  # planned mapping -> its point
    tails: dict[int, tuple[str, ...]] = field(default_factory=dict)  # point -> path of the last insert
    added: set[tuple[str, ...]] = field(default_factory=set)
    floors: dict[int, int] = field(default_factory=dict)  # point -> shallowest indent inserted there
    gone: set[int] = field(default_factory=set)  # ids of the keys a fix planned so far removes or moves away

    def plans(self) -> tuple[Any, ...]:
        return dict(self.created), dict(self.tails), set(self.added), dict(self.floors), set(self.gone)

    def restore(self, saved: tuple[Any, ...]) -> None:
        self.created, self.tails, self.added, self.floors, self.gone = saved

    def last_left(self, entry: Entry) -> bool:
        """Whether the entry is the last key of its mapping that no fix planned so far (of any rule) takes
        away: taking it too would leave the mapping empty, as one fix taking its only key would."""
        return all(key is entry.key or id(key) in self.gone for key, _ in entry.parent.value)


def merged_mappings(node: MappingNode) -> list[MappingNode]:
    """The mappings a `<<` key merges into `node`, in YAML's order of precedence."""
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    out: list[MappingNode] = []
    for key, value in node.value:
        if getattr(key, "tag", None) != MERGE_TAG:
            continue
        if isinstance(value, MappingNode):
            out.append(value)
        elif isinstance(value, SequenceNode):
            out.extend(v for v in value.value if isinstance(v, MappingNode))
    return out


def has_props(text: Text, node: Node) -> bool:
    """An anchor or a tag on the node (`&a`, `!!str`): edits there would change more than one value."""
    return node.anchor is not None or text.text[node.start_mark.index : node.start_mark.index + 1] in ("&", "!")


def spaced(text: Text, root: MappingNode) -> bool:
    """Do (nearly) all sibling fields have a blank line above them (above their comments)?"""
    from ruamel.yaml.nodes import MappingNode

    pairs = blank = 0
    todo, seen = [root], set()
    while todo:
        node = todo.pop()
        if id(node) in seen or node.flow_style:
            continue
        seen.add(id(node))
        for key, _ in node.value[1:]:
            pairs += 1
            blank += _blank_above(text, key.start_mark.index)
        todo.extend(v for _, v in node.value if isinstance(v, MappingNode))
    return pairs >= 2 and blank * 4 >= pairs * 3


def _blank_above(text: Text, index: int) -> bool:
    line = text.line_start(index)
    while line > 0:
        above = text.line_start(line - 1)
        content = text.text[above:line].strip()
        if not content:
            return True
        if not content.startswith("#"):
            return False
        line = above
    return False


def indent_step(root: MappingNode) -> int:
    """The indentation step the document's nested block mappings use most (2 when none)."""
    from ruamel.yaml.nodes import MappingNode

    counts: dict[int, int] = {}
    todo = [root]
    seen: set[int] = set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for key, value in node.value:
            if isinstance(value, MappingNode) and value.value:
                if not value.flow_style:
                    step = value.value[0][0].start_mark.column - key.start_mark.column
                    if step > 0:
                        counts[step] = counts.get(step, 0) + 1
                todo.append(value)
    return max(counts, key=lambda s: (counts[s], -s)) if counts else 2


def all_nodes(roots: list[Node]) -> Iterator[Node]:
    """Every node under the roots, each once (an alias back to an enclosing node is not walked again)."""
    from ruamel.yaml.nodes import MappingNode

    todo, seen = list(roots), set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, MappingNode):
            todo.extend(part for pair in node.value for part in pair)
        elif isinstance(node.value, list):
            todo.extend(node.value)
