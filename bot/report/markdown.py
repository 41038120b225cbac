"""A report for a pull-request body or a GitHub step summary (GitHub-flavoured Markdown)."""

from __future__ import annotations

import re
from collections import Counter

from bot.model import WRITING, Finding, Report, RuleInfo, Status
from bot.report.summary import changed_words

_PUNCT = re.compile(r"([\\`*_\[\]<>|~#!&@:])")  # `@` and `:`: no mention, no autolinked URL
_BACKTICKS = re.compile(r"`+")


def render(report: Report) -> str:
    parts = [
        _heading(report),
        _summary(report),
        _needs_a_person(report),
        _findings(report),
        _rules(report),
        _errors(report),
        _skipped(report),
        _partly_parsed(report),
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def text(value: str) -> str:
    """Plain text safe in a table cell: Markdown punctuation escaped (rule text and file contents reach it, so
    no heading, link, image, mention or autolinked URL goes live), line breaks flattened."""
    return _PUNCT.sub(r"\\\1", _one_line(value))


def code(value: str) -> str:
    """A code span that survives backticks inside the value and pipes in a table cell.

    GFM splits cells at `|` even inside code spans; `\\|` there is read as a literal pipe.
    """
    value = _one_line(value)
    if not value:
        return ""
    longest = max((len(m) for m in _BACKTICKS.findall(value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith(("`", " ")) or value.endswith(("`", " ")) else ""
    return f"{fence}{pad}{value}{pad}{fence}".replace("|", "\\|")


def _one_line(value: str) -> str:
    return " ".join(value.splitlines())


def _heading(report: Report) -> str:
    where = code(report.repo) + (f" at {code(report.commit[:12])}" if report.commit else "")
    return f"## Follow-up bot report\n\n{where}: {changed_words(report)}."


def _summary(report: Report) -> str:
    rows = [
        ("Files scanned", report.files_scanned),
        ("Files parsed", report.files_parsed),
        ("Launches", report.launches),
        ("Findings", len(report.problems)),
        ("Fixed", report.fixed) if report.written else ("Fixable", report.fixable),
        ("Manual", report.manual),
    ]
    if report.notes:  # told apart: a note never fails --check and needs no one
        rows.append(("Notes", report.notes))
    unwritten = report.unwritten()
    if unwritten:  # a write that stopped part way: their fixes are still to make
        rows.insert(5, ("Fixable, not written", report.fixable - report.fixed))
    if report.silenced:  # not fixed, not listed: a `followup-bot: ignore` comment or the baseline
        rows.append(("Silenced (not fixed)", len(report.silenced)))
    if report.check_errors:
        rows.append(("Not checked (errors)", len(report.check_errors)))
    if unwritten:
        rows.append(("Files not written", len(unwritten)))
    table = "\n".join(["| | Count |", "|---|---:|", *(f"| {name} | {count} |" for name, count in rows)])
    counts = {k: c for k, c in report.kind_counts().items() if c["parsed"] or c["findings"]}
    if set(counts) <= {"shell"}:
        return table
    fixes = ("Fixed or fixable" if unwritten else "Fixed") if report.written else "Fixable"
    by_kind = [f"| Kind | Files | Findings | {fixes} | Manual | Notes |",
               "|---|---:|---:|---:|---:|---:|"]
    by_kind += [f"| {kind} | {c['files']} | {c['findings']} | {c['fixable']} | {c['manual']} | {c['notes']} |"
                for kind, c in counts.items()]
    return table + "\n\n" + "\n".join(by_kind)


def _needs_a_person(report: Report) -> str:
    manual = sorted((f for f in report.problems if f.status is Status.MANUAL), key=Finding.sort_key)
    notes = sorted((f for f in report.findings if f.is_note), key=Finding.sort_key)
    parts = []
    if manual:
        items = [f"- {code(_where(f))} {code(f.rule)}: {text(f.message)}" for f in manual]
        parts.append("\n".join(["### Needs a person", "", *items]))
    if notes:  # told, never counted as manual
        items = [f"- {code(_where(f))} {code(f.rule)}: {text(f.message)}" for f in notes]
        parts.append("\n".join(["### Notes", "", *items]))
    return "\n\n".join(parts)


def _findings(report: Report) -> str:
    if not report.findings:
        return "No findings: every scanned launch follows the enabled rules."
    head = ["### Findings", "", "| Where | Rule | Key | Value | Status | Message |", "|---|---|---|---|---|---|"]
    ordered = sorted(report.findings, key=lambda f: (f.status is not Status.MANUAL, *f.sort_key()))
    return "\n".join(head + [_finding_row(f) for f in ordered])


def _finding_row(finding: Finding) -> str:
    cells = [
        code(_where(finding)),
        code(finding.rule),
        code(finding.key),
        code(finding.value) if finding.value is not None else "",
        finding.status.value,
        text(finding.message),
    ]
    return "| " + " | ".join(cells) + " |"


def _where(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}"


def _rules(report: Report) -> str:
    counts = Counter(f.rule for f in report.findings)
    fired = sorted((r for r in report.rules if counts[r.id]), key=lambda r: r.id)
    if not fired:
        return ""
    head = ["### Rules", "", "| Rule | Severity | Findings | Title |", "|---|---|---:|---|"]
    return "\n".join(head + [_rule_row(r, counts[r.id]) for r in fired])


def _rule_row(rule: RuleInfo, count: int) -> str:
    return f"| {code(rule.id)} | {rule.severity} | {count} | {text(rule.title)} |"


def _errors(report: Report) -> str:
    parts = []
    for title, errors in (("Files that could not be checked", report.check_errors),
                          ("Files not written (their fixes were verified; the files are as they were)",
                           [e for e in report.errors if e.stage == WRITING])):
        if errors:
            items = [f"- {code(e.path)}: {text(e.reason)}" for e in errors]
            parts.append("\n".join([f"### {title} ({len(errors)})", "", *items]))
    return "\n\n".join(parts)


def _skipped(report: Report) -> str:
    if not report.skipped:
        return ""
    items = [f"- {code(s.path)}: {text(s.reason)}" for s in sorted(report.skipped, key=lambda s: (s.path, s.reason))]
    return _details(f"Skipped files ({len(report.skipped)})", items)


def _partly_parsed(report: Report) -> str:
    paths = sorted(set(report.partly_parsed))
    if not paths:
        return ""
    return _details(f"Partly parsed files ({len(paths)})", [f"- {code(p)}" for p in paths])


def _details(summary: str, items: list[str]) -> str:
    # the blank line after <summary> lets GitHub render the Markdown list inside the HTML block
    return "\n".join([f"<details><summary>{summary}</summary>", "", *items, "", "</details>"])
