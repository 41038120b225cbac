"""Whether written text ends a shell word: the structural half of a settled literal (bot.lang.focus).

`x.key=True` ends its word when nothing the shell joins to it follows: the word node ends there, or
the quoted string holding it closes right after and ends the word. A quote opened earlier, a blank
inside quotes, or a string glued on after all make the value longer. A comment counts as words only
when no quote precedes the text in it (readers of commented-out launches split it as shell would).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.lang.shell.parse import parse_tree
from bot.lang.shell.walk import MAX_DEPTH

if TYPE_CHECKING:
    from tree_sitter import Node

_PART = frozenset({"word", "string_content", "number"})
_QUOTED = frozenset({"string", "raw_string", "translated_string", "ansi_c_string"})
_ARGUMENT_OF = frozenset({"command", "command_name", "array", "variable_assignment", "declaration_command"})
# what nests statements (or commands in commands) in the text; fewer than MAX_DEPTH of them in all and
# the analysis follows every statement (it reports deeper ones as parse errors)
_NESTING = re.compile(rb"[(`|&{]|\b(?:if|for|while|until|case|select|function)\b")


def end_words(shell: bytes, spans: list[tuple[int, int]]) -> bool:
    """Whether the text parses without an error, nests no deeper than the analysis follows, and each
    span (start, end) of it ends the shell word it is part of."""
    if len(_NESTING.findall(shell)) - shell.count(b"${") >= MAX_DEPTH:
        return False
    root = parse_tree(shell).root_node
    if root.has_error:
        return False
    return all(_ends_word(root, shell, start, end) for start, end in spans)


def _ends_word(root: Node, shell: bytes, start: int, end: int) -> bool:
    node: Node | None = root.descendant_for_byte_range(start, end)
    while node is not None:
        kind = node.type
        if kind == "comment":
            return not any(quote in shell[node.start_byte : end + 1] for quote in b"\"'")
        if kind in _PART or kind == "concatenation":
            if node.end_byte != end:
                return False
        elif kind in _QUOTED:
            if node.end_byte != end + 1:  # the closing quote, right after the text
                return False
            end = node.end_byte
        else:
            return kind in _ARGUMENT_OF
        node = node.parent
    return False


__all__ = ["end_words"]
