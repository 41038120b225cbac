"""Hydra YAML configs as a source kind: every mapping key is a setting, each document one group.

A document's keys are dotted paths below the file's package (`# @package` header, else where a
defaults list puts the file, else the root). Rules are evaluated by bot.rules.evaluate; the fixes
are realised as byte edits by bot.lang.yaml.edits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.hydra.grammar import format_value
from bot.ir import Setting, SettingGroup
from bot.lang.yaml.packages import header_package, yaml_packages

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

MERGE_TAG = "tag:yaml.org,2002:merge"
SKIPPED_TOP = ("defaults", "hydra")
INTERPOLATION = "an interpolation, resolved at run time"


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

    def plans(self) -> tuple[Any, ...]:
        return dict(self.created), dict(self.tails), set(self.added), dict(self.floors)

    def restore(self, saved: tuple[Any, ...]) -> None:
        self.created, self.tails, self.added, self.floors = saved


def yaml_errors(data: bytes) -> int:
    """0 when ruamel.yaml's round-trip loader reads every document, else 1."""
    return 0 if yaml_problem(data) is None else 1


def yaml_problem(data: bytes) -> str | None:
    """Why ruamel.yaml's round-trip loader cannot read every document (None: it can), in one line."""
    from ruamel.yaml import YAML

    try:
        for _ in YAML(typ="rt").load_all(data.decode("utf-8")):
            pass
    except RecursionError:
        return "nested too deeply to read"
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start})"
    except Exception as exc:  # ruamel raises more than YAMLError on broken input
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())[:120]
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return f"not valid YAML{where}: {problem}"
    return None


def read_groups(path: str, data: bytes, packages: dict[str, str] | None = None) -> list[SettingGroup]:
    """The settings of a YAML config, one group a document ([] for what does not read as YAML)."""
    from ruamel.yaml.error import YAMLError

    try:
        return yaml_groups(data, package_prefix(data, path, packages))
    except (YAMLError, UnicodeDecodeError, RecursionError):  # not YAML (the front end reports it) or self-nested
        return []


def package_prefix(data: bytes, path: str, packages: dict[str, str] | None) -> str:
    header = header_package(data)
    package = header if header is not None else (packages or {}).get(path, "")
    return package + "." if package else ""


def yaml_groups(data: bytes, prefix: str) -> list[SettingGroup]:
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import MappingNode

    text = Text(data)
    groups = []
    for root in YAML(typ="rt").compose_all(text.text):
        if not isinstance(root, MappingNode):
            continue
        doc = Doc(text, root, prefix, indent_step(root), spaced(text, root))
        walker = _Walker(doc)
        walker.mapping(root, (), shared=root.anchor is not None, flow=bool(root.flow_style))
        if walker.settings:
            first = walker.settings[0]
            groups.append(SettingGroup(walker.settings, first.line, first.column, handle=doc))
    return groups


class _Walker:
    def __init__(self, doc: Doc) -> None:
        from ruamel.yaml import YAML

        self.doc = doc
        self.settings: list[Setting] = []
        self.safe = YAML(typ="safe", pure=True)
        self.open: set[int] = set()  # mappings being walked: a recursive alias stops here

    def mapping(self, node: MappingNode, path: tuple[str, ...], shared: bool, flow: bool) -> None:
        if id(node) in self.open:
            return
        self.open.add(id(node))
        pairs = [(k, v, shared) for k, v in node.value if _is_key(k) and k.tag != MERGE_TAG]
        explicit = {k.value for k, _, _ in pairs}
        for merged in merged_mappings(node):
            self.doc.merged.add(id(node))
            for k, v in merged.value:
                if _is_key(k) and k.tag != MERGE_TAG and k.value not in explicit:
                    explicit.add(k.value)
                    pairs.append((k, v, True))
        for key, value, key_shared in pairs:
            if not path and key.value in SKIPPED_TOP:
                continue
            self.add(Entry(key, value, node, (*path, str(key.value)), key_shared or value.anchor is not None,
                           flow))
        self.open.discard(id(node))

    def add(self, entry: Entry) -> None:
        from ruamel.yaml.nodes import MappingNode, ScalarNode

        value, key = entry.value, entry.key
        setting = Setting(self.doc.prefix + ".".join(entry.path), "", None, None, "static",
                          key.start_mark.line + 1, key.start_mark.column + 1, handle=entry)
        self.settings.append(setting)
        if isinstance(value, MappingNode):
            setting.state = "mapping"
            self.mapping(value, entry.path, entry.shared, entry.flow or bool(value.flow_style))
            return
        setting.value = self.plain(value)
        written = self.doc.text.slice(value)
        if isinstance(value, ScalarNode):
            setting.text = written
        else:
            setting.text = written if "\n" not in written.strip() else format_value(setting.value)
        if _interpolated(value):
            setting.state, setting.reason = "dynamic", INTERPOLATION

    def plain(self, node: Node) -> Any:
        import datetime

        from ruamel.yaml.error import YAMLError

        try:
            value = self.safe.constructor.construct_object(node, deep=True)
        except YAMLError:  # a tag of the application's own (`!Foo x`): keep what is written
            return self.doc.text.slice(node)
        if isinstance(value, (datetime.date, datetime.datetime)):
            return str(node.value)  # OmegaConf reads timestamps as strings
        return _plain(value)


def _plain(value: Any) -> Any:
    import datetime

    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def _is_key(node: Node) -> bool:
    from ruamel.yaml.nodes import ScalarNode

    return isinstance(node, ScalarNode)


def _interpolated(node: Node) -> bool:
    """Whether a string anywhere in the value (a scalar, or inside sequences and mappings) interpolates."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    todo, seen = [node], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:  # an alias back to an enclosing node
            continue
        seen.add(id(current))
        if isinstance(current, ScalarNode):
            if current.tag == "tag:yaml.org,2002:str" and "${" in str(current.value):
                return True
        elif isinstance(current, MappingNode):
            todo.extend(part for pair in current.value for part in pair)
        elif isinstance(current.value, list):
            todo.extend(current.value)
    return False


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


__all__ = ["read_groups", "yaml_errors", "yaml_packages"]
