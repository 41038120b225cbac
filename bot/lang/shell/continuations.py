r"""A launch cut short: a backslash followed by blanks at the end of a line does not continue it.

Bash reads `\` then a blank as an escaped blank (a word of its own), so the line ends the command
and the lines meant as its continuation run as a command of their own (`a.b=1: command not found`).
tree-sitter-bash leaves an escaped blank that stands apart out of the command, which then ends
before it; one that ends a word (`x=pow\ `) stays in the word. Seen in
real launch scripts with a comment after the backslash (`x=pow \  # pow or max_min`) and with
trailing blanks that an editor keeps.

A comment line inside a continued command ends it too: the `\` joins the next line, whose `#` then
starts a comment to the end of that line (its own `\` included), and the command ends there. Seen in
launches with an override commented out (`#    ++max_epochs=2 \`) or a heading among the overrides.

So does a line without its `\` when the next, indented deeper, starts with an option or an override
(`train` then `    --multirun x=1 \`): a docs typo, which leaves the rest a command of its own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.ir import CUT_BLANK, CUT_COMMENT, CUT_LINE_END

if TYPE_CHECKING:
    from tree_sitter import Node

_ESCAPED_BLANK_AT_END = re.compile(rb"[ \t]*\\[ \t]+(?:#[^\r\n]*)?(?=\r?\n)")
_REST_OF_LINE = re.compile(rb"[ \t]*(?:#[^\r\n]*)?(?=\r?\n)")
_CONTINUED_INTO_COMMENT = re.compile(rb"[ \t]*\\\r?\n[ \t]*#[^\r\n]*\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*")
# a line meant to go on with the launch: indented (as deep as the command or deeper), an override or an
# option first (quoted or not)
_CONTINUATION_LINE = re.compile(rb"([ \t]*)[\"']?(?:[+~-]|[A-Za-z_][\w.\[\]@/\-]*=)")
# after a line's end: an indented line that only a launch's continuation could mean (an option, or an
# override that is no shell assignment: a prefix or a dotted key)
_UNJOINED_LINE = re.compile(rb"[ \t]*(?:#[^\r\n]*)?\r?\n([ \t]+)[\"']?(?:--?[A-Za-z]|[+~]{1,2}[A-Za-z_]"
                            rb"|[A-Za-z_][\w\-]*(?:\.[\w\-@/\[\]]+)+=)")
BLANK, COMMENT, LINE_END = CUT_BLANK, CUT_COMMENT, CUT_LINE_END  # what cut a launch short (bot.ir.Launch.cut_by)


def cut_short_at(src: bytes, command: Node) -> int | None:
    """The line (1-based) of the backslash that was meant to continue the command, when a blank follows
    it, only blanks or a comment come after that, and the next line holds more; else None."""
    end = command.end_byte
    parent = command.parent
    redirected = parent is not None and parent.type == "redirected_statement"
    if parent is not None and redirected:
        end = parent.end_byte  # `... > log.txt \ `
    found = _ESCAPED_BLANK_AT_END.match(src, end)
    if found is None and not redirected and _ends_in_escaped_blank(src, end):  # not a file's name: `> log_\ `
        found = _REST_OF_LINE.match(src, end)  # the word holds it: `x=pow\ `, or a line of `\ ` alone
    if found is None:
        return None
    start = src.index(b"\n", found.end()) + 1
    stop = src.find(b"\n", start)
    following = src[start : stop if stop >= 0 else len(src)].strip()
    if not following or following.startswith(b"#"):
        return None
    return src.count(b"\n", 0, found.end()) + 1


def _ends_in_escaped_blank(src: bytes, end: int) -> bool:
    if end < 2 or src[end - 1 : end] not in (b" ", b"\t"):
        return False
    position = end - 2
    while position >= 0 and src[position] == 0x5C:  # an odd run of backslashes escapes the blank
        position -= 1
    return (end - 2 - position) % 2 == 1


def cut_by_comment(src: bytes, command: Node) -> tuple[int, int] | None:
    """(the line of the comment that ends the command, the line where the rest begins) when the command's
    last `\\` continues into a comment line and an indented line after it holds more; else None."""
    end = _command_end(command)
    found = _CONTINUED_INTO_COMMENT.match(src, end)
    if found is None:
        return None
    rest = _CONTINUATION_LINE.match(src, found.end())
    head = src[src.rfind(b"\n", 0, command.start_byte) + 1 : command.start_byte]
    if rest is None or len(rest.group(1)) < max(1, len(head) - len(head.lstrip(b" \t"))):
        return None
    comment = src.index(b"\n", end) + 1
    return src.count(b"\n", 0, comment) + 1, src.count(b"\n", 0, found.end()) + 1


def cut_by_line_end(src: bytes, command: Node) -> tuple[int, int] | None:
    """(the command's last line, the line where the rest begins) when that line has no `\\` and the next,
    indented deeper than the command, starts with an option or an override; else None."""
    end = _command_end(command)
    found = _UNJOINED_LINE.match(src, end)
    if found is None:
        return None
    head = src[src.rfind(b"\n", 0, command.start_byte) + 1 : command.start_byte]
    if len(found.group(1)) <= len(head) - len(head.lstrip(b" \t")):
        return None
    line = src.count(b"\n", 0, end) + 1
    return line, line + 1


def _command_end(command: Node) -> int:
    """Where the command ends, its redirections (`> log.txt`) included."""
    parent = command.parent
    return parent.end_byte if parent is not None and parent.type == "redirected_statement" else command.end_byte


def cut_short_reason(line: int, how: str = BLANK) -> str:
    if how == COMMENT:
        return (f"the launch ends at line {line}: a comment inside its continuation ends the command, so the "
                "lines after it run as a command of their own")
    if how == LINE_END:
        return (f"the launch ends at line {line}: the line has no `\\` to continue it, so the indented lines "
                "after it run as a command of their own")
    return (f"the launch ends at line {line}: its `\\` is followed by a blank, which does not continue the "
            "line, so the lines after it run as a command of their own")


def cut_words(how: str) -> str:
    """What ended the launch, for a report: "a blank after its `\\`" and the like."""
    return {COMMENT: "a comment inside its continuation", LINE_END: "a line without its `\\`"}.get(
        how, "a blank after its `\\`")
