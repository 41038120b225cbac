"""Unified diffs that `git apply` accepts, built on bytes so CRLF and odd encodings survive.

difflib's own unified_diff cannot mark a missing final newline, and on text it would lose the
difference between `\\r\\n` and `\\n`; hence this small formatter over SequenceMatcher opcodes.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from bot.model import FileChange, Report

CONTEXT = 3
NO_NEWLINE = b"\\ No newline at end of file\n"


def render(report: Report) -> str:
    """Every change as one patch, ordered by path; empty when nothing changes."""
    return "".join(unified_diff(c) for c in sorted(report.changes, key=lambda c: c.path))


def unified_diff(change: FileChange) -> str:
    """The patch for one file as text; undecodable bytes ride along as surrogate escapes.

    Encode the result with errors="surrogateescape" to get the exact bytes back.
    """
    return unified_diff_bytes(change).decode("utf-8", errors="surrogateescape")


def unified_diff_bytes(change: FileChange) -> bytes:
    if change.before == change.after:
        return b""
    old, new = split_lines(change.before), split_lines(change.after)
    out = [_header(change.path)]
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        out.append(_hunk_header(group))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_lines(b" ", old[i1:i2]))
                continue
            out.extend(_lines(b"-", old[i1:i2]))
            out.extend(_lines(b"+", new[j1:j2]))
    return b"".join(out)


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


def quote_path(path: str) -> str:
    """Quote a patch path the way git does when it holds quotes, backslashes or control characters."""
    if not any(ch in _ESCAPES or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path):
        return path
    body = "".join(_ESCAPES.get(ch) or (f"\\{ord(ch):03o}" if ord(ch) < 0x20 or ord(ch) == 0x7F else ch)
                   for ch in path)
    return f'"{body}"'
