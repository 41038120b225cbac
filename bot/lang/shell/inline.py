"""`bash -c "..."`: the string a shell runs as a script of its own, read as one.

Slurm and container scripts often wrap the launch so (`srun singularity exec img bash -c "torchrun
train.py a.b=1"`). The string is parsed in place (tree-sitter's included ranges), so its nodes keep
the file's byte offsets and an edit of an override in it is an edit of the file.

In double quotes the outer shell expands the text before the inner one reads it; that reads the same
as the inner shell expanding it with the outer values, unless the text holds an escape other than a
line continuation (`\\"`, `\\$`) or a command substitution (which the outer shell runs first): such a
string is left unread. In single quotes the inner shell reads the text as written, with only what it
inherits from its environment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node

SHELLS = frozenset({b"bash", b"sh", b"zsh", b"dash", b"ksh"})
_QUICK = re.compile(rb"sh(?:[ \t]|\\\r?\n)+-[A-Za-z]*c")  # every command this module reads holds it
_SCRIPT_FLAGS = re.compile(rb"-[A-Za-z]*c[A-Za-z]*")  # -c, -lc, -ec, -xc
_ESCAPE = re.compile(rb"\\(?!\r?\n)")  # a backslash that does not continue the line
_SUBSTITUTION = re.compile(rb"\$\((?!\()|`")  # `$(...)` (not arithmetic `$((...))`) or a backquote
_NOT_WORDS = frozenset({"variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect",
                        "comment"})


_LAUNCH_LIKE = re.compile(rb"python|torchrun|deepspeed|accelerate|\.py\b")


@dataclass(frozen=True)
class InlineScript:
    root: Node | None  # the parsed string: its statements, at the file's offsets; None: left unread
    expanded_first: bool  # double quotes: the outer shell's variables are the ones read
    string: Node  # the quoted string itself


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def inline_script(src: bytes, command: Node) -> InlineScript | None:
    """The script a `SHELL -c STRING` command runs, parsed, if it is written out and parses cleanly."""
    if not _QUICK.search(src, command.start_byte, command.end_byte):
        return None
    words = [c for c in command.children if c.type not in _NOT_WORDS]
    for i in range(len(words) - 2):
        name = src[words[i].start_byte : words[i].end_byte]
        if name.rsplit(b"/", 1)[-1] not in SHELLS:
            continue
        flags, string = words[i + 1], words[i + 2]
        if not _SCRIPT_FLAGS.fullmatch(src[flags.start_byte : flags.end_byte]):
            continue
        return _parse(src, string)
    return None


def _parse(src: bytes, string: Node) -> InlineScript | None:
    from tree_sitter import Point, Range

    quote = {"string": b'"', "raw_string": b"'"}.get(string.type)
    start, end = string.start_byte + 1, string.end_byte - 1
    if quote is None or end <= start or src[string.start_byte : start] != quote or src[end : end + 1] != quote:
        return None
    if quote == b'"' and (_ESCAPE.search(src, start, end) or _SUBSTITUTION.search(src, start, end)):
        # unread; a launch in it is missed, so the file reads as partly parsed there
        return InlineScript(None, True, string) if _LAUNCH_LIKE.search(src, start, end) else None
    first = Point(string.start_point[0], string.start_point[1] + 1)
    last = Point(string.end_point[0], string.end_point[1] - 1)
    parser = _parser()  # this module's own: its included ranges are set for each string
    parser.included_ranges = [Range(first, last, start, end)]
    root = parser.parse(src).root_node
    if root.has_error or not root.named_children:
        return InlineScript(None, quote == b'"', string) if _LAUNCH_LIKE.search(src, start, end) else None
    return InlineScript(root, quote == b'"', string)
