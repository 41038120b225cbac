"""The report for people at a terminal: one line per finding, grouped by file, then a summary."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from bot.model import WRITING, Finding, Report, Status
from bot.report.summary import findings_line, kinds_line, reading_line

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
YELLOW = "\x1b[33m"

_STATUS_COLOR = {Status.FIXABLE: GREEN, Status.FIXED: GREEN, Status.MANUAL: YELLOW}


def render(report: Report, *, color: bool = False) -> str:
    lines = list(_findings(report, color))
    lines.extend(_errors(report))
    lines.extend(_skipped(report))
    lines.extend(_partly_parsed(report))
    lines.append(reading_line(report))
    lines.append(_paint(findings_line(report), BOLD, color))
    if kinds_line(report):
        lines.append(kinds_line(report))
    lines.extend(_published(report))
    lines.extend(_inferred(report))
    return "\n".join(lines) + "\n"


def _published(report: Report) -> Iterator[str]:
    publish = report.publish
    if publish is None:
        return
    for decision in publish.decisions:
        where = f" #{decision.number}" if decision.number else ""
        url = f" {decision.url}" if decision.url else ""
        yield f"{decision.branch}: {decision.action}{where}: {decision.detail}{url}"
    yield f"GitHub API requests: {publish.api_requests}"


def _inferred(report: Report) -> Iterator[str]:
    if report.inferred is None:
        return
    for line in report.inferred.suggestions:
        yield f"suggested rule (not run): {line}"
    yield from report.inferred.not_understood


def _findings(report: Report, color: bool) -> Iterator[str]:
    if not report.findings:
        yield "no findings: every scanned launch follows the enabled rules"
        return
    ordered = sorted(report.findings, key=Finding.sort_key)
    for index, (_, group) in enumerate(groupby(ordered, key=lambda f: f.path)):
        if index:
            yield ""
        for finding in group:
            yield finding_line(finding, color)
    yield ""


def finding_line(finding: Finding, color: bool = False) -> str:
    rule = _paint(f"[{finding.rule}]", RED if finding.severity == "error" else "", color)
    status = _paint("note" if finding.is_note else finding.status.value,
                    "" if finding.is_note else _STATUS_COLOR[finding.status], color)
    message = " ".join(finding.message.splitlines())
    return f"{finding.path}:{finding.line}:{finding.column}: {rule} {status} {message}"


def _errors(report: Report) -> Iterator[str]:
    if report.check_errors:
        yield "errors (these files could not be checked; everything else was):"
        for error in report.check_errors:
            yield f"  {error.path}: {error.reason}"
        yield ""
    unwritten = [e for e in report.errors if e.stage == WRITING]
    if unwritten:
        yield "not written (their fixes were verified; the files are as they were):"
        for error in unwritten:
            yield f"  {error.path}: {error.reason}"
        yield ""


def _skipped(report: Report) -> Iterator[str]:
    if not report.skipped:
        return
    yield "skipped:"
    for item in sorted(report.skipped, key=lambda s: (s.path, s.reason)):
        yield f"  {item.path}: {item.reason}"
    yield ""


def _partly_parsed(report: Report) -> Iterator[str]:
    if not report.partly_parsed:
        return
    yield ("partly parsed (parse errors the shell parser recovered from, or a doc's YAML block that is not YAML; "
           "findings there may be incomplete):")
    for path in sorted(set(report.partly_parsed)):
        yield f"  {path}"
    yield ""


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{RESET}" if color and code else text
