"""Overrides written as text, not run: commented-out overrides, literals in prose, bare override blocks.

`# trainer.device=npu` (alone, or a line of a commented-out launch) in a script or a doc's shell
block, ``key=value`` / `key=value` in prose, and a fence or literal block holding nothing but
override lines. Each is a setting the rules match; its edits are written in place (the `#`, the
backticks and the quoting kept). Comments and prose are COMMENT groups (notes, per the rule's
`comments`); a bare override block is one group of overrides handed on (no key is added to it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.hydra.grammar import HydraSyntaxError, parse_override
from bot.ir import (
    COMMENT,
    SCRIPT,
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
    State,
    assert_never,
)
from bot.ir import PROSE as PROSE_ROLE
from bot.lang.embedded.blocks import Line
from bot.lang.shell.launches import line_column
from bot.model import Span

WORD = re.compile(rb"(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'])+")
OVERRIDE = re.compile(rb"(?P<prefix>\+\+|\+|~)?(?P<key>[A-Za-z_][\w\-]*(?:\.[\w\-@/\[\]]+)+)="
                      rb"(?P<value>(?:\"[^\"\n]*\"|'[^'\n]*'|\\\$|[^\s\"'`\\();|&<>])*)")
LOOSE = re.compile(rb"(?P<prefix>\+\+|\+|~)?(?P<key>[A-Za-z_][\w\-]*(?:\.[\w\-@/\[\]]+)*)="  # a launch's: `env=cvrp`
                   rb"(?P<value>(?:\"[^\"\n]*\"|'[^'\n]*'|\\\$|[^\s\"'`\\();|&<>])*)")
LAUNCHER = re.compile(rb"(?:\$ )?(?:[\w./]*python[\d.]*|torchrun|deepspeed|accelerate|srun|ray|bash|sh|nohup)$")
COMMENT_LINE = re.compile(rb"[ \t]*#+[ \t]?")
MD_CODE = re.compile(rb"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
RST_CODE = re.compile(rb"``(?!`)(.+?)``")
HISTORY = re.compile(rb"(?i)\b(?:no longer|deprecated|removed|replaced|renamed|instead|old|older|previously|"
                     rb"used to|was|were|legacy|not supported|unsupported|obsolete|before)\b|->|=>|\xe2\x86\x92")
PROSE, COMMENTED, BARE = "in prose", "commented out", "in a block of overrides"


@dataclass
class Literal:
    """One override written as text; offsets are the file's."""

    prefix: Span
    key: Span
    value: Span  # inside the quotes, when quoted
    line: Span  # the whole line with its line break
    where: str  # PROSE, COMMENTED or BARE
    alone: bool  # removing the line leaves sense: a comment line holds nothing else, a bare block keeps others
    continued: bool  # the line before ends with `\` and this one does not
    history: bool = False  # prose that speaks of the change ("no longer", "deprecated"): never rewritten
    named_apart: bool = False  # prose that also names the key in a literal of its own (`x` ... `a.x=1`)
    shared_line: bool = False  # a bare block's line that holds other overrides too


_SHELL_VARIABLE = re.compile(r"(?<!\\)\$(?:[A-Za-z_\d@*#?$!-]|\{[#!]?[A-Za-z_]\w*(?:\[[^]]*\])?[}:#%/^,+=?@-])")


def _setting(data: bytes, literal: Literal) -> Setting:
    key = data[literal.key.start : literal.key.end].decode("utf-8", "replace")
    prefix = data[literal.prefix.start : literal.prefix.end].decode()
    raw = data[literal.value.start : literal.value.end].decode("utf-8", "replace")
    line, column = line_column(data, literal.prefix.start)
    origin = "" if literal.where == BARE else literal.where
    if _SHELL_VARIABLE.search(raw) and data[literal.value.start - 1 : literal.value.start] != b"'":
        # single quotes keep `$`, and `${a.b}` names no shell variable: Hydra's interpolation
        return Setting(key, prefix, raw, None, State.DYNAMIC, line, column, reason="a shell variable",
                       origin=origin, handle=literal)
    if "\\$" in raw and literal.where != PROSE:  # the shell passes `\$` on as `$`: not Hydra's escape
        return Setting(key, prefix, raw, None, State.DYNAMIC, line, column, reason="text the shell unescapes",
                       origin=origin, handle=literal)
    try:
        value = parse_override(f"{key}={raw}").value
    except HydraSyntaxError as exc:
        return Setting(key, prefix, raw, None, State.INVALID, line, column, reason=str(exc), handle=literal,
                       rejected=True)
    return Setting(key, prefix, raw, value, State.STATIC, line, column, origin=origin, handle=literal)


