"""Counts and wording shared by the formats meant for people."""

from __future__ import annotations

from bot.model import Report


def plural(count: int, noun: str, nouns: str = "") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"


def files_changed(report: Report) -> int:
    return sum(1 for c in report.changes if c.before != c.after)


def summary_line(report: Report) -> str:
    """E.g. `scanned 16 files (12 parsed, 14 launches): 25 findings, 20 fixable, 5 manual; 11 files would change`."""
    fixable = "fixed" if report.written else "fixable"
    change = "changed" if report.written else "would change"
    line = (
        f"scanned {plural(report.files_scanned, 'file')} "
        f"({report.files_parsed} parsed, {plural(report.launches, 'launch', 'launches')}): "
        f"{plural(len(report.findings), 'finding')}, {report.fixable} {fixable}, {report.manual} manual; "
        f"{plural(files_changed(report), 'file')} {change}"
    )
    notes = sum(1 for f in report.findings if f.is_note)
    if notes:
        line += f"; {notes} of the manual are notes (they never fail --check)"
    if report.errors:
        line += f"; {plural(len(report.errors), 'file')} not checked (errors)"
    return line


def kinds_line(report: Report) -> str:
    """E.g. `by kind: shell 12 files (20 findings), markdown 3 files (2 findings)`; empty for shell only."""
    counts = report.kind_counts()
    shown = {k: c for k, c in counts.items() if c["parsed"] or c["findings"]}
    if set(shown) <= {"shell"}:
        return ""
    return "by kind: " + ", ".join(
        f"{kind} {plural(c['files'], 'file')} ({plural(c['findings'], 'finding')})" for kind, c in shown.items())
