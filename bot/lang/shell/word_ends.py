"""Whether written text ends a shell word: the structural half of a settled literal (bot.lang.focus).

`x.key=True` ends its word when nothing the shell joins to it follows: the word node ends there, or
the quoted string holding it closes right after and ends the word. A quote opened earlier, a blank
inside quotes, or a string glued on after all make the value longer, except in a string of several
overrides whose variable is only ever a bare argument (word splitting cuts it at blanks). A comment
counts as words only when no quote precedes the text in it (readers of commented-out launches split it
as shell would). An expansion glued before the key is taken as part of the key.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.lang.shell.parse import parse_tree
from bot.lang.shell.walk import MAX_DEPTH

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

_PART = frozenset({"word", "string_content", "number"})
_QUOTED = frozenset({"string", "raw_string", "translated_string", "ansi_c_string"})
_ARGUMENT_OF = frozenset({"command", "command_name", "array", "variable_assignment", "declaration_command"})
# what nests statements (or commands in commands) in the text; fewer than MAX_DEPTH of them in all and
# the analysis follows every statement (it reports deeper ones as parse errors)
_NESTING = re.compile(rb"[(`|&{]|\b(?:if|for|while|until|case|select|function)\b")


def end_words(shell: bytes, spans: list[tuple[int, int]], tree: Tree | None = None) -> bool:
    """Whether the text parses without an error, nests no deeper than the analysis follows, and each
    span (start, end) of it ends the shell word it is part of; `tree`: its parse_tree, when the caller has it."""
    root = (tree if tree is not None else parse_tree(shell)).root_node
    if root.has_error:
        return False
    if len(_NESTING.findall(shell)) - shell.count(b"${") >= MAX_DEPTH and _depth(root) >= MAX_DEPTH:
        return False  # a node's depth bounds the statements nested around it
    return all(_ends_word(root, shell, start, end) for start, end in spans)


def _depth(root: Node) -> int:
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.children)
    return deepest


def _ends_word(root: Node, shell: bytes, start: int, end: int) -> bool:
    node: Node | None = root.descendant_for_byte_range(start, end)
    while node is not None:
        kind = node.type
        if kind == "comment":
            return not any(quote in shell[node.start_byte : end + 1] for quote in b"\"'")
        if kind in _PART or kind == "concatenation":
            if node.end_byte != end:
                string = node.parent if kind == "string_content" else None
                return string is not None and string.type == "string" and _split_apart(root, shell, string, end)
        elif kind in _QUOTED:
            if node.end_byte != end + 1:  # the closing quote, right after the text
                return kind == "string" and _split_apart(root, shell, node, end)
            end = node.end_byte
        else:
            return kind in _ARGUMENT_OF
        node = node.parent
    return False


def _split_apart(root: Node, shell: bytes, string: Node, end: int) -> bool:
    """Whether text that a blank follows inside a double-quoted string is a word of its own all the same:
    the string is the whole value of `NAME="..."`, a statement of its own (not exported, not handed to a
    command), and every use of NAME is a bare `$NAME` or `${NAME}` argument, which word splitting cuts at
    blanks (`ENGINE="engine.x=True engine.y=1"` then `python3 -m app $ENGINE`), or a copy into another
    variable whose uses are so (`CONFIG="$ENGINE"`)."""
    after = shell[end : end + 3]
    if not (after[:1] in (b" ", b"\t", b"\n") or (after[:2] == b"\\\n" and after[2:3] in (b" ", b"\t"))):
        return False
    value = string.parent if string.parent is not None and string.parent.type == "concatenation" else string
    name = _assigned(shell, value)  # `"a=1 "b" c=2"` is strings and words glued: one value all the same
    return name is not None and _split_where_used(root, shell, name, set())


def _assigned(shell: bytes, value: Node) -> bytes | None:
    """The variable a statement `NAME=value` assigns (not exported, not handed to a command), if it is one."""
    assignment = value.parent
    if assignment is None or assignment.type != "variable_assignment" or assignment.parent is None:
        return None
    if assignment.parent.type in ("command", "declaration_command"):
        return None
    name = shell[assignment.start_byte : value.start_byte].removesuffix(b"=")
    return name if re.fullmatch(rb"[A-Za-z_][A-Za-z0-9_]*", name) else None


def _split_where_used(root: Node, shell: bytes, name: bytes, seen: set[bytes]) -> bool:
    if name in seen or len(seen) > 8:
        return name in seen
    seen.add(name)
    if re.search(rb"\bIFS=|\bset\s+-[a-z]*a|allexport|\b(?:export|declare|typeset|local|readonly)\b[^\n]*\b"
                 + name + rb"\b", shell):
        return False
    bare = {b"$" + name, b"${" + name + b"}"}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type not in ("simple_expansion", "expansion"):
            stack.extend(node.children)
            continue
        if not any(c.type == "variable_name" and shell[c.start_byte : c.end_byte] == name for c in node.children):
            continue
        parent = node.parent
        if shell[node.start_byte : node.end_byte] not in bare or parent is None:
            return False
        if parent.type in ("command", "array"):
            continue  # a bare argument: split at blanks
        copy = parent if parent.type == "string" and len(parent.named_children) == 1 else node  # "$NAME"
        other = _assigned(shell, copy)
        if other is None or not _split_where_used(root, shell, other, seen):
            return False
    return True


__all__ = ["end_words"]
