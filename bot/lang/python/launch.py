"""Overrides written in Python: argv lists that launch a trainer, and `overrides=[...]` lists.

`subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", "a.b=1"])`, a `cmd = ["python3",
"-m", ...]` list built for later, and `compose(config_name=..., overrides=["a.b=1"])` are read with
libcst (nothing imported). Each list is one group of settings; bot.lang.python.writer writes the edits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

from bot.context import NO_CONSOLES, Consoles
from bot.hydra.grammar import HydraSyntaxError, parse_override
from bot.ir import CONSOLE, Setting, SettingGroup, State
from bot.lang.python.prefilter import LOOKS_LIKE_OVERRIDE, OVERRIDE_TEXT
from bot.pyparse import TooDeep, parse_cst


@dataclass
class _Word:
    static: bool


@dataclass
class Element:
    node: cst.Element
    start: int  # byte offsets of the element's value
    end: int
    literal: cst.SimpleString | None
    head: tuple[int, int] | None = None  # a built string's (`f"k={v}"`, `"k=" + v`) prefix and key, in bytes


_HEAD = re.compile(r"(\+\+|\+|~)?([A-Za-z_][\w\-]*(?:\.[\w\-@/]+)*)=")


def _built(node: cst.BaseExpression) -> tuple[str, int] | None:
    """(the literal text an f-string, `"k=" + v`, `"k=%s" % v` or `"k={}".format(v)` starts with, its offset in
    the node's source) when it names an override's key: the key is written out, the value is known at run time."""
    if isinstance(node, cst.FormattedString) and node.parts and isinstance(node.parts[0], cst.FormattedStringText):
        head, offset = node.parts[0].value, len(node.start)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Modulo)) and isinstance(
            node.left, cst.SimpleString) and not node.left.lpar:
        head, offset = _raw_head(node.left, "%" if isinstance(node.operator, cst.Modulo) else "")
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format" \
            and isinstance(node.func.value, cst.SimpleString) and not node.func.value.lpar:
        head, offset = _raw_head(node.func.value, "{")
    else:
        return None
    return (head, offset) if _HEAD.match(head) and "\\" not in head and "{" not in head else None


def _raw_head(literal: cst.SimpleString, stop: str) -> tuple[str, int]:
    """A string literal's text up to `stop` (its placeholders begin there), as written, and where it starts."""
    raw = literal.raw_value if "b" not in literal.prefix.lower() else ""
    return (raw.partition(stop)[0] if stop else raw), len(literal.prefix) + len(literal.quote)


def python_errors(data: bytes) -> int:
    try:
        return 1 if parse(data) is None else 0
    except TooDeep:
        return 1


def parse(data: bytes | str) -> cst.Module | None:
    """libcst's tree of the file; None when libcst cannot parse it. Raises TooDeep for Python nested
    deeper than libcst can take (bot.pyparse): that file is an error, not a file without overrides."""
    try:
        return parse_cst(data)
    except (cst.ParserSyntaxError, UnicodeDecodeError, ValueError):
        return None


class _Offsets:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
        self.text_lines = data.decode("utf-8").splitlines(keepends=True)

    def byte(self, line: int, column: int) -> int:
        text = self.text_lines[line - 1] if line - 1 < len(self.text_lines) else ""
        return self.line_starts[line - 1] + len(text[:column].encode("utf-8"))


def word_of(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "sys" \
            and node.attr.value == "executable":
        return "python"
    return None


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.lists: list[tuple[cst.List | cst.Tuple, str]] = []  # (list, why: argv | overrides)
        self.named: dict[str, cst.List | cst.Tuple] = {}  # NAME = [...] assigned once, for *NAME in an argv
        self.override_names: set[str] = set()  # `overrides=NAME`: the list NAME is assigned is overrides
        self.added: list[tuple[str, cst.List | cst.Tuple]] = []  # `NAME += [...]`, `NAME.extend([...])`
        self.joined: dict[int, str] = {}  # `[...] + NAME`: the list's id -> NAME, whose elements follow it

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):  # assigned twice, or not a list: not known
                name = target.target.value
                value = node.value if isinstance(node.value, (cst.List, cst.Tuple)) else None
                self.named[name] = value if value is not None and len(node.targets) == 1 and name not in self.named \
                    else cst.List([])

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Add) and isinstance(node.left, (cst.List, cst.Tuple)) and isinstance(
                node.right, cst.Name):
            self.joined[id(node.left)] = node.right.value

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign) and isinstance(
                node.value, (cst.List, cst.Tuple)):
            self.added.append((node.target.value, node.value))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "extend" and isinstance(func.value, cst.Name) \
                and len(node.args) == 1 and isinstance(node.args[0].value, (cst.List, cst.Tuple)):
            self.added.append((func.value.value, node.args[0].value))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and node.keyword.value == "overrides":
            if isinstance(node.value, (cst.List, cst.Tuple)):
                self.lists.append((node.value, "overrides"))
            elif isinstance(node.value, cst.Name):
                self.override_names.add(node.value.value)

    def override_lists(self) -> list[tuple[cst.List | cst.Tuple, str, list[cst.List | cst.Tuple]]]:
        """Every list written for `overrides=` (in the call, or assigned once to the name it passes, with
        what `ov += [...]` or `ov.extend([...])` adds to it: one set of overrides), then the lists read as
        an argv: (list, why, the lists added to it)."""
        named = [(self.named[name], "overrides", [value for added, value in self.added if added == name])
                 for name in sorted(self.override_names) if name in self.named and self.named[name].elements]
        return [*((node, why, []) for node, why in self.lists if why == "overrides"), *named,
                *((node, why, []) for node, why in self.lists if why != "overrides")]

    def visit_List(self, node: cst.List) -> None:
        self.lists.append((node, "argv"))

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self.lists.append((node, "argv"))


