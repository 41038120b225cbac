"""Directories in a script: those its words name at run time (`~`, the script's own directory, `$(pwd)`),
and the one each command runs in, as far as the script's `cd`s say.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from bot.ir import ROOT as ROOT
from bot.ir import Workdir as Workdir
from bot.lang.shell.text import BARE, SCRIPT_DIR, WORK_DIR, Field, Items, Piece, after_script_dir

if TYPE_CHECKING:
    from tree_sitter import Node

    from bot.lang.shell.expansion import Expander
    from bot.lang.shell.variables import Env

HOME = "a home directory (~), expanded by the shell"
_IDENTIFIER_EQUALS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def tilde(items: Items, *, assignment: bool = False, argument: bool = False) -> Items:
    """The word with bash's tilde expansion: a leading unquoted `~` (or `~user`) up to the first `/`
    becomes the run-time home directory. `assignment`: also after each `:` of the value (bash does so
    in assignments); `argument`: also after the `=` of a `name=~/x` argument (bash, outside POSIX mode,
    for a valid variable name only: `a.b=~/x` keeps its tilde, and so does Hydra, which rejects it).
    """
    if not items or items[0] is None:
        return items
    first = items[0]
    text = first.text
    if "~" not in text or not _from_source(first):  # every cut below starts at a `~` of the first piece
        return items
    starts = [0]
    if argument:
        match = _IDENTIFIER_EQUALS.match(text)
        starts = [match.end()] if match else []
    if assignment:
        starts += [i + 1 for i, ch in enumerate(text) if ch == ":"]
    cuts: list[tuple[int, int]] = []
    for start in starts:
        if text.startswith("~", start):
            end = text.find("/", start)
            stop = text.find(":", start) if assignment else -1
            end = min(e for e in (end, stop, len(text)) if e >= 0)
            if end == len(text) and len(items) > 1 and items[1] is not None:
                continue  # the tilde prefix runs into a quoted or expanded part: bash leaves it
            cuts.append((start, end))
    if not cuts:
        return items
    out: Items = []
    pos = 0
    for start, end in cuts:
        if start > pos:
            out.append(first.sub(pos, start))
        out.append(Piece(text[start:end], ctx=BARE, dynamic=HOME, default_of=first.default_of))
        pos = end
    if pos < len(text):
        out.append(first.sub(pos, len(text)))
    return out + items[1:]


def _from_source(piece: Piece) -> bool:
    """Unquoted characters written in the word itself (not the value of a variable it expands)."""
    return piece.static and piece.ctx == BARE and not piece.via and bool(piece.starts)


_PWD = re.compile(r"\$\(\s*pwd(?:\s+-[LP])?\s*\)|`\s*pwd(?:\s+-[LP])?\s*`")
_SCRIPT_DIR_WORDS = {"cd", "pwd", "dirname", "readlink", "realpath", "-f", "-e", "-m", "-P", "-L", "--", "&&", ";",
                     "echo", "$0", "${0}", "${BASH_SOURCE[0]}", "${BASH_SOURCE}", "$BASH_SOURCE", ">/dev/null",
                     "&>/dev/null", "2>&1", "1>/dev/null", "2>/dev/null", ">", "&>", "/dev/null"}


def script_directory(text: str) -> bool:
    """`$(cd "$(dirname "$0")" && pwd)`, `$(dirname "${BASH_SOURCE[0]}")` and the like: the script's directory."""
    if "dirname" not in text or not ("$0" in text or "${0}" in text or "BASH_SOURCE" in text):
        return False
    flat = text.replace("$(", " ").replace(")", " ").replace('"', " ").replace("'", " ").replace("`", " ")
    return all(word in _SCRIPT_DIR_WORDS for word in flat.replace(";", " ; ").split())


def working_directory(text: str) -> bool:
    """`$(pwd)`, `` `pwd -P` `` and the like: the working directory."""
    return _PWD.fullmatch(text) is not None


def change_dir(expander: Expander, node: Node, env: Env, cwd: Workdir | None) -> Workdir | None:
    """Where `cd DIR` leads from `cwd`; None when the script does not say."""
    args = [c for c in node.children[1:] if c.type not in ("comment", "file_redirect", "herestring_redirect")]
    args = [a for a in args if not (a.text or b"").startswith(b"-")]
    if len(args) != 1:
        return None
    alternatives = expander.word(args[0], env)
    if len(alternatives) != 1:
        return None
    return directory_of([p for p in alternatives[0] if p is not None], cwd)


def directory_of(pieces: list[Piece], cwd: Workdir | None) -> Workdir | None:
    """The directory a path names, from `cwd`: `$(cd "$(dirname "$0")" && pwd)/x` is beside the script,
    `$(pwd)/x` and `$PWD/x` below the current directory; None when the script does not say."""
    if cwd is None and not (pieces and pieces[0].dynamic == SCRIPT_DIR):
        return None
    base, rest = cwd or ROOT
    anchored = bool(pieces) and pieces[0].dynamic in (SCRIPT_DIR, WORK_DIR)
    after = ""
    if anchored and pieces[0].dynamic == SCRIPT_DIR:
        base, rest = "script", ""
        after = after_script_dir(pieces[0])  # `$(realpath "$(dirname "$0")/..")`: `/..`
    if anchored:
        pieces = pieces[1:]
    if any(not p.static for p in pieces):
        return None
    path = after + "".join(p.text for p in pieces)
    if anchored:
        path = path.lstrip("/")
    elif path.startswith("/"):
        return "absolute", posixpath.normpath(path)
    if path.startswith("~"):
        return None
    joined = posixpath.normpath(posixpath.join(rest, path)) if path else rest
    if base == "absolute":
        return base, joined
    return base, "" if joined == "." else joined


def ray_workdir(words: list[str], fields: list[Field], cwd: Workdir | None) -> Workdir | None:
    """`ray job submit --working-dir DIR -- python3 -m M`: M is found in DIR (relative to where it is submitted)."""
    for i, word in enumerate(words):
        name, _, inline = word.partition("=")
        if name != "--working-dir":
            continue
        if inline:
            return directory_of(fields[i].chars(len(name) + 1, len(word)), cwd)
        return directory_of(fields[i + 1].pieces, cwd) if i + 1 < len(fields) else None
    return cwd
