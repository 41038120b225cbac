"""A config document's keys as settings: each mapping key one, the keys of its lists' mappings and its lists'
interpolated values apart (IN_LIST)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bot.hydra.grammar import format_value
from bot.ir import IN_LIST, Setting, SettingGroup, State
from bot.lang.yaml.document import MERGE_TAG, Doc, Entry, all_nodes, merged_mappings

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

SKIPPED_TOP = ("defaults", "hydra")
_PROPS = re.compile(r"^(?:[&!]\S*\s+)+")  # a scalar's anchor and tag, written before it
INTERPOLATION = "an interpolation, resolved at run time"


class Walker:
    def __init__(self, doc: Doc) -> None:
        from ruamel.yaml import YAML

        self.doc = doc
        self.settings: list[Setting] = []
        self.safe = YAML(typ="safe", pure=True)
        self.open: set[int] = set()  # mappings being walked: a recursive alias stops here
        self.listed: Walker | None = None  # the values inside lists, walked apart (IN_LIST)

    def in_lists(self) -> list[SettingGroup]:
        """The group of the keys of the document's lists' mappings and of its lists' interpolated values, if any."""
        if self.listed is None or not self.listed.settings:
            return []
        first = self.listed.settings[0]
        return [SettingGroup(self.listed.settings, first.line, first.column, role=IN_LIST, handle=self.doc)]

    def mapping(self, node: MappingNode, path: tuple[str, ...], shared: bool, flow: bool) -> None:
        if id(node) in self.open:
            return
        self.open.add(id(node))
        pairs = [(k, v, shared) for k, v in node.value if is_key(k) and k.tag != MERGE_TAG]
        explicit = {k.value for k, _, _ in pairs}
        for merged in merged_mappings(node):
            self.doc.merged.add(id(node))
            for k, v in merged.value:
                if is_key(k) and k.tag != MERGE_TAG and k.value not in explicit:
                    explicit.add(k.value)
                    pairs.append((k, v, True))
        for key, value, key_shared in pairs:
            if not path and key.value in SKIPPED_TOP and (key.value != "hydra" or not self.doc.prefix):
                continue  # a config with a package has its `hydra:` node put below the package: its own keys
            anchored = value.anchor is not None
            self.add(Entry(key, value, node, (*path, str(key.value)), key_shared or anchored, flow,
                           own_anchor=anchored and not key_shared))
        self.open.discard(id(node))

    def add(self, entry: Entry) -> None:
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

        value, key = entry.value, entry.key
        setting = Setting(self.doc.prefix + ".".join(entry.path), "", None, None, State.STATIC,
                          key.start_mark.line + 1, key.start_mark.column + 1, handle=entry)
        self.settings.append(setting)
        if isinstance(value, MappingNode):
            setting.state = State.MAPPING
            self.mapping(value, entry.path, entry.shared, entry.flow or bool(value.flow_style))
            return
        interpolated = _interpolated(value)
        if isinstance(value, SequenceNode) and (interpolated or _holds_mappings(value)):
            self._elements(value, entry)  # first: constructing the value below flattens its merge keys in place
            setting.parts_read = interpolated
        setting.value = self.plain(value)
        written = self.doc.text.slice(value)
        if isinstance(value, ScalarNode):
            setting.text = _PROPS.sub("", written, count=1) if written[:1] in "&!" else written  # the value alone
        else:
            flow = getattr(value, "flow_style", False)  # a block list's text starts with its first `- `
            setting.text = written if flow and "\n" not in written.strip() else format_value(setting.value)
        if interpolated:
            setting.state, setting.reason = State.DYNAMIC, INTERPOLATION

    def _elements(self, sequence: SequenceNode, entry: Entry) -> None:
        """Read a list's mappings and interpolated strings one by one (`transforms.0.size`): a key inside a
        list's mapping is a setting Hydra addresses by index, and an interpolation inside a list is followed
        where it is written."""
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

        if self.listed is None:
            self.listed = Walker(self.doc)
            self.listed.listed = self.listed
        for index, element in enumerate(sequence.value):
            path = (*entry.path, str(index))
            shared = entry.shared or element.anchor is not None
            flow = entry.flow or bool(getattr(element, "flow_style", False))
            if isinstance(element, MappingNode):
                self.listed.mapping(element, path, shared, flow)
            elif isinstance(element, SequenceNode):
                self._elements(element, replace(entry, path=path, shared=shared, flow=flow))
            elif isinstance(element, ScalarNode) and _interpolated(element):
                # no key: the element stands for its own key (its place, anchors and tags)
                self.listed.add(Entry(element, element, entry.parent, path, shared, flow))

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


def is_key(node: Node) -> bool:
    from ruamel.yaml.nodes import ScalarNode

    return isinstance(node, ScalarNode)


def _holds_mappings(sequence: SequenceNode) -> bool:
    """Whether a list has a mapping among its elements, at any depth of nested lists (`- _target_: T`)."""
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    return any(isinstance(e, MappingNode) or (isinstance(e, SequenceNode) and _holds_mappings(e))
               for e in sequence.value)


def _interpolated(node: Node) -> bool:
    """Whether a string anywhere in the value (a scalar, or inside sequences and mappings) interpolates."""
    from ruamel.yaml.nodes import ScalarNode

    return any(isinstance(n, ScalarNode) and n.tag == "tag:yaml.org,2002:str" and "${" in str(n.value)
               for n in all_nodes([node]))
