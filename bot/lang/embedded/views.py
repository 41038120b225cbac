"""Shell embedded in other files, as text the shell analyser reads, with offsets back to the file.

Markdown, reStructuredText and workflow views are the host file with everything that is not
shell blanked out (newlines kept), so every byte offset is the same in the view and the file and
an edit planned on the view applies to the file unchanged. A notebook's cell sources are JSON
strings, so its view maps each decoded character back to the escape it came from, and text an
edit inserts is written back as JSON in the notebook's own layout (one string per line).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from bot.lang.embedded.json_spans import JArray, JObject, JString, read_json
from bot.lang.shell.launches import line_column
from bot.model import Edit, Finding


@dataclass
class ShellView:
    """Shell text to analyse; `host_at[i]` is the file offset of view byte i (None: the same)."""

    text: bytes
    host_at: list[int] | None = None
    encoders: list[tuple[int, int, str | None]] = field(default_factory=list)  # notebook strings, separators
    names: dict[str, str] = field(default_factory=dict)  # placeholder variable -> what the file says

    def host(self, pos: int) -> int:
        return pos if self.host_at is None else self.host_at[pos]

    def encode(self, host_pos: int, text: str) -> str:
        """Inserted text as it must be written at `host_pos` of the file."""
        for start, end, separator in self.encoders:
            if start <= host_pos <= end:
                line_break = "\\n" if separator is None else "\\n\"," + separator + "\""
                return "".join(line_break if ch == "\n" else json.dumps(ch, ensure_ascii=False)[1:-1]
                               for ch in text)
        return text

    def to_host(self, finding: Finding, host: bytes, lines_in_message: bool = True) -> Finding:
        """The finding in the file's terms; `lines_in_message`: "line N" in its message are view lines."""
        for name, original in self.names.items():
            finding.message = finding.message.replace(name, original)
        if self.host_at is None:
            return finding
        finding.line, finding.column = line_column(host, self.host(self.offset_of(finding.line, finding.column)))
        finding.edits = [Edit(e.path, type(e.span)(self.host(e.span.start), self.host(e.span.end)),
                              self.encode(self.host(e.span.start), e.text), e.rule) for e in finding.edits]
        if finding.edits:
            finding.fix_site = (finding.path, line_column(host, finding.edits[0].span.start)[0])
        if lines_in_message:
            finding.message = _LINE_NUMBER.sub(lambda m: m.group(1) + self.host_lines(m.group(2), host),
                                               finding.message)
        return finding

    def offset_of(self, line: int, column: int) -> int:
        start = 0
        for _ in range(line - 1):
            start = self.text.index(b"\n", start) + 1
        end = self.text.find(b"\n", start)
        row = self.text[start : end if end >= 0 else len(self.text)].decode("utf-8", "replace")
        return start + len(row[: column - 1].encode("utf-8"))

    def host_lines(self, numbers: str, host: bytes) -> str:
        if any(int(n) > self.text.count(b"\n") + 1 for n in numbers.split(", ")):
            return numbers
        return ", ".join(str(line_column(host, self.host(self.offset_of(int(n), 1)))[0])
                         for n in numbers.split(", "))


_LINE_NUMBER = re.compile(r"(\blines? )(\d+(?:, \d+)*)")


# ---- masking ----------------------------------------------------------------------------

def blank(data: bytes) -> bytearray:
    """The file with every byte but line breaks turned into a space."""
    return bytearray(b if b in (10, 13) else 32 for b in data)


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
    """Show a code block's lines; with prompts only `$ ` lines and their continuations, minus the `$ `."""
    has_prompt = prompts or any(PROMPT.match(data, s) for s, _ in lines)
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


def markdown_views(data: bytes) -> list[ShellView]:
    view = blank(data)
    lines = _lines(data)
    found = False
    i = 0
    while i < len(lines):
        match = FENCE.match(data[lines[i][0] : lines[i][1]])
        i += 1
        if match is None:
            continue
        fence = match.group(2)
        language = _fence_language(match.group(3).decode("utf-8", "replace"))
        body: list[tuple[int, int]] = []
        while i < len(lines):
            text = data[lines[i][0] : lines[i][1]].strip()
            i += 1
            if text.startswith(fence[:1] * len(fence)) and not text.strip(fence[:1]):
                break
            body.append(lines[i - 1])
        if language in SHELL_LANGUAGES:
            found = True
            reveal_block(view, data, body, language in PROMPT_LANGUAGES)
    return [ShellView(bytes(view))] if found else []


# ---- reStructuredText -------------------------------------------------------------------

DIRECTIVE = re.compile(rb"^([ \t]*)\.\.[ \t]+(?:code-block|code|sourcecode)::[ \t]*([\w+-]*)[ \t]*$")
HIGHLIGHT = re.compile(rb"^[ \t]*\.\.[ \t]+highlight::[ \t]*([\w+-]+)")
LITERAL_END = re.compile(rb"::[ \t]*$")
SHELLISH = re.compile(rb"[ \t]*(?:\$ )?(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*"
                      rb"(?:python3?|torchrun|bash|sh|ray|deepspeed|accelerate|export|set|cd|pip3?|srun|sbatch)\b")


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


