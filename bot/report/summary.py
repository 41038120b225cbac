"""Counts and wording shared by the formats meant for people."""

from __future__ import annotations

from bot.model import BASELINE, INLINE, Report, SkipKind


def plural(count: int, noun: str, nouns: str = "") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"


def files_changed(report: Report) -> int:
    """The files the run changes (a dry run) or changed (a write: the files it wrote)."""
    return len(report.written_changes())


def changed_words(report: Report) -> str:
    """E.g. `11 files would change`, `2 files changed`, after a write that stopped `1 file changed, 2 not written`."""
    if not report.written:
        return f"{plural(files_changed(report), 'file')} would change"
    unwritten = len(report.unwritten())
    return f"{plural(files_changed(report), 'file')} changed" + (f", {unwritten} not written" if unwritten else "")


def unreadable(report: Report) -> int:
    return len({s.path for s in report.skipped if s.kind is SkipKind.UNREADABLE})


def quiet(report: Report) -> int:
    """Files read that hold nothing the enabled rules look for (or that no rule's `files` takes)."""
    failed = len({e.path for e in report.check_errors})
    return max(0, report.files_scanned - report.files_parsed - unreadable(report) - failed)


def reading_line(report: Report) -> str:
    """What was read, and why the rest was not parsed, e.g. `read 1123 files: 207 hold what the rules look
    for and were parsed (252 launches), 916 had nothing for them (python 621, markdown 100, ...), 0 errors`."""
    nothing = quiet(report)
    one = report.files_parsed == 1
    line = (f"read {plural(report.files_scanned, 'file')}: {report.files_parsed} {'holds' if one else 'hold'} "
            f"what the rules look for and {'was' if one else 'were'} parsed "
            f"({plural(report.launches, 'launch', 'launches')}), {nothing} had nothing for them")
    by_kind = {k: n for k, n in sorted(report.files_quiet.items(), key=lambda t: (-t[1], t[0])) if n}
    if nothing and sum(by_kind.values()) == nothing and len(by_kind) > 1:
        line += " (" + ", ".join(f"{kind} {n}" for kind, n in by_kind.items()) + ")"
    if unreadable(report):
        line += f", {unreadable(report)} unreadable (skipped)"
    return line + f", {plural(len(report.check_errors), 'error')}"


def findings_line(report: Report) -> str:
    """E.g. `25 findings, 20 fixable, 5 manual, 2 notes (never failing --check); 11 files would change; 3 findings
    silenced (2 inline, ...)`. Notes are counted apart, never among the findings, fixable or manual."""
    if not report.written:
        fixes = f"{report.fixable} fixable"
    else:  # a write that stopped part way fixed only some: the rest are still fixable
        left = report.fixable - report.fixed
        fixes = f"{report.fixed} fixed" + (f", {left} fixable (not written)" if left else "")
    line = f"{plural(len(report.problems), 'finding')}, {fixes}, {report.manual} manual"
    if report.notes:  # told apart: a note never fails --check and needs no one
        line += f", {plural(report.notes, 'note')} (never failing --check)"
    line += f"; {changed_words(report)}"
    if report.silenced:
        line += f"; {silenced_words(report)}"
    if report.check_errors:
        line += f"; {plural(len(report.check_errors), 'file')} not checked (errors)"
    return line


def silenced_words(report: Report) -> str:
    """E.g. `3 findings silenced (2 inline, 1 by baseline)`."""
    inline = sum(1 for f in report.silenced if f.silenced == INLINE)
    by_baseline = sum(1 for f in report.silenced if f.silenced == BASELINE)
    parts = [f"{inline} inline"] * bool(inline) + [f"{by_baseline} by baseline"] * bool(by_baseline)
    return f"{plural(len(report.silenced), 'finding')} silenced ({', '.join(parts)})"


def summary_line(report: Report) -> str:
    """Both lines as one (a GitHub notice)."""
    return f"{reading_line(report)}. {findings_line(report)}"


def kinds_line(report: Report) -> str:
    """E.g. `findings by kind: shell 12 files (20 findings), markdown 3 files (2 findings)`; empty for shell only."""
    counts = report.kind_counts()
    shown = {k: c for k, c in counts.items() if c["parsed"] or c["findings"]}
    if set(shown) <= {"shell"}:
        return ""
    return "findings by kind: " + ", ".join(
        f"{kind} {plural(c['files'], 'file')} ({plural(c['findings'], 'finding')}"
        f"{', ' + plural(c['notes'], 'note') if c['notes'] else ''})" for kind, c in shown.items())
