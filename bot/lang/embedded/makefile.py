"""Makefiles: each rule's recipe lines, the shell `make` runs them with, as one view of the file.

A recipe line starts with a tab below a rule (`train:`) or follows `;` on the rule's own line, and a
`\\` at its end continues it onto the next line, whatever that line starts with. Everything else (rule
lines, variable assignments, `define` blocks, conditionals, comments between rules) is blanked, line
breaks kept. Make reads the line before the shell does: `$$` is one `$` for the shell (the view holds one,
mapped back to the pair, and an edit writes each `$` as `$$`); a leading `@`, `-` or `+` is make's, not
the command's. Make's variables: `NAME = value` (also `:=`, `?=`, `export`) is read as the shell
assignment `NAME="value"`, whose value maps back to the file, and `$(NAME)` as `${NAME}`, so a launch
through `$(PYTHON) -m app` or with `$(ARGS)` reads what make substitutes and an edit of a value goes where
the Makefile sets it; make's functions (`$(shell ...)`) and automatic variables (`$@`) are values known
only at run time.
"""

from __future__ import annotations

import re

from bot.lang.embedded.views import ShellView

_RULE = re.compile(rb"^(?![ \t])(?P<targets>[^:#=\n]+?)[ \t]*::?(?![=:])(?P<rest>[^\n]*)$", re.MULTILINE)
_ASSIGNMENT = re.compile(rb"^[ \t]*(?:export[ \t]+|override[ \t]+)?[A-Za-z_.][\w.\-]*[ \t]*(?:[:+?!]|::)?=")
_DEFINE = re.compile(rb"^[ \t]*(?:export[ \t]+|override[ \t]+)?define\b")
_ENDEF = re.compile(rb"^[ \t]*endef\b")
_MAKE_PREFIX = b"@-+"
_SIMPLE = re.compile(rb"^(?P<lead>[ \t]*(?:export[ \t]+|override[ \t]+)?)(?P<name>[A-Za-z_][A-Za-z0-9_]*)[ \t]*"
                     rb"(?P<op>::=|:=|\?=|=)[ \t]*(?P<value>[^\"\\#\r\n`]*?)[ \t]*$")
_REFERENCE = re.compile(rb"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_AUTOMATIC = re.compile(rb"\$[@<^?*%]")


def makefile_views(data: bytes) -> list[ShellView]:
    """One view of every recipe line ([] when the file has none)."""
    lines = data.splitlines(keepends=True)
    text = bytearray()
    host_at: list[int] = []
    found = False
    in_rule = in_define = continued = False
    pos = 0
    for line in lines:
        body = line.rstrip(b"\r\n")
        start, recipe_from = pos, None
        pos += len(line)
        if in_define:
            in_define = not _ENDEF.match(body)
        elif continued or (in_rule and body.startswith(b"\t")):
            recipe_from = 1 if body.startswith(b"\t") and not continued else 0
        elif _DEFINE.match(body):
            in_define, in_rule = True, False
        elif not body.strip() or body.lstrip().startswith(b"#"):
            pass  # blank lines and comments do not end a rule's recipe
        elif (rule := _RULE.match(body)) is not None and not _ASSIGNMENT.match(body):
            in_rule = True
            semicolon = rule.group("rest").find(b";")
            if semicolon >= 0:  # `target: deps ; command`
                recipe_from = rule.start("rest") + semicolon + 1
        else:
            in_rule = False  # a variable assignment, a conditional, an include
        if recipe_from is None:
            simple = _SIMPLE.match(body) if not in_define and not continued else None
            if simple is not None and _ASSIGNMENT.match(body):
                _assignment(text, host_at, line, start, simple)
            else:
                _blank(text, host_at, line, start)
            continued = False
            continue
        found = True
        continued = body.endswith(b"\\") and not body.endswith(b"\\\\")
        _recipe(text, host_at, line, start, recipe_from)
    if not found:
        return []
    host_at.append(len(data))
    return [ShellView(bytes(text), host_at, dollars=True)]


def _assignment(text: bytearray, host_at: list[int], line: bytes, start: int, match: re.Match[bytes]) -> None:
    """`NAME = value` as `NAME="value"`, each byte of the value mapped to its place in the file."""
    _blank(text, host_at, line[: match.start("name")], start)
    for offset in range(match.start("name"), match.end("name")):
        text.append(line[offset])
        host_at.append(start + offset)
    text += b'="'
    host_at += [start + match.start("op"), start + match.start("value")]
    _shell_text(text, host_at, line[: match.end("value")], start, match.start("value"))
    text.append(0x22)
    host_at.append(start + match.end("value"))
    _blank(text, host_at, line[match.end("value") :], start + match.end("value"))


def _blank(text: bytearray, host_at: list[int], line: bytes, start: int) -> None:
    for offset, byte in enumerate(line):
        text.append(byte if byte in b"\r\n" else 0x20)
        host_at.append(start + offset)


def _recipe(text: bytearray, host_at: list[int], line: bytes, start: int, begin: int) -> None:
    """The line from `begin` on as the shell reads it: make's prefix blanked, `$$` as one `$`."""
    _blank(text, host_at, line[:begin], start)
    offset = begin
    while offset < len(line) and line[offset] in b" \t":
        text.append(line[offset])
        host_at.append(start + offset)
        offset += 1
    while offset < len(line) and line[offset] in _MAKE_PREFIX:  # `@python ...`: make's, echo off
        text.append(0x20)
        host_at.append(start + offset)
        offset += 1
    _shell_text(text, host_at, line, start, offset)


def _shell_text(text: bytearray, host_at: list[int], line: bytes, start: int, offset: int) -> None:
    """Make's text from `offset` on as the shell gets it: `$$` one `$`, `$(NAME)` as `${NAME}`, an
    automatic variable as the shell's `$_` (a value known only at run time)."""
    while offset < len(line):
        if line[offset : offset + 2] == b"$$":
            text.append(0x24)
            host_at.append(start + offset)
            offset += 2
            continue
        reference = _REFERENCE.match(line, offset)
        if reference is not None:
            text += b"${" + reference.group(1) + b"}"
            host_at.extend(range(start + offset, start + reference.end()))
            offset = reference.end()
            continue
        if _AUTOMATIC.match(line, offset):
            text += b"$_"
            host_at += [start + offset, start + offset + 1]
            offset += 2
            continue
        text.append(line[offset])
        host_at.append(start + offset)
        offset += 1
