"""Applying byte-span edits together, refusing conflicts, and verifying the result.

Insertions at one point stack in the order they were planned; two different edits whose spans
overlap are a conflict, and every finding involved becomes manual.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.lang.front import UNREADABLE
from bot.model import Edit, Finding, Span, Status


@dataclass(frozen=True)
class Conflict:
    first: Edit
    second: Edit


def unique_edits(findings: list[Finding]) -> list[Edit]:
    """Every planned edit once, in plan order (two launches sharing a site plan it twice)."""
    seen: set[tuple[int, int, str]] = set()
    out: list[Edit] = []
    for finding in findings:
        if finding.status is not Status.FIXABLE:
            continue
        for edit in finding.edits:
            ident = (edit.span.start, edit.span.end, edit.text)
            if ident not in seen:
                seen.add(ident)
                out.append(edit)
    return out


def _ordered(edits: list[Edit]) -> list[Edit]:
    """By position; insertions at one point keep their planned order."""
    return [e for _, e in sorted(enumerate(edits), key=lambda t: (t[1].span.start, t[1].span.end, t[0]))]


_REFERENCE = re.compile(r"\$\{[^{}]*\}")  # `${a.b}`, `${oc.select:a.b,1}`


def narrowed(data: bytes, edit: Edit) -> tuple[Edit, int | None]:
    """(the edit cut to what it changes, the file offset of the `${` it changes) where that lies inside one
    `${...}` of the value before and after, else (the edit, None): two rules renaming two keys that one value
    names (`${a}_${b}`) then edit apart, not the same bytes."""
    try:
        old = data[edit.span.start : edit.span.end].decode("utf-8")
    except UnicodeDecodeError:
        return edit, None
    new = edit.text
    if old == new or "${" not in old or "${" not in new:
        return edit, None
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    where = _reference_at(old, prefix, len(old) - suffix)
    if where is None or _reference_at(new, prefix, len(new) - suffix) is None:
        return edit, None
    start = edit.span.start + len(old[:prefix].encode("utf-8"))
    end = edit.span.end - len(old[len(old) - suffix :].encode("utf-8"))
    reference = edit.span.start + len(old[:where].encode("utf-8"))
    return Edit(edit.path, Span(start, end), new[prefix : len(new) - suffix], edit.rule), reference


def _reference_at(text: str, start: int, end: int) -> int | None:
    """Where the `${...}` that holds characters [start, end) begins, if one does."""
    return next((m.start() for m in _REFERENCE.finditer(text) if m.start() + 2 <= start and end <= m.end() - 1),
                None)


def narrow_edits(data: bytes, findings: list[Finding]) -> None:
    """Each finding's edits narrowed (`narrowed`), except where two rules change the same `${...}`: those
    keep their whole value, so that they clash as they should (two renames of one key to two names)."""
    cut = [[narrowed(data, edit) for edit in finding.edits] for finding in findings]
    rules: dict[int, set[str]] = {}
    for pairs in cut:
        for edit, reference in pairs:
            if reference is not None:
                rules.setdefault(reference, set()).add(edit.rule)
    for finding, pairs in zip(findings, cut):
        finding.edits = [edit if reference is None or len(rules[reference]) == 1 else original
                         for original, (edit, reference) in zip(finding.edits, pairs)]


def find_conflicts(edits: list[Edit]) -> list[Conflict]:
    """Pairs of edits that clash, in the order of the list. Edits are swept by position: one clashes
    only with those starting at or before its end (touching counts)."""
    order = sorted(range(len(edits)), key=lambda i: (edits[i].span.start, edits[i].span.end))
    pairs: list[tuple[int, int]] = []
    for k, i in enumerate(order):
        for j in order[k + 1 :]:
            if edits[j].span.start > edits[i].span.end:
                break
            if _clash(edits[i], edits[j]):
                pairs.append((min(i, j), max(i, j)))
    return [Conflict(edits[i], edits[j]) for i, j in sorted(pairs)]


def overlapping(ours: list[Edit], theirs: list[Edit]) -> bool:
    """Whether one of `ours` is one of `theirs` or clashes with it (one change touches both)."""
    return any((a.span, a.text) == (b.span, b.text) or _clash(a, b) for a in ours for b in theirs)


def _clash(a: Edit, b: Edit) -> bool:
    if a.span.start == a.span.end or b.span.start == b.span.end:
        # an insertion clashes only with a replacement that covers its point strictly inside
        point, other = (a, b) if a.span.start == a.span.end else (b, a)
        if other.span.start == other.span.end:
            return False
        if other.text == "":  # a deletion: an insertion at its edge is anchored on what it deletes
            return other.span.start <= point.span.start <= other.span.end
        return other.span.start < point.span.start < other.span.end
    return a.span.overlaps(b.span)


def apply_edits(src: bytes, edits: list[Edit]) -> bytes:
    out: list[bytes] = []
    pos = 0
    for edit in _ordered(edits):
        if edit.span.start < pos:
            raise ValueError(f"overlapping edits at byte {edit.span.start}")
        out.append(src[pos : edit.span.start])
        out.append(edit.text.encode("utf-8"))
        pos = edit.span.end
    out.append(src[pos:])
    return b"".join(out)


def outside_unchanged(before: bytes, after: bytes, edits: list[Edit]) -> bool:
    """Check independently of apply_edits that only the edited spans differ."""
    pos_before = pos_after = 0
    for edit in _ordered(edits):
        keep = edit.span.start - pos_before
        if before[pos_before : edit.span.start] != after[pos_after : pos_after + keep]:
            return False
        pos_after += keep
        new = edit.text.encode("utf-8")
        if after[pos_after : pos_after + len(new)] != new:
            return False
        pos_after += len(new)
        pos_before = edit.span.end
    return before[pos_before:] == after[pos_after:]


@dataclass
class Verification:
    ok: bool
    reason: str = ""


def verify(
    before: bytes,
    after: bytes,
    edits: list[Edit],
    count_errors: Callable[[bytes], int],
    rescan: Callable[[bytes], list[Finding]],
) -> Verification:
    """The four checks an edited file passes before it is written."""
    if not outside_unchanged(before, after, edits):
        return Verification(False, "bytes outside the edited spans changed")
    if b"\r\n" in before and after.count(b"\n") != after.count(b"\r\n") and before.count(b"\n") == before.count(
        b"\r\n"
    ):
        return Verification(False, "the edit mixed line endings into a CRLF file")
    errors_before, errors_after = count_errors(before), count_errors(after)
    if errors_after > errors_before:
        if errors_after >= UNREADABLE:
            return Verification(False, "the edited file no longer reads as its kind (a YAML duplicate key, say)")
        return Verification(False, f"the edited file has new parse errors ({errors_before} -> {errors_after})")
    again = [f for f in rescan(after) if f.status is Status.FIXABLE]
    if again:
        first = again[0]
        return Verification(
            False,
            f"a second run would change it again ({first.rule} at line {first.line}: {first.message})",
        )
    return Verification(True)