def _literal(match: re.Match[bytes], base: int, line: Span, where: str, alone: bool,
             continued: bool = False) -> Literal:
    value = Span(base + match.start("value"), base + match.end("value"))
    raw = match.group("value")
    if len(raw) >= 2 and raw[:1] in (b"'", b'"') and raw[-1:] == raw[:1]:
        value = Span(value.start + 1, value.end - 1)
    return Literal(Span(base + match.start(), base + match.start("key")),
                   Span(base + match.start("key"), base + match.end("key")), value, line, where, alone, continued)


def _full_line(data: bytes, start: int, end: int) -> Span:
    stop = data.find(b"\n", end)
    return Span(start, len(data) if stop < 0 else stop + 1)


def comment_literals(data: bytes, lines: list[Line], comments: set[int] | None = None) -> list[list[Literal]]:
    """Overrides of comment lines that hold only overrides or a launch; one list a run of comment lines.

    `comments`: where the shell's comments start (a `#` line inside a string or a here-document is none).
    """
    runs: list[list[Literal]] = []
    current: list[Literal] = []
    previous_continues = False
    last = -1
    for index, (start, end) in enumerate(lines):
        head = COMMENT_LINE.match(data, start, end)
        if head is not None and comments is not None and data.index(b"#", start) not in comments:
            head = None
        if head is None or data[start:end].lstrip().startswith(b"#!"):
            previous_continues = False
            continue
        if index != last + 1 and current:
            runs.append(current)
            current = []
        last = index
        words = []
        for word in WORD.finditer(data, head.end(), end):
            if word.group().startswith(b"#"):
                break
            words.append(word)
        continues = bool(words) and words[-1].group() == b"\\"
        if continues:
            words.pop()
        launch = bool(words) and bool(LAUNCHER.match(words[0].group()))
        found = [(w, (LOOSE if launch else OVERRIDE).fullmatch(w.group())) for w in words]
        if found and (all(m for _, m in found) or launch):
            alone = len(found) == 1 and found[0][1] is not None
            for word, match in found:
                if match is not None:
                    current.append(_literal(match, word.start(), _full_line(data, start, end), COMMENTED, alone,
                                            previous_continues and not continues))
        previous_continues = continues
    if current:
        runs.append(current)
    return runs


def prose_literals(data: bytes, lines: list[Line], rst: bool) -> list[Literal]:
    """Inline literals of prose lines that hold nothing but overrides (``key=value``, `key=value`)."""
    out: list[Literal] = []
    pattern = RST_CODE if rst else MD_CODE
    for start, end in lines:
        if b"=" not in data[start:end]:
            continue
        first = len(out)
        for code in pattern.finditer(data, start, end):
            group = 1 if rst else 2
            words = list(WORD.finditer(data, code.start(group), code.end(group)))
            matches = [OVERRIDE.fullmatch(w.group()) for w in words]
            if words and all(matches):
                history = bool(HISTORY.search(data, *_paragraph(data, start, end)))
                out.extend(replace(_literal(m, w.start(), _full_line(data, start, end), PROSE, False),
                                   history=history) for w, m in zip(words, matches) if m is not None)
        keys = [data[lit.key.start : lit.key.end] for lit in out[first:]]
        if len(set(keys)) < len(keys):  # one key with two values on a line: a before and after, or a choice
            out[first:] = [replace(lit, history=True) for lit in out[first:]]
        names = {m.group(1 if rst else 2).strip() for m in pattern.finditer(data, start, end)}
        out[first:] = [replace(lit, named_apart=True) if any(
            key == name or key.endswith(b"." + name) for name in names if name and b"=" not in name) else lit
            for lit, key in zip(out[first:], keys)]
    return out


