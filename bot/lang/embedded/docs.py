"""The pieces of reading Markdown and reStructuredText code blocks: fences and rst directives, and a
shell view of the file with all else blanked out (bot.lang.embedded.blocks scans a doc with them).

A view keeps the file's length and its line breaks, so a byte offset in the view is the same offset
in the file. In blocks written as a console session only the `$ ` lines and their continuations count.
"""

from __future__ import annotations

import itertools
import re

from bot.context import Consoles
from bot.lang.shell.launchers import RUNNERS, WRAPPERS

# ---- masking ----------------------------------------------------------------------------

_BLANK = bytes(b if b in (10, 13) else 32 for b in range(256))


def blank(data: bytes) -> bytearray:
    """The file with every byte but line breaks turned into a space."""
    return bytearray(data.translate(_BLANK))


def reveal(view: bytearray, data: bytes, start: int, end: int) -> None:
    view[start:end] = data[start:end]


PROMPT = re.compile(rb"[ \t]*\$ ")
CONTINUATION_PROMPT = re.compile(rb"[ \t]*> ")
SHELL_LANGUAGES = {"bash", "sh", "shell", "zsh", "console", "shell-session", "bash-session", "shellsession"}
PROMPT_LANGUAGES = {"console", "shell-session", "bash-session", "shellsession"}


def _lines(data: bytes, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each line in data[start:end], the end before its line break."""
    stop = len(data) if end is None else end
    out = []
    pos = start
    while pos < stop:
        nl = data.find(b"\n", pos, stop)
        line_end = stop if nl < 0 else nl
        out.append((pos, line_end - 1 if line_end > pos and data[line_end - 1] == 13 else line_end))
        pos = line_end + 1
    return out


def reveal_block(view: bytearray, data: bytes, lines: list[tuple[int, int]], prompts: bool) -> None:
    """Show a code block's lines; where a line starts with a `$ ` prompt, only those lines and their
    continuations, minus the `$ ` (a session's other lines are output). A session block without a
    prompt holds commands alone (`prompts` says it is a session block, which changes nothing then)."""
    has_prompt = any(PROMPT.match(data, s) for s, _ in lines)
    continued = False
    for start, end in lines:
        if has_prompt and continued and CONTINUATION_PROMPT.match(data, start):
            reveal(view, data, CONTINUATION_PROMPT.match(data, start).end(), end)  # type: ignore[union-attr]
        elif not has_prompt or continued:
            reveal(view, data, start, end)
        else:
            match = PROMPT.match(data, start)
            if match is None or match.end() > end + 1:
                continue
            reveal(view, data, match.end(), end)
        continued = end > start and data[end - 1] == ord("\\")


# ---- Markdown ---------------------------------------------------------------------------

FENCE = re.compile(rb"^([ \t]*)(`{3,}|~{3,})[ \t]*(\{[^}]*\}|[^\s`{]*)")


def _fence_language(info: str) -> str:
    """`bash`, `{.bash}`, `{.bash .numberLines}`, `{bash}` -> bash."""
    if info.startswith("{"):
        words = info.strip("{}").split()
        classes = [w[1:] for w in words if w.startswith(".")]
        info = classes[0] if classes else (words[0] if words and "=" not in words[0] else "")
    return info.lower()


def bare_launch(data: bytes, lines: list[tuple[int, int]], consoles: Consoles) -> bool:
    """A launch (`python3 -m ...`, `torchrun ...`): the first line one, every other line continues a
    command, starts one or is a comment."""
    body = [data[s:e] for s, e in lines if data[s:e].strip()]
    shellish = Shellish(consoles)
    if not body or not shellish.match(body[0]):
        return False
    for before, line in itertools.pairwise(body):
        if not (before.rstrip().endswith(b"\\") or shellish.match(line) or line.lstrip().startswith(b"#")):
            return False
    return True


# ---- reStructuredText -------------------------------------------------------------------

DIRECTIVE = re.compile(rb"^([ \t]*)\.\.[ \t]+(?:code-block|code|sourcecode)::[ \t]*([\w+-]*)[ \t]*$")
HIGHLIGHT = re.compile(rb"^[ \t]*\.\.[ \t]+highlight::[ \t]*([\w+-]+)")
LITERAL_END = re.compile(rb"::[ \t]*$")
_COMMANDS = sorted({"python", "python3", "torchrun", "bash", "sh", "ray", "export", "set", "cd", "pip", "pip3",
                    "sbatch", *RUNNERS, *WRAPPERS, "env"}, key=len, reverse=True)
_SHELLISH = re.compile(rb"[ \t]*(?:\$ )?(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*"
                       rb"(?:(?:" + b"|".join(re.escape(c.encode()) for c in _COMMANDS) + rb")"
                       rb"(?=[ \t]*$|[ \t]+[^\s=(])"  # not Python (`env = make()`, `time.sleep(1)`)
                       rb"|\.\.?/[\w./-]+\.py(?=[ \t\r\n]|$))")  # `./train.py`: a file listing has no `./`
_FIRST_WORD = re.compile(rb"[ \t]*(?:\$ )?(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*([\w.-]+)")


class Shellish:
    """A line that starts a command (`python3 ...`, `nohup ...`, `./train.py ...`, a console script of the
    repository), after a `$ ` prompt and `NAME=value` assignments."""

    def __init__(self, consoles: Consoles) -> None:
        self.consoles = consoles

    def match(self, data: bytes, pos: int = 0) -> bool:
        if _SHELLISH.match(data, pos):
            return True
        if not self.consoles:
            return False
        first = _FIRST_WORD.match(data, pos)
        return first is not None and first.group(1).decode("utf-8", "replace") in self.consoles


def _indent(data: bytes, start: int, end: int) -> int:
    line = data[start:end]
    return len(line) - len(line.lstrip(b" \t"))


def _is_comment(line: bytes) -> bool:
    body = line.strip()
    if body == b"..":
        return True
    return body.startswith(b".. ") and b"::" not in body and body[3:4] not in (b"_", b"|", b"[")


def _skip_indented(data: bytes, lines: list[tuple[int, int]], i: int, base: int) -> int:
    """The index of the first line after the block indented deeper than `base`."""
    while i < len(lines):
        s, e = lines[i]
        if data[s:e].strip() and _indent(data, s, e) <= base:
            break
        i += 1
    return i
