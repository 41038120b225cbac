"""Paths a script computes from its own location, read statically: `$0` / `${BASH_SOURCE[0]}` (the script's
own path, as the repository knows it) through `dirname`, `basename`, `realpath`, `readlink -f` and
`cd X && pwd`, with text appended (`"$(dirname "$0")/.."`).

A value is ("file", "") for the script itself, ("dir", suffix) for the script's directory with `suffix`
appended (`/..`, `/conf`, or "" for the directory itself), or ("name", text) for a plain name (a `basename`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.lang.shell.text import BARE, SCRIPT_DIR, Items, Piece, ScriptDirPiece, after_script_dir

if TYPE_CHECKING:
    from tree_sitter import Node

Value = tuple[str, str]
SELF_FORMS = {"$0", "${0}", "${BASH_SOURCE[0]}", "${BASH_SOURCE}", "$BASH_SOURCE"}
_NORMALISING = {"realpath", "readlink"}  # `readlink` with -f, -e or -m only: plain readlink reads a link
_SKIPPED = ("comment", "file_redirect", "herestring_redirect")


def substitution_value(node: Node, src: bytes, word: Callable[[Node], list[Items]],
                       script_path: str | None) -> Value | None:
    """What `$( ... )` prints, when it is a path of the script's own location; None otherwise.
    `word`: the expander's alternatives of a word node; `script_path`: the script's path in the repository,
    when the text is the whole script (not a doc's snippet), for a `basename` the text alone does not say."""
    body = [c for c in node.named_children if c.type not in _SKIPPED]
    if len(body) == 1 and body[0].type == "list":
        body = [c for c in body[0].children if c.type not in _SKIPPED]
        if len(body) != 3 or body[1].type != "&&":
            return None
        body = [body[0], body[2]]
    commands = [_unredirected(c) for c in body]
    if any(c is None or c.type != "command" for c in commands):
        return None
    if len(commands) == 2:  # `cd X && pwd`, `cd X; pwd`
        first, second = commands
        assert first is not None and second is not None
        if _name(first, src) != "cd" or _name(second, src) != "pwd" or any(
                _text(a, src) not in ("-P", "-L") for a in _arguments(second)):
            return None
        value = _one_path(first, src, word, script_path)
        return None if value is None else _normalised(value)
    if len(commands) != 1:
        return None
    command = commands[0]
    assert command is not None
    return _apply(_name(command, src), command, src, word, script_path)


def pieces_of(value: Value, text: str, ctx: str) -> Items | None:
    """The pieces a value expands to: the script's directory (resolved per file) and the text after it."""
    kind, rest = value
    if kind == "name":
        return [Piece(rest, ctx=ctx)]
    if kind == "dir":
        return [ScriptDirPiece(text, rest, ctx=ctx, splittable=ctx == BARE)]
    return None  # the script's own file: its name is not known from the text


def _unredirected(node: Node) -> Node | None:
    if node.type == "redirected_statement":
        return node.named_children[0] if node.named_children else None
    return node


def _name(command: Node, src: bytes) -> str:
    name = command.child_by_field_name("name")
    return "" if name is None else src[name.start_byte : name.end_byte].decode("utf-8", "replace")


def _arguments(command: Node) -> list[Node]:
    name = command.child_by_field_name("name")
    return [c for c in command.named_children if c != name and c.type not in _SKIPPED
            and c.type != "variable_assignment"]


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _apply(name: str, command: Node, src: bytes, word: Callable[[Node], list[Items]],
           script_path: str | None) -> Value | None:
    args = _arguments(command)
    options = [_text(a, src) for a in args if _text(a, src).startswith("-")]
    operands = [a for a in args if not _text(a, src).startswith("-")]
    if name == "basename" and len(operands) == 2:
        value = _path_of(operands[0], src, word, script_path)
        suffix = _text(operands[1], src).strip("'\"")
        named = None if value is None else _basename(value, script_path)
        if named is None:
            return None
        return "name", named[:-len(suffix)] if suffix and named.endswith(suffix) and named != suffix else named
    if len(operands) != 1:
        return None
    value = _path_of(operands[0], src, word, script_path)
    if value is None:
        return None
    if name == "dirname":
        return _dirname(value)
    if name == "basename":
        named = _basename(value, script_path)
        return None if named is None else ("name", named)
    if name in _NORMALISING and (name == "realpath" or any(o in ("-f", "-e", "-m") for o in options)):
        return _normalised(value)
    if name == "echo" and not options:
        return value
    return None


def _one_path(command: Node, src: bytes, word: Callable[[Node], list[Items]],
              script_path: str | None) -> Value | None:
    operands = [a for a in _arguments(command) if not _text(a, src).startswith("-")]
    return _path_of(operands[0], src, word, script_path) if len(operands) == 1 else None


def _path_of(arg: Node, src: bytes, word: Callable[[Node], list[Items]], script_path: str | None) -> Value | None:
    """The value of one argument: the script itself, or a word that expands to the script's directory and text."""
    text = _text(arg, src)
    if text.strip('"') in SELF_FORMS:
        return "file", ""
    alternatives = word(arg)
    if len(alternatives) != 1:
        return None
    pieces = alternatives[0]
    if not pieces or any(p is None for p in pieces):
        return None
    head, *rest = pieces
    assert head is not None
    if head.dynamic == SCRIPT_DIR and all(p is not None and p.static for p in rest):
        return "dir", after_script_dir(head) + "".join(p.text for p in rest if p is not None)
    return None


def _dirname(value: Value) -> Value | None:
    """The parent directory, normalised: `dirname "$(dirname "$0")"` is the directory above the script's
    (bash's dirname of a path ending in `/..` would drop the `..`; no script means that)."""
    kind, rest = value
    if kind == "file":
        return "dir", ""
    return _normalised(("dir", rest + "/..")) if kind == "dir" else None


def _basename(value: Value, script_path: str | None) -> str | None:
    kind, rest = value
    if kind == "name":
        return posixpath.basename(rest.rstrip("/")) or None
    if kind == "dir":
        last = posixpath.basename(rest.rstrip("/"))
        if last and last not in (".", ".."):
            return last
    if script_path is None:
        return None
    if kind == "file":
        return posixpath.basename(script_path)
    full = posixpath.normpath(posixpath.join(posixpath.dirname(script_path), rest.lstrip("/")))
    if full in ("", ".") or full.startswith("../") or full == "..":
        return None  # the repository's root, or above it: a machine's directory
    return posixpath.basename(full)


def _normalised(value: Value) -> Value | None:
    kind, rest = value
    if kind != "dir":
        return value if kind == "file" else None
    path = posixpath.normpath(rest.lstrip("/") or ".")
    return "dir", "" if path == "." else "/" + path