def _groups(data: bytes, module: cst.Module | None = None,
            consoles: Consoles = NO_CONSOLES) -> tuple[list[SettingGroup], _Offsets]:
    from bot.lang.shell.launchers import find_entry

    module = parse_cst(data) if module is None else module
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    collector = _Collector()
    wrapper.visit(collector)
    positions = wrapper.resolve(PositionProvider)
    offsets = _Offsets(data)
    groups: list[SettingGroup] = []
    taken: set[int] = set()
    for node, why, added in collector.override_lists():
        if id(node) in taken:
            continue
        taken.add(id(node))
        elements = [e for e in node.elements if isinstance(e, cst.Element)]
        spliced = _spliced(collector, node, added, taken)
        first, entry, entry_kind, label = 0, None, "", "compose overrides"
        if why == "argv":
            words = [word_of(e.value) for e in elements]
            statics: list[Any] = [_Word(w is not None) for w in words]  # find_entry reads only `.static`
            found = find_entry([w or "$dynamic" for w in words], statics, consoles)
            if found is None:
                continue
            _, entry, entry_kind, first = found
            label = f"launch of {entry}"
        read = [_setting(e, positions, offsets, data) for e in [*elements[first:], *spliced]]
        settings = [s for s in read if s is not None]
        if settings:
            pos = positions[node]
            module_entry = entry.removesuffix(".py").replace("/", ".") if entry else None
            if entry_kind == CONSOLE and entry is not None:
                module_entry = consoles.module(entry.rsplit("/", 1)[-1])
            groups.append(SettingGroup(settings, pos.start.line, pos.start.column + 1, module_entry, label,
                                       lines=(pos.start.line, pos.end.line), entry_written=entry_kind != CONSOLE,
                                       handle=(node, [_element(e, positions, offsets) for e in elements])))
    return groups, offsets


def _spliced(collector: _Collector, node: cst.List | cst.Tuple, added: list[cst.List | cst.Tuple],
             taken: set[int]) -> list[cst.Element]:
    """The elements of `*NAME` lists in the list, of lists added to it and of the list joined after its entry;
    those lists are taken (not read again as lists of their own)."""
    spliced: list[cst.Element] = []
    joined = collector.named.get(collector.joined.get(id(node), ""))
    for extra in [*added, *([joined] if joined is not None else [])]:
        spliced.extend(e for e in extra.elements if isinstance(e, cst.Element))
        taken.add(id(extra))
    for item in node.elements:
        if isinstance(item, cst.StarredElement) and isinstance(item.value, cst.Name):
            named = collector.named.get(item.value.value)
            if named is not None:
                spliced.extend(e for e in named.elements if isinstance(e, cst.Element))
                taken.add(id(named))
    return spliced


def _element(element: cst.Element, positions: Mapping[cst.CSTNode, CodeRange], offsets: _Offsets) -> Element:
    pos = positions[element.value]
    literal = element.value if isinstance(element.value, cst.SimpleString) else None
    return Element(element, offsets.byte(pos.start.line, pos.start.column), offsets.byte(pos.end.line, pos.end.column),
                   literal)


def _setting(element: cst.Element, positions: Mapping[cst.CSTNode, CodeRange], offsets: _Offsets,
             data: bytes) -> Setting | None:
    """The override an element of the list writes, or None when it writes none."""
    text = word_of(element.value)
    built = _built(element.value) if text is None else None
    if built is None and (text is None or not OVERRIDE_TEXT.match(text)):
        return None
    pos = positions[element.value]
    start = offsets.byte(pos.start.line, pos.start.column)
    end = offsets.byte(pos.end.line, pos.end.column)
    if built is not None:  # `f"paths.root={tmp}"`: a key written out, a value known at run time
        head = _HEAD.match(built[0])
        assert head is not None
        at = start + built[1]
        return Setting(head.group(2), head.group(1) or "", data[start:end].decode("utf-8", "replace"),
                       None, State.DYNAMIC, pos.start.line, pos.start.column + 1,
                       "a Python expression, known at run time",
                       handle=Element(element, start, end, None, (at, at + len(head.group(0)) - 1)))
    assert text is not None
    literal = element.value if isinstance(element.value, cst.SimpleString) else None
    try:
        parsed = parse_override(text)
    except HydraSyntaxError as exc:
        key = text.split("=", 1)[0].lstrip("+~")
        return Setting(key, "", text.partition("=")[2], None, State.INVALID, pos.start.line,
                       pos.start.column + 1, f"Hydra cannot parse it: {exc}",
                       handle=Element(element, start, end, literal), rejected=True)
    value_text = text.partition("=")[2] if parsed.has_value else None
    state = State.STATIC if parsed.has_value else State.NONE
    if value_text is not None and "${" in value_text:
        state = State.DYNAMIC
    return Setting(parsed.key, parsed.prefix, value_text, parsed.value, state, pos.start.line,
                   pos.start.column + 1, "an interpolation, resolved at run time",
                   handle=Element(element, start, end, literal))


def read_groups(data: bytes, module: cst.Module | None = None,
                consoles: Consoles = NO_CONSOLES) -> list[SettingGroup]:
    """The override lists of a Python file, one group each ([] without an override-looking string).

    `module`: libcst's tree of `data`, when the caller has parsed it already; `consoles`: the repository's
    console scripts (a list that runs one is a launch).
    """
    if not LOOKS_LIKE_OVERRIDE.search(data):
        return []
    return _groups(data, module, consoles)[0]


__all__ = ["Element", "parse", "python_errors", "read_groups", "word_of"]
