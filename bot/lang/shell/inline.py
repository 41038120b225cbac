"""`bash -c "..."`: the string a shell runs as a script of its own, read as one.

Slurm and container scripts often wrap the launch so (`srun singularity exec img bash -c "torchrun
train.py a.b=1"`). The string is parsed in place (tree-sitter's included ranges), so its nodes keep
the file's byte offsets and an edit of an override in it is an edit of the file.

Only a shell the command itself runs counts: the command's name, or a word after a runner or wrapper
(`srun`, `singularity exec IMG`, `timeout 5`), never a word `echo` prints or `ssh` joins into one line.

In double quotes the outer shell expands the text before the inner one reads it. That reads the same
as the inner shell expanding it with the outer values, unless the text holds an escape other than a
line continuation (`\\"`, `\\$`), a command substitution (the outer shell runs it first), a `$` in
single quotes (the outer shell still expands it), an array spread or `$@` (the outer shell splits
the string there), or a variable expanded after the string assigns it (the outer value is the one
read): such a string is not read. In single quotes the inner shell reads the text as written, with
what it inherits: the variables the script exported and those set for the command itself, none
through `docker`, `podman`, `kubectl` or `env -i`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from bot.lang.shell.launchers import RUNNERS, WRAPPERS

if TYPE_CHECKING:
    from tree_sitter import Node

    from bot.lang.shell.parse import ShellScript
    from bot.model import Span

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# commands that run the words after them as a command of their own (containers, schedulers, wrappers)
CARRIERS = frozenset((RUNNERS | WRAPPERS | {"singularity", "apptainer", "docker", "podman", "enroot", "env", "kubectl",
                                             "ray", "flock", "chroot", "nsenter", "unshare"}) - {"xargs"})
# words that, anywhere before the shell, make the string something else than a script run here
NOT_RUN_HERE = frozenset({"echo", "printf", "ssh", "rsh", "pdsh", "cat", "tee", "logger", "xargs"})
CLEAN_ENVIRONMENT = frozenset({"docker", "podman", "kubectl"})  # pass none of the script's variables on
_QUICK = re.compile(rb"sh(?:[ \t]|\\\r?\n)+-[A-Za-z]*c")  # every command this module reads holds it
_SCRIPT_FLAGS = re.compile(rb"-[A-Za-z]*c[A-Za-z]*")  # -c, -lc, -ec, -xc
_ESCAPE = re.compile(rb"\\(?!\r?\n)")  # a backslash that does not continue the line
_SUBSTITUTION = re.compile(rb"\$\((?!\()|`")  # `$(...)` (not arithmetic `$((...))`) or a backquote
_SPLIT_BY_OUTER = re.compile(rb"\[[@*]\]|\$[@*]|\$\{[@*]")  # `${A[@]}`, `$@`, `$*`: split before the inner read
_ENV_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=.*", re.S)
_NOT_WORDS = frozenset({"variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect",
                        "comment"})
_ASSIGNING = frozenset({"variable_assignment", "for_statement", "select_statement"})


@dataclass(frozen=True)
class InlineScript:
    root: Node  # the parsed string: its statements, at the file's offsets
    string: Node  # the quoted string itself
    quote: bytes  # b'"' or b"'"
    clean: bool = False  # run where none of the script's variables reach (`docker run IMG bash -c ...`)
    env_words: tuple[str, ...] = ()  # names `env NAME=value` sets for the command


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def inline_script(src: bytes, command: Node) -> InlineScript | None:
    """The script a `SHELL -c STRING` command runs, parsed, if it is written out and reads as written."""
    if not _QUICK.search(src, command.start_byte, command.end_byte):
        return None
    words = [c for c in command.children if c.type not in _NOT_WORDS]
    names = [_basename(src, word) for word in words]
    if not names or (names[0] not in SHELLS and names[0] not in CARRIERS):
        return None
    for i in range(len(words) - 2):
        if names[i] not in SHELLS:
            continue
        flags, string = words[i + 1], words[i + 2]
        if not _SCRIPT_FLAGS.fullmatch(src[flags.start_byte : flags.end_byte]) or NOT_RUN_HERE & set(names[:i]):
            return None
        found = _parse(src, string)
        before = names[:i]
        clean = bool(CLEAN_ENVIRONMENT & set(before)) or (before[:1] == ["env"] and "-i" in before) or (
            "sudo" in before and not {"-E", "--preserve-env"} & set(before))
        env_words = tuple(m.group(1) for n in before if (m := _ENV_WORD.fullmatch(n))) if "env" in before else ()
        return InlineScript(found.root, found.string, found.quote, clean, env_words) if found is not None else None
    return None


def _basename(src: bytes, word: Node) -> str:
    return src[word.start_byte : word.end_byte].rsplit(b"/", 1)[-1].decode("utf-8", "replace")


def _parse(src: bytes, string: Node) -> InlineScript | None:
    from tree_sitter import Point, Range

    quote = {"string": b'"', "raw_string": b"'"}.get(string.type)
    start, end = string.start_byte + 1, string.end_byte - 1
    if quote is None or end <= start or src[string.start_byte : start] != quote or src[end : end + 1] != quote:
        return None
    if quote == b'"' and (_ESCAPE.search(src, start, end) or _SUBSTITUTION.search(src, start, end)
                          or _SPLIT_BY_OUTER.search(src, start, end)):
        return None
    first = Point(string.start_point[0], string.start_point[1] + 1)
    last = Point(string.end_point[0], string.end_point[1] - 1)
    parser = _parser()  # this module's own: its included ranges are set for each string
    parser.included_ranges = [Range(first, last, start, end)]
    root = parser.parse(src).root_node
    if root.has_error or not root.named_children:
        return None
    if quote == b'"' and not _reads_as_written(src, root):
        return None
    return InlineScript(root, string, quote)


def _reads_as_written(src: bytes, root: Node) -> bool:
    """Whether the inner shell, reading a double-quoted string the outer shell has expanded, reads what
    the bot reads: no `$` inside single quotes, no `read`, no variable expanded after the string assigns
    it (the outer value is the one read; `X=$X` itself is fine)."""
    assigned: dict[bytes, int] = {}  # name -> where its first assignment in the string ends
    expanded: list[tuple[bytes, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "raw_string" and b"$" in src[node.start_byte : node.end_byte]:
            return False
        if kind in _ASSIGNING and not (node.parent is not None and node.parent.type == "command"):
            # (a command's own `X=1 cmd` lasts for that command, whose words are expanded before it)
            name = next((c for c in node.children if c.type == "variable_name"), None)
            if name is not None:
                key = src[name.start_byte : name.end_byte]
                done = node.end_byte if kind == "variable_assignment" else name.end_byte  # a loop's: at once
                assigned[key] = min(assigned.get(key, done), done)
        elif kind == "command_name" and src[node.start_byte : node.end_byte] in (b"read", b"mapfile", b"readarray"):
            return False
        elif kind == "variable_name" and node.parent is not None and node.parent.type in (
                "simple_expansion", "expansion"):
            expanded.append((src[node.start_byte : node.end_byte], node.start_byte))
        stack.extend(node.children)
    return not any(name in assigned and at >= assigned[name] for name, at in expanded)


def words_root(script: ShellScript, span: Span) -> Node:
    """Where the words around `span` are: the `bash -c` string's own tree when the string holds it (the
    script's tree has the string as one word), else the script's."""
    for start, end, _ in script.inline_strings:
        if start < span.start and span.end < end:
            node: Node | None = script.tree.root_node.descendant_for_byte_range(start, end)
            while node is not None and (node.start_byte, node.end_byte) != (start, end):
                node = node.parent
            found = _parse(script.src, node) if node is not None else None
            if found is not None:
                return found.root
    return script.tree.root_node


_BREAKS_DOUBLE = re.compile(r'["$`]|\\(?!\n)')  # what the outer shell reads in a double-quoted string


def inline_quoting_line(script: ShellScript, edits: list[tuple[Span, str]]) -> int | None:
    """The line of the first edit inside a `bash -c` string whose text the outer shell would read
    otherwise (a quote that closes the string, a `$` it expands); None when every edit is safe there."""
    for span, text in edits:
        for start, end, quote in script.inline_strings:
            if not start < span.start <= span.end < end:
                continue
            if (quote == b"'" and "'" in text) or (quote == b'"' and _BREAKS_DOUBLE.search(text)):
                return int(script.src.count(b"\n", 0, span.start)) + 1
    return None
