"""Makefiles: each recipe line, as the shell `make` starts for it gets it, as a view of the file.

A recipe line starts with a tab below a rule (`train:`), or follows `;` on the rule's own line, and a `\\`
at its end continues it onto the next line, whatever that line starts with. Each such line runs in a shell
of its own (all of a rule's lines in one with `.ONESHELL:`), so each is a view of its own; everything else
is blanked, line breaks kept. A conditional (`ifeq`, `else`, `endif`) or a comment between a rule's recipe
lines does not end the rule.

Make reads the line before the shell does: `$$` is one `$` for the shell (the view holds one, mapped back
to the pair, and an edit writes each `$` as `$$`); the `@`, `-` or `+` that starts a recipe line is make's.
Make's variables and functions (`$(NAME)`, `${NAME}`, `$(shell ...)`, `$@`) are values known only at run
time (in single quotes too, where the view closes the quotes around them): a variable may be set again
further down, per target, on make's command line or in the environment, so no value is read from its
assignment for a recipe's use of it. One exception, to see the launch at all: a variable every assignment
of which names the same interpreter or launcher (`PYTHON ?= python3`) is that word where it starts a
command. An assignment whose value is itself a launch (`INTEG = python3 -m dora run a=1`, used as
`$(INTEG)` in recipes) is read as one where it is written, as a recipe line is.
"""

from __future__ import annotations

import re

from bot.lang.embedded.views import ShellView

_RULE = re.compile(rb"^(?![ \t])(?P<targets>[^:#=\n]+?)[ \t]*::?(?![=:])(?P<rest>[^\n]*)$", re.MULTILINE)
_ASSIGNMENT = re.compile(rb"^[ \t]*(?:export[ \t]+|override[ \t]+)?(?P<name>[A-Za-z_.][\w.\-]*)[ \t]*"
                         rb"(?P<op>[:+?!]|::)?=[ \t]*(?P<value>[^\r\n]*)")
