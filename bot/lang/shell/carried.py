"""Launches carried in a variable to a repository script that runs it: `COMMAND="python x.py a=b" sbatch
job.sub` (or `bash job.sh`), where job.sub runs `$COMMAND` (also `eval "$COMMAND"`, `srun $COMMAND`).

The launch is the caller's: its words are the assignment's value split as bash splits an unquoted `$COMMAND`,
so its overrides are the caller's bytes, where a finding points and an edit is written. The callee is
followed as the environment is (bot.lang.shell.calls): a script of the repository, named by a plain path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from bot.lang.shell.text import Definition, Field, Items, Piece, split_fields

if TYPE_CHECKING:
    from tree_sitter import Node

# whether the script at `target` (as the caller writes it) runs the variable `name` as its command
Carries = Callable[[str, str], bool]

SUBMITTERS = {"sbatch", "bash", "sh", "source", ".", "zsh", "srun", "qsub", "bsub"}
_PLAIN_PATH = re.compile(r"^[A-Za-z0-9_./+-]+$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def callee_of(words: list[str]) -> str | None:
    """The repository script a command runs, as written (`sbatch --time=1 job.sub`, `bash run.sh`, `./go.sh`)."""
    if not words:
        return None
    first = words[0]
    if first in SUBMITTERS:
        rest = [w for w in words[1:] if not w.startswith("-")]
        if first == "sbatch":  # `sbatch --job-name x job.sub`: an option's value is a word too; the script is
            rest = [w for w in rest if "/" in w or "." in w]  # the one that names a file
        target = rest[0] if rest else None
    else:
        target = first if first.startswith(("./", "../")) or first.endswith(".sh") else None
    return target if target is not None and _PLAIN_PATH.match(target) else None


def carried_values(node: Node, src: bytes) -> list[tuple[str, Node]]:
    """The command's own assignments (`COMMAND="..." sbatch job.sub`): each name with its value node."""
    out = []
    for child in node.children:
        if child.type != "variable_assignment" or len(child.children) < 3:
            continue
        name = src[child.children[0].start_byte : child.children[0].end_byte].decode("utf-8", "replace")
        if _NAME.match(name) and child.children[1].type == "=":
            out.append((name, child.children[2]))
    return out


def exported_definitions(env: Mapping[str, Sequence[Definition]], src: bytes,
                         all_exported: bool) -> list[tuple[str, Definition]]:
    """The variables an earlier `export NAME=...` (or `set -a`: `all_exported`) hands every command after it, each
    assigned once, not in a branch: a script it calls, or a launch carried in it (`export CMD="python x.py a=b"`)."""
    out = []
    for name, definitions in env.items():
        if len(definitions) != 1:
            continue
        definition = definitions[0]
        if definition.kind != "scalar" or definition.span is None or definition.conditional:
            continue
        line_start = src.rfind(b"\n", 0, definition.span.start) + 1
        if all_exported or re.match(rb"[ \t]*export[ \t]", src[line_start : definition.span.start]):
            out.append((name, definition))
    return out


def carried_launch_words(alternatives: list[Items]) -> list[list[list[Field]]]:
    """The launch words of a carried value: one shell word, its alternatives each split into fields as bash
    splits an unquoted expansion of it."""
    out = []
    for alternative in alternatives:
        pieces: list[Piece | None] = [
            None if p is None else Piece(p.text, p.starts, p.ends, p.ctx, p.quote, p.via, p.dynamic, p.default_of,
                                         True) for p in alternative]
        fields = split_fields(pieces)
        for item in fields:
            item.word = 0
        out.append(fields)
    return [out]


def runs_variable(text: str, name: str) -> bool:
    """Whether a script's text runs `$name` as a command: `$NAME ...`, `"${NAME}"`, `eval $NAME`, `srun $NAME`."""
    option = r'-\S+(?:[ \t]+[^-$"\s]\S*)?[ \t]+'  # `--ntasks 2`, `--exclusive`
    pattern = (r'(?m)^[ \t]*(?:(?:eval|exec|srun|time|nohup|command)[ \t]+(?:' + option + r')*)*'
               r'"?\$(?:\{' + name + r'\}|' + name + r'\b)"?(?:[ \t;&|]|$)')
    return re.search(pattern, text) is not None

