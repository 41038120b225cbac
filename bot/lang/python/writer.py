"""Edits of Python override lists: a string literal rewritten in its own quoting, an element dropped with its
separator, or one added in the list's own layout (lists read by bot.lang.python.launch)."""

from __future__ import annotations

import libcst as cst

from bot.hydra.list_values import apply_text_edits, list_edits
from bot.ir import (
    Action,
    InsertKey,
    MoveEntry,
    Plan,
    RemoveKey,
    RenameKey,
    SetBranchValue,
    SetItems,
    SetPrefix,
    Setting,
    SettingGroup,
    SetValue,
    assert_never,
)
from bot.lang.keys import shared_segments
from bot.lang.python.launch import Element, word_of
from bot.model import Span


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
    if not actions:
        return []
    _, elements = group.handle
    action = actions[0]
    match action:
        case MoveEntry():
            return _move_entry(action, group, elements, data)
        case SetBranchValue():
            return "a person must choose among the values it may take"
        case InsertKey():
            return _insert(action, group, elements, data)
        case RemoveKey():
            return _remove(action.setting.handle, elements, data)
        case SetValue() | SetItems() | RenameKey() | SetPrefix():
            return _rewrite(actions, action.setting, data)
        case _:
            assert_never(action)


def _rewrite(actions: list[Action], setting: Setting, data: bytes) -> list[tuple[Span, str]] | str:
    """The override's string written anew with its new key, prefix or value."""
    element: Element = setting.handle
    if element.literal is None and element.head is not None:  # a built string: its key only
        return _built_key(actions, setting.key, setting.prefix, element.head)
    key, prefix, value = setting.key, setting.prefix, setting.text
    for other in actions:
        match other:
            case RenameKey():
                key = other.text
            case SetPrefix():
                prefix = other.text
            case SetValue():
                value = other.text
            case SetItems():
                planned = list_edits(value or "", other.items, set(other.drop))
                if planned is None:
                    return "the list is written in a form the bot does not edit element by element"
                value = apply_text_edits(value or "", planned)
            case RemoveKey() | InsertKey() | MoveEntry() | SetBranchValue():
                pass  # planned alone, never with a change of the override (bot.rules.fixes)
            case _:
                assert_never(other)
    text = f"{prefix}{key}" + (f"={value}" if value is not None else "")
    literal = _literal_for(element, text, data)
    if literal is None:
        return "the string has escapes or a prefix the bot does not rewrite; edit it by hand"
    return [(Span(element.start, element.end), literal)]


def _built_key(actions: list[Action], key: str, prefix: str, head: tuple[int, int]) -> list[tuple[Span, str]] | str:
    """A rename or a new prefix of an override a Python expression builds (`f"k={v}"`), written in its literal
    head; its value is the program's."""
    for action in actions:
        if isinstance(action, RenameKey):
            key = action.text
        elif isinstance(action, SetPrefix):
            prefix = action.text
        else:
            return "the value is built by a Python expression: a person must change it"
    return [(Span(*head), f"{prefix}{key}")]


def _move_entry(action: MoveEntry, group: SettingGroup, elements: list[Element],
                data: bytes) -> list[tuple[Span, str]] | str:
    """The argv string that names the entry point, with the moved module prefix (module or path form)."""
    from bot.ir import moved_entry

    for element in elements:
        word = word_of(element.node.value)
        if word is None or group.entry not in (word, word.removesuffix(".py").lstrip("./").replace("/", ".")):
            continue
        where = moved_entry(word, "module" if word == group.entry else "script", action.old, action.new)
        literal = _literal_for(element, word[: where[0]] + where[2] + word[where[1] :], data) if where else None
        if literal is None:
            return "the entry point's string has escapes or a prefix the bot does not rewrite; edit it by hand"
        return [(Span(element.start, element.end), literal)]
    return "the entry point is not written as one string"


def _remove(element: Element, elements: list[Element], data: bytes) -> list[tuple[Span, str]] | str:
    index = next((i for i, e in enumerate(elements) if e.node is element.node), None)
    if index is None:
        return "it comes from another list (spliced in with *NAME, or added with += or .extend): remove it by hand"
    if index + 1 < len(elements):
        span = Span(element.start, elements[index + 1].start)
    elif index > 0:
        span = Span(elements[index - 1].end, element.end)
    else:  # the only one: the list is left empty (`overrides=[]`), its line too when it has one of its own
        span = Span(element.start, element.end)
        after = data[span.end :]
        if after.lstrip(b" \t").startswith(b","):
            span = Span(span.start, span.end + len(after) - len(after.lstrip(b" \t")) + 1)
        line_start = data.rfind(b"\n", 0, span.start) + 1
        line_end = data.find(b"\n", span.end)
        if line_end >= 0 and not data[line_start : span.start].strip() and not data[span.end : line_end].strip():
            span = Span(line_start, line_end + 1)
    if b"#" in data[span.start : span.end].replace(data[element.start : element.end], b""):
        return "a comment sits next to it: remove it by hand"
    return [(span, "")]


def _nearest(group: SettingGroup, key: str) -> Setting:
    """The written override whose key shares the most leading segments with `key` (the last of those): the
    new one goes after it, as in a shell launch; one built by an expression or of another list is no anchor."""
    best, score = group.settings[-1], -1
    for setting in group.settings:
        element: Element = setting.handle
        if element.literal is None or element not in group.handle[1]:
            continue
        common = shared_segments(setting.key, key)
        if common >= score:
            best, score = setting, common
    return best


def _insert(action: InsertKey, group: SettingGroup, elements: list[Element],
            data: bytes) -> list[tuple[Span, str]] | str:
    anchor: Element = _nearest(group, action.anchor_key or action.key).handle
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