_DEFINE = re.compile(rb"^[ \t]*(?:export[ \t]+|override[ \t]+)?define\b")
_ENDEF = re.compile(rb"^[ \t]*endef\b")
_CONDITIONAL = re.compile(rb"^[ \t]*(?:ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_ONESHELL = re.compile(rb"^\.ONESHELL[ \t]*:", re.MULTILINE)
_LAUNCHER = re.compile(rb"^(?:[\w./-]*/)?(?:python[\d.]*|torchrun|deepspeed|accelerate|srun)$")
_MAKE_PREFIX = b"@-+"
_MAKE_COMMENT = re.compile(rb"(?<!\\)#")
# an assignment's value that is a launch: environment words, then a launcher (`INTEG = X=1 python3 -m m a=1`)
_LAUNCH_VALUE = re.compile(rb"(?:[A-Za-z_]\w*=\S*[ \t]+)*(?:[\w./-]*/)?(?:python[\d.]*|torchrun|deepspeed|accelerate"
                           rb"|srun|dora|uv)(?=[ \t])")


Part = tuple[int, int, bytes, list[int]]  # host start and end of a recipe line's text, its view bytes, their hosts


def makefile_views(data: bytes) -> list[ShellView]:
    """One view a recipe line (a rule's recipe with `.ONESHELL:`); [] when the file has none."""
    launchers = _launcher_variables(data)
    names: dict[str, str] = {}  # the view's stand-ins for make's references -> how a report names them
    one_shell = _ONESHELL.search(data) is not None
    views: list[list[Part]] = []
    held: set[int] = set()  # the views of assignments (their launches are held in the variable)
    current: list[Part] | None = None
    in_rule = in_define = continued = False
    pos = 0
    for line in data.splitlines(keepends=True):
        body = line.rstrip(b"\r\n")
        start, recipe_from = pos, None
        pos += len(line)
        if in_define:
            in_define = not _ENDEF.match(body)
        elif continued or (in_rule and body.startswith(b"\t")):
            recipe_from = 1 if body.startswith(b"\t") and not continued else 0
        elif _DEFINE.match(body):
            in_define, in_rule = True, False
        elif not body.strip() or body.lstrip().startswith(b"#") or _CONDITIONAL.match(body):
            pass  # blank lines, comments and conditionals do not end a rule's recipe
        elif (rule := _RULE.match(body)) is not None and not _ASSIGNMENT.match(body):
            in_rule = True
            current = None
            rest = rule.group("rest").split(b"#", 1)[0]
            if b";" in rest:  # `target: deps ; command`
                recipe_from = rule.start("rest") + rest.index(b";") + 1
        else:
            in_rule = False  # a variable assignment, an include, a directive
            assigned = _ASSIGNMENT.match(body)
            if assigned is not None and _LAUNCH_VALUE.match(body, assigned.start("value")):
                recipe_from, current = assigned.start("value"), None  # `RUN = python3 train.py a=1`: its own view
                held.add(len(views))
        if recipe_from is None:
            continued = False
            continue
        if current is None or (not continued and not one_shell):
            current = []
            views.append(current)
        current.append(_recipe(line, start, recipe_from, not continued and in_rule, launchers, names,
                               len(views) - 1 in held))
        continued = body.endswith(b"\\") and not body.endswith(b"\\\\")
    return [_view(data, parts, names, i in held) for i, parts in enumerate(views)]


def _view(data: bytes, parts: list[Part], names: dict[str, str], held: bool) -> ShellView:
    """The file blanked (line breaks kept) with the recipe's parts in their places."""
    view = bytearray()
    host_at: list[int] = []
    pos = 0
    for start, end, piece, hosts in parts:
        view += bytes(b if b in b"\r\n" else 0x20 for b in data[pos:start])
        host_at.extend(range(pos, start))
        view += piece
        host_at.extend(hosts)
        pos = end
    view += bytes(b if b in b"\r\n" else 0x20 for b in data[pos:])
    host_at.extend(range(pos, len(data)))
    host_at.append(len(data))
    return ShellView(bytes(view), host_at, names=names, dollars=True, held=held)


def _recipe(line: bytes, start: int, begin: int, first: bool, launchers: dict[bytes, bytes],
            names: dict[str, str], assigned: bool = False) -> Part:
    """The line from `begin` on as the shell reads it: make's prefix blanked (where a recipe line starts),
    `$$` as one `$`, make's references as run-time values; in an assignment (`assigned`), up to make's own
    comment (an unescaped `#`), which make takes out of the value."""
    end = len(line.rstrip(b"\r\n"))
    if assigned:
        comment = _MAKE_COMMENT.search(line, begin, end)
        end = comment.start() if comment is not None else end
    piece = bytearray()
    hosts: list[int] = []
    offset = begin
    while first and offset < end and line[offset] in b" \t":
        piece.append(line[offset])
        hosts.append(start + offset)
        offset += 1
    while first and offset < end and line[offset] in _MAKE_PREFIX:  # `@python ...`: make's, echo off
        piece.append(0x20)
        hosts.append(start + offset)
        offset += 1
    _shell_text(piece, hosts, line[:end], start, offset, launchers, names)
    return start + begin, start + end, bytes(piece), hosts


def _shell_text(piece: bytearray, hosts: list[int], line: bytes, start: int, offset: int,
                launchers: dict[bytes, bytes], names: dict[str, str]) -> None:
    quote = 0  # the shell's quote at this point: 0, `'` or `"`
    while offset < len(line):
        byte = line[offset]
        if line[offset : offset + 2] == b"$$":
            piece.append(0x24)
            hosts.append(start + offset)
            offset += 2
            continue
        if byte == 0x24 and offset + 1 < len(line):
            end = _reference_end(line, offset)
            name = line[offset + 2 : end - 1] if end - offset > 3 else b""
            launcher = launchers.get(name) if quote == 0 and _command_start(piece) else None
            if launcher is not None:
                text = launcher
            else:
                variable = name if re.fullmatch(rb"[A-Za-z_][A-Za-z0-9_]*", name) else b""
                stand_in = f"MAKE_{variable.decode()}" if variable else f"MAKE_VALUE_{len(names)}"
                names.setdefault(stand_in, line[offset:end].decode("utf-8", "replace"))
                inner = b"${" + stand_in.encode() + b"}"
                text = b"'\"" + inner + b"\"'" if quote == 0x27 else inner
            piece += text
            hosts.extend(start + offset + min(i, end - offset - 1) for i in range(len(text)))
            offset = end
            continue
        if byte in (0x27, 0x22) and (quote in (0, byte)) and not _escaped(line, offset, quote):
            quote = 0 if quote else byte
        piece.append(byte)
        hosts.append(start + offset)
        offset += 1


def _reference_end(line: bytes, offset: int) -> int:
    """The end of make's reference at `offset` (`$(...)` or `${...}` with nested ones, or `$X`)."""
    opening = line[offset + 1 : offset + 2]
    if opening not in (b"(", b"{"):
        return offset + 2
    closing = b")" if opening == b"(" else b"}"
    depth, i = 0, offset + 1
    while i < len(line):
        if line[i : i + 1] == opening:
            depth += 1
        elif line[i : i + 1] == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(line)


def _escaped(line: bytes, offset: int, quote: int) -> bool:
    """Whether a quote character is escaped (outside single quotes, a `\\` before it)."""
    return quote != 0x27 and offset > 0 and line[offset - 1] == 0x5C


def _command_start(piece: bytearray) -> bool:
    """Whether what comes next starts a command: only blanks since the line's start or `;`, `&&`, `|`."""
    before = bytes(piece).rstrip(b" \t")
    return not before or before.endswith((b";", b"&&", b"||", b"|", b"(", b"`"))


def _launcher_variables(data: bytes) -> dict[bytes, bytes]:
    """Variables every assignment of which is the same interpreter or launcher word (`PYTHON ?= python3`)."""
    values: dict[bytes, set[bytes]] = {}
    for line in data.splitlines():
        if line.startswith(b"\t"):
            continue
        found = _ASSIGNMENT.match(line)
        if found is not None:
            value = found.group("value").split(b"#", 1)[0].strip()
            values.setdefault(found.group("name"), set()).add(value if found.group("op") != b"+" else b"")
    return {name: next(iter(found)) for name, found in values.items()
            if len(found) == 1 and _LAUNCHER.match(next(iter(found)))}
