r"""A launch cut short: a backslash followed by blanks at the end of a line does not continue it.

Bash reads `\` then a blank as an escaped blank (a word of its own), so the line ends the command
and the lines meant as its continuation run as a command of their own (`a.b=1: command not found`).
tree-sitter-bash leaves the escaped blank out of the command, which then ends before it. Seen in
real launch scripts with a comment after the backslash (`x=pow \  # pow or max_min`) and with
trailing blanks that an editor keeps.
"""

from __future__ import annotations

import re

_ESCAPED_BLANK_AT_END = re.compile(rb"[ \t]*\\[ \t]+(?:#[^\r\n]*)?(?=\r?\n)")


def cut_short_at(src: bytes, command_end: int) -> int | None:
    """The line (1-based) of the backslash that was meant to continue the command ending at
    `command_end`, when only blanks or a comment follow it and the next line holds more; else None."""
    found = _ESCAPED_BLANK_AT_END.match(src, command_end)
    if found is None:
        return None
    start = src.index(b"\n", found.end()) + 1
    end = src.find(b"\n", start)
    following = src[start : end if end >= 0 else len(src)].strip()
    if not following or following.startswith(b"#"):
        return None
    return src.count(b"\n", 0, found.end()) + 1


def cut_short_reason(line: int) -> str:
    return (f"the launch ends at line {line}: its `\\` is followed by a blank, which does not continue the "
            "line, so the lines after it run as a command of their own")