def rst_views(data: bytes) -> list[ShellView]:
    view = blank(data)
    lines = _lines(data)
    default_language = ""
    found = False
    i = 0
    while i < len(lines):
        start, end = lines[i]
        text = data[start:end]
        i += 1
        highlight = HIGHLIGHT.match(text)
        if highlight:
            default_language = highlight.group(1).decode().lower()
            continue
        directive = DIRECTIVE.match(text)
        if directive is None and _is_comment(text):
            i = _skip_indented(data, lines, i, _indent(data, start, end))  # a comment's body is not text
            continue
        if directive is None and text.lstrip().startswith(b".."):
            continue  # another directive: its body may hold code blocks
        literal = directive is None and LITERAL_END.search(text)
        if directive is None and not literal:
            continue
        base = _indent(data, start, end)
        while directive and i < len(lines) and data[lines[i][0] : lines[i][1]].strip().startswith(b":"):
            i += 1  # directive options
        body: list[tuple[int, int]] = []
        while i < len(lines):
            s, e = lines[i]
            if data[s:e].strip() and _indent(data, s, e) <= base:
                break
            body.append(lines[i])
            i += 1
        language = (directive.group(2).decode().lower() if directive else "") or default_language
        is_shell = language in SHELL_LANGUAGES or (
            not directive and not language and any(SHELLISH.match(data, s) for s, _ in body))
        if is_shell and body:
            found = True
            reveal_block(view, data, body, language in PROMPT_LANGUAGES)
    return [ShellView(bytes(view))] if found else []


# ---- notebooks --------------------------------------------------------------------------

CELL_MAGIC = re.compile(r"^%%(?:bash|sh|script[ \t]+(?:ba)?sh)\b")


class NotebookError(ValueError):
    pass


def notebook_views(data: bytes) -> list[ShellView]:
    try:
        root = read_json(data)
    except ValueError as exc:
        raise NotebookError(f"not a notebook: {exc}") from None
    cells = root.members.get("cells") if isinstance(root, JObject) else None
    if not isinstance(cells, JArray):
        return []
    text = bytearray()
    host_at: list[int] = []
    encoders: list[tuple[int, int, str | None]] = []
    found = False
    for cell in cells.items:
        if not isinstance(cell, JObject):
            continue
        kind = cell.members.get("cell_type")
        source = cell.members.get("source")
        if not isinstance(kind, JString) or kind.text != "code":
            continue
        items = source.items if isinstance(source, JArray) else [source]
        strings = [s for s in items if isinstance(s, JString)]
        if not strings or len(strings) != len(items):
            continue
        chars = [(ch, span) for s in strings for ch, span in zip(s.text, s.chars)]
        shown = _shell_chars("".join(ch for ch, _ in chars))
        if not any(shown):
            continue
        found = True
        for s in strings:
            separator = _array_separator(source, data) if isinstance(source, JArray) else None
            encoders.append((s.content_start, s.content_end, separator))
        for (ch, (start, _)), show in zip(chars, shown):
            encoded = (ch if show or ch == "\n" else " ").encode("utf-8")
            text += encoded
            host_at.extend([start] * len(encoded))
        text += b"\n"
        host_at.append(strings[-1].content_end)
    if not found:
        return []
    host_at.append(host_at[-1])
    view = ShellView(bytes(text), host_at, encoders)
    return [view]


def _shell_chars(source: str) -> list[bool]:
    """For each character of a cell's source: is it shell (after `!`, or in a %%bash cell)?"""
    shown = [False] * len(source)
    lines = source.splitlines(keepends=True)
    if lines and CELL_MAGIC.match(lines[0]):
        first = len(lines[0])
        return [False] * first + [True] * (len(source) - first)
    pos = 0
    continued = False
    quote: str | None = None  # inside a Python triple-quoted string: `!` there is text, not a shell escape
    for line in lines:
        body = line.rstrip("\r\n")
        stripped = body.lstrip()
        if quote is not None or (not continued and not stripped.startswith("!")):
            quote = _after_triple_quotes(body, quote)
            pos += len(line)
            continue
        if continued:
            shown[pos : pos + len(body)] = [True] * len(body)
        elif stripped.startswith("!") and not stripped.startswith("!="):
            bang = pos + len(body) - len(stripped)
            shown[bang + 1 : pos + len(body)] = [True] * (len(body) - (bang + 1 - pos))
        continued = (continued or stripped.startswith("!")) and body.endswith("\\")
        pos += len(line)
    return shown


def _after_triple_quotes(line: str, quote: str | None) -> str | None:
    """Whether a triple-quoted string is still open after this line of Python (an approximation)."""
    i = 0
    while i < len(line):
        if quote is None and line[i] == "#":
            return None
        for mark in ('"""', "'''"):
            if line.startswith(mark, i) and quote in (None, mark):
                quote = None if quote == mark else mark
                i += 3
                break
        else:
            i += 1
    return quote


def _array_separator(array: JArray, data: bytes) -> str:
    if len(array.items) >= 2:
        return data[array.items[0].end + 1 : array.items[1].start].decode("utf-8")
    if array.items:
        return data[array.start + 1 : array.items[0].start].decode("utf-8")
    return "\n "


def notebook_problem(before: bytes, after: bytes) -> str | None:
    """None when only code cells' sources differ and the notebook still reads as JSON."""
    try:
        old, new = json.loads(before), json.loads(after)
    except ValueError as exc:
        return f"the edited notebook is not valid JSON ({exc})"
    if not isinstance(old, dict) or not isinstance(new, dict):
        return "the notebook is not a JSON object"
    old_cells, new_cells = old.get("cells", []), new.get("cells", [])
    if len(old_cells) != len(new_cells) or {k: v for k, v in old.items() if k != "cells"} != {
            k: v for k, v in new.items() if k != "cells"}:
        return "the edit changed the notebook outside cell sources"
    for a, b in zip(old_cells, new_cells):
        if {k: v for k, v in a.items() if k != "source"} != {k: v for k, v in b.items() if k != "source"}:
            return "the edit changed the notebook outside cell sources"
    return None
