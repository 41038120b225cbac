"""Overrides written in Python: argv lists that launch a trainer, and `overrides=[...]` lists.

`subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", "a.b=1"])`, a `cmd = ["python3",
"-m", ...]` list built for later, and `compose(config_name=..., overrides=["a.b=1"])` are read with
libcst (nothing imported). Each list is one group of settings; edits rewrite a string literal,
drop an element with its separator, or add one in the list's own layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider

from bot.hydra.grammar import HydraSyntaxError, parse_override
from bot.hydra.list_values import apply_text_edits, list_edits
from bot.ir import Action, Plan, Setting, SettingGroup
from bot.lang.python.prefilter import LOOKS_LIKE_OVERRIDE, OVERRIDE_TEXT
from bot.model import Span


@dataclass
class _Word:
    static: bool


@dataclass
class Element:
    node: cst.Element
    start: int  # byte offsets of the element's value
    end: int
    literal: cst.SimpleString | None


def python_errors(data: bytes) -> int:
    return 1 if parse(data) is None else 0


def parse(data: bytes) -> cst.Module | None:
    """libcst's tree of the file; None when libcst cannot parse it."""
    try:
        return cst.parse_module(data)
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


def _word(node: cst.BaseExpression) -> str | None:
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

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(
                node.value, (cst.List, cst.Tuple)):
            name = node.targets[0].target.value
            self.named[name] = node.value if name not in self.named else cst.List([])  # reassigned: unknown

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and node.keyword.value == "overrides" and isinstance(
                node.value, (cst.List, cst.Tuple)):
            self.lists.append((node.value, "overrides"))

    def visit_List(self, node: cst.List) -> None:
        self.lists.append((node, "argv"))

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self.lists.append((node, "argv"))


def _groups(data: bytes, module: cst.Module | None = None) -> tuple[list[SettingGroup], _Offsets]:
    from bot.lang.shell.launchers import CONSOLE, console_module, find_entry

    module = cst.parse_module(data) if module is None else module
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    collector = _Collector()
    wrapper.visit(collector)
    positions = wrapper.resolve(PositionProvider)
    offsets = _Offsets(data)
    groups: list[SettingGroup] = []
    taken: set[int] = set()
    for node, why in sorted(collector.lists, key=lambda t: t[1] != "overrides"):
        if id(node) in taken:
            continue
        taken.add(id(node))
        elements = [e for e in node.elements if isinstance(e, cst.Element)]
        words = [_word(e.value) for e in elements]
        spliced: list[cst.Element] = []  # elements of `*NAME` lists, after the entry
        for item in node.elements:
            if isinstance(item, cst.StarredElement) and isinstance(item.value, cst.Name):
                named = collector.named.get(item.value.value)
                if named is not None:
                    spliced.extend(e for e in named.elements if isinstance(e, cst.Element))
                    taken.add(id(named))
        first, entry, entry_kind, label = 0, None, "", "compose overrides"
        if why == "argv":
            statics: list[Any] = [_Word(w is not None) for w in words]  # find_entry reads only `.static`
            found = find_entry([w or "$dynamic" for w in words], statics)
            if found is None:
                continue
            _, entry, entry_kind, first = found
            label = f"launch of {entry}"
        settings: list[Setting] = []
        for element in [*elements[first:], *spliced]:
            text = _word(element.value)
            if text is None or not OVERRIDE_TEXT.match(text):
                continue
            pos = positions[element.value]
            start = offsets.byte(pos.start.line, pos.start.column)
            end = offsets.byte(pos.end.line, pos.end.column)
            literal = element.value if isinstance(element.value, cst.SimpleString) else None
            try:
                parsed = parse_override(text)
            except HydraSyntaxError as exc:
                key = text.split("=", 1)[0].lstrip("+~")
                settings.append(Setting(key, "", text.partition("=")[2], None, "invalid", pos.start.line,
                                        pos.start.column + 1, f"Hydra cannot parse it: {exc}",
                                        handle=Element(element, start, end, literal)))
                continue
            value_text = text.partition("=")[2] if parsed.has_value else None
            state = "static" if parsed.has_value else "none"
            if value_text is not None and "${" in value_text:
                state = "dynamic"
            settings.append(Setting(parsed.key, parsed.prefix, value_text, parsed.value, state, pos.start.line,
                                    pos.start.column + 1, "an interpolation, resolved at run time",
                                    handle=Element(element, start, end, literal)))
        if settings:
            pos = positions[node]
            module_entry = entry.removesuffix(".py").replace("/", ".") if entry else None
            if entry_kind == CONSOLE and entry is not None:
                module_entry = console_module(entry.rsplit("/", 1)[-1])
            groups.append(SettingGroup(settings, pos.start.line, pos.start.column + 1, module_entry, label,
                                       lines=(pos.start.line, pos.end.line), entry_written=entry_kind != CONSOLE,
                                       handle=(node, [Element(e, offsets.byte(positions[e.value].start.line,
                                                                       positions[e.value].start.column),
                                                       offsets.byte(positions[e.value].end.line,
                                                                    positions[e.value].end.column),
                                                       e.value if isinstance(e.value, cst.SimpleString) else None)
                                               for e in elements])))
    return groups, offsets


