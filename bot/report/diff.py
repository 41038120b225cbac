"""Unified diffs that `git apply` accepts, built on bytes so CRLF and odd encodings survive.

difflib's own unified_diff cannot mark a missing final newline, and on text it would lose the
difference between `\\r\\n` and `\\n`; hence this small formatter over SequenceMatcher opcodes.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from bot.model import WRITING, FileChange, Report

CONTEXT = 3
NO_NEWLINE = b"\\ No newline at end of file\n"


def render(report: Report) -> str:
    """Every change as one patch, ordered by path; empty when nothing changes.

    After a --write that stopped part way: the patch of what it wrote, then a line `# PATH: not written: ...`
    per file it left as it was (text after the last hunk, which `git apply` and `patch` pass over).
    """
    patch = "".join(unified_diff(c) for c in sorted(report.written_changes(), key=lambda c: c.path))
    return patch + "".join(f"# {e.path}: {' '.join(e.reason.splitlines())}\n"
                           for e in report.errors if e.stage == WRITING)


def unified_diff(change: FileChange) -> str:
    """The patch for one file as text; undecodable bytes ride along as surrogate escapes.

    Encode the result with errors="surrogateescape" to get the exact bytes back.
    """
    return unified_diff_bytes(change).decode("utf-8", errors="surrogateescape")


def unified_diff_bytes(change: FileChange) -> bytes:
    """The patch, made once per change (the result cache may bring it along)."""
    if change.patch is None:
        change.patch = _patch(change)
    return change.patch


def _patch(change: FileChange) -> bytes:
    if change.before == change.after:
        return b""
    old, new = split_lines(change.before), split_lines(change.after)
    out = [_header(change.path)]
    for group in _groups(_opcodes(old, new), CONTEXT):
        out.append(_hunk_header(group))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_lines(b" ", old[i1:i2]))
                continue
            out.extend(_lines(b"-", old[i1:i2]))
            out.extend(_lines(b"+", new[j1:j2]))
    return b"".join(out)


Opcode = tuple[str, int, int, int, int]


def _opcodes(old: list[bytes], new: list[bytes]) -> list[Opcode]:
    """difflib's opcodes, with the common head and tail taken off first (edits are usually a few lines)."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    middle = SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
    ops.extend((tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle.get_opcodes())
    if tail:
        ops.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    merged: list[Opcode] = []
    for op in ops:
        if merged and op[0] == "equal" == merged[-1][0]:
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        else:
            merged.append(op)
    return merged


def _groups(ops: list[Opcode], context: int) -> list[list[Opcode]]:
    """Hunks: runs of changes with up to `context` equal lines around them (as difflib groups them)."""
    if not any(op[0] != "equal" for op in ops):
        return []
    ops = list(ops)
    if ops[0][0] == "equal":
        _, i1, i2, j1, j2 = ops[0]
        ops[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if ops[-1][0] == "equal":
        _, i1, i2, j1, j2 = ops[-1]
        ops[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            groups.append(group)
            group = []
            i1, j1 = i2 - context, j2 - context
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their endings, split on b"\\n" only.

    bytes.splitlines would also split on a lone b"\\r", which git treats as part of the line.
    """
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _header(path: str) -> bytes:
    a, b = quote_path("a/" + path), quote_path("b/" + path)
    return f"diff --git {a} {b}\n--- {a}\n+++ {b}\n".encode("utf-8", errors="surrogateescape")


def _hunk_header(group: list[tuple[str, int, int, int, int]]) -> bytes:
    first, last = group[0], group[-1]
    old = _range(first[1], last[2])
    new = _range(first[3], last[4])
    return f"@@ -{old} +{new} @@\n".encode()


def _range(start: int, stop: int) -> str:
    """Hunk range in unified-diff form: an empty range names the line before it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _lines(mark: bytes, lines: list[bytes]) -> list[bytes]:
    out: list[bytes] = []
    for line in lines:
        if line.endswith(b"\n"):
            out.append(mark + line)
        else:
            out.append(mark + line + b"\n" + NO_NEWLINE)
    return out


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


_NEEDS_QUOTES = re.compile(r'["\\\x00-\x1f\x7f]')


def quote_path(path: str) -> str:
    """Quote a patch path the way git does when it holds quotes, backslashes or control characters."""
    if not _NEEDS_QUOTES.search(path):
        return path
    body = "".join(_ESCAPES.get(ch) or (f"\\{ord(ch):03o}" if ord(ch) < 0x20 or ord(ch) == 0x7F else ch)
                   for ch in path)
    return f'"{body}"'