def _paragraph(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The paragraph around a line: from the blank line before to the blank line after."""
    before = max(data.rfind(b"\n\n", 0, start), data.rfind(b"\n\r\n", 0, start))
    after = [i for i in (data.find(b"\n\n", end), data.find(b"\n\r\n", end)) if i >= 0]
    return max(before, 0), min(after, default=len(data))


def bare_literals(data: bytes, lines: list[Line]) -> list[Literal]:
    """The overrides of a block of override lines (bot.lang.embedded.blocks.overrides_only)."""
    out = []
    filled = [(s, e) for s, e in lines if data[s:e].strip() and not data[s:e].lstrip().startswith(b"#")]
    previous_continues = False
    for start, end in filled:
        text = data[start:end]
        body = _before_comment(text)
        continues = body.rstrip().endswith(b"\\")
        found = [m for m in OVERRIDE.finditer(body) if m.start() == 0 or body[m.start() - 1 : m.start()] in b" \t"]
        for match in found:
            literal = _literal(match, start, _full_line(data, start, end), BARE, len(filled) > 1 and len(found) == 1,
                               previous_continues and not continues)
            literal.shared_line = len(found) > 1
            out.append(literal)
        previous_continues = continues
    return out


def _before_comment(text: bytes) -> bytes:
    """The line up to a comment: a `#` that starts a word outside quotes, as bash reads one."""
    quote = None
    for at, byte in enumerate(text):
        char = chr(byte)
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or text[at - 1 : at] in (b" ", b"\t")):
            return text[:at]
    return text


def literal_groups(data: bytes, comments: list[list[Literal]], prose: list[Literal],
                   bare: list[list[Literal]]) -> list[SettingGroup]:
    groups = []
    for run in comments:
        settings = [_setting(data, lit) for lit in run]
        groups.append(SettingGroup(settings, settings[0].line, settings[0].column, label=COMMENTED, role=COMMENT))
    for lit in prose:
        setting = _setting(data, lit)
        groups.append(SettingGroup([setting], setting.line, setting.column, label=PROSE, role=PROSE_ROLE))
    for block in bare:
        settings = [_setting(data, lit) for lit in block]
        if settings:
            groups.append(SettingGroup(settings, settings[0].line, settings[0].column, label=BARE, role=SCRIPT))
    return groups


def realise(plans: list[Plan]) -> None:
    for plan in plans:
        edits: list[tuple[Span, str]] = []
        for action in plan.actions:
            if isinstance(action, (InsertKey, MoveEntry)):
                plan.refusal = "nothing is added to a comment, prose or a block of overrides"
                break
            literal: Literal = action.setting.handle
            if literal.history:
                plan.refusal = "the sentence speaks of the change: a person must reword it"
                break
            match action:
                case SetValue():
                    edits.append((literal.value, action.text))
                case RenameKey() if literal.named_apart:
                    plan.refusal = "the sentence also names the key on its own: a person must reword it"
                    break
                case RenameKey():
                    edits.append((literal.key, action.text))
                case SetPrefix():
                    edits.append((literal.prefix, action.text))
                case RemoveKey():
                    refusal = _removal(literal)
                    if refusal is not None:
                        plan.refusal = refusal
                        break
                    edits.append((literal.line, ""))
                case SetItems() | SetBranchValue():
                    pass  # not rewritten in text: no edit is made, and no refusal given (an open gap)
                case _:
                    assert_never(action)
        else:
            plan.edits = edits


def _removal(literal: Literal) -> str | None:
    if literal.where == PROSE:
        return "in prose a person must reword it"
    if not literal.alone:
        return ("the line holds other overrides: a person must remove this one" if literal.shared_line
                else "the block would be left empty" if literal.where == BARE
                else "the comment line holds more than this override")
    if literal.continued:
        return "the line before continues into this one"
    return None