def read_groups(data: bytes, module: cst.Module | None = None) -> list[SettingGroup]:
    """The override lists of a Python file, one group each ([] without an override-looking string).

    `module`: libcst's tree of `data`, when the caller has parsed it already.
    """
    if not LOOKS_LIKE_OVERRIDE.search(data):
        return []
    return _groups(data, module)[0]


def realise(data: bytes, plans: list[Plan]) -> None:
    """Each plan as an edit of its list: a string rewritten, an element removed or added."""
    for plan in plans:
        result = _realise(plan.actions, plan.group, data)
        if isinstance(result, str):
            plan.refusal = result
        else:
            plan.edits = result


def _literal_for(anchor: Element, text: str, data: bytes) -> str | None:
    """`text` as a string literal in the anchor's quoting; None when it cannot be written exactly."""
    literal = anchor.literal
    if literal is None:
        return None
    raw = data[anchor.start : anchor.end].decode("utf-8")
    quote = literal.quote
    prefix = literal.prefix
    if "\\" in raw or quote in text or "\\" in text or len(quote) != 1 or "f" in prefix.lower():
        return None
    return f"{prefix}{quote}{text}{quote}"


def _realise(actions: list[Action], group: SettingGroup, data: bytes) -> list[tuple[Span, str]] | str:
    edits: list[tuple[Span, str]] = []
    _, elements = group.handle
    if actions[0].kind == "entrypoint":
        return _move_entry(actions[0], group, elements, data)
    if actions[0].kind == "variant":
        return "a person must choose among the values it may take"
    for action in actions:
        if action.kind == "insert":
            return _insert(action, group, elements, data)
        setting = action.setting
        assert setting is not None
        element: Element = setting.handle
        if action.kind == "remove":
            return _remove(element, elements, data)
        key, prefix, value = setting.key, setting.prefix, setting.text
        for other in actions:
            if other.kind == "key":
                key = other.text
            elif other.kind == "prefix":
                prefix = other.text
            elif other.kind == "value":
                value = other.text
            elif other.kind == "items":
                planned = list_edits(value or "", other.items, set(other.drop))
                if planned is None:
                    return "the list is written in a form the bot does not edit element by element"
                value = apply_text_edits(value or "", planned)
        text = f"{prefix}{key}" + (f"={value}" if value is not None else "")
        literal = _literal_for(element, text, data)
        if literal is None:
            return "the string has escapes or a prefix the bot does not rewrite; edit it by hand"
        return [(Span(element.start, element.end), literal)]
    return edits


def _move_entry(action: Action, group: SettingGroup, elements: list[Element],
                data: bytes) -> list[tuple[Span, str]] | str:
    """The argv string that names the entry point, with the moved module prefix (module or path form)."""
    from bot.lang.shell.launchers import moved_entry

    for element in elements:
        word = _word(element.node.value)
        if word is None or group.entry not in (word, word.removesuffix(".py").lstrip("./").replace("/", ".")):
            continue
        where = moved_entry(word, "module" if word == group.entry else "script", action.key, str(action.value))
        literal = _literal_for(element, word[: where[0]] + where[2] + word[where[1] :], data) if where else None
        if literal is None:
            return "the entry point's string has escapes or a prefix the bot does not rewrite; edit it by hand"
        return [(Span(element.start, element.end), literal)]
    return "the entry point is not written as one string"


def _remove(element: Element, elements: list[Element], data: bytes) -> list[tuple[Span, str]] | str:
    index = next((i for i, e in enumerate(elements) if e.node is element.node), None)
    if index is None:
        return "it comes from a list spliced in with *NAME: remove it there by hand"
    if index + 1 < len(elements):
        span = Span(element.start, elements[index + 1].start)
    elif index > 0:
        span = Span(elements[index - 1].end, element.end)
    else:
        return "the only element of its list: remove it by hand"
    if b"#" in data[span.start : span.end].replace(data[element.start : element.end], b""):
        return "a comment sits next to it: remove it by hand"
    return [(span, "")]


def _insert(action: Action, group: SettingGroup, elements: list[Element], data: bytes) -> list[tuple[Span, str]] | str:
    anchor: Element = group.settings[-1].handle
    text = f"{action.prefix}{action.key}={action.text}"
    literal = _literal_for(anchor, text, data)
    if literal is None:
        return "the list's strings use a quoting the bot does not write; add it by hand"
    line_start = data.rfind(b"\n", 0, anchor.start) + 1
    own_line = not data[line_start : anchor.start].strip()
    comma = anchor.node.comma
    has_comma = isinstance(comma, cst.Comma)
    if not own_line:
        return [(Span(anchor.end, anchor.end), f", {literal}")]
    indent = data[line_start : anchor.start].decode("utf-8")
    newline = "\r\n" if data[: data.find(b"\n") + 1].endswith(b"\r\n") else "\n"
    line_end = data.find(b"\n", anchor.end)
    rest = data[anchor.end : line_end if line_end >= 0 else len(data)].rstrip(b"\r")
    if rest.strip() not in (b"", b","):
        return "the element shares its line with other code: add it by hand"
    at = anchor.end + len(rest)
    return [(Span(at, at), ("" if has_comma else ",") + newline + indent + literal + ("," if has_comma else ""))]


__all__ = ["parse", "python_errors", "read_groups", "realise"]
