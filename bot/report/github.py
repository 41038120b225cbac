"""GitHub Actions workflow commands: an annotation per finding, then a summary notice."""

from __future__ import annotations

from bot.model import Finding, Report
from bot.report.summary import summary_line

_LEVELS = {"error": "error", "warning": "warning", "note": "notice"}


def render(report: Report) -> str:
    lines = [annotation(f) for f in sorted(report.findings, key=Finding.sort_key)]
    lines += [f"::error file={escape_property(e.path)},title=followup-bot::{escape_data(e.reason)}"
              for e in report.errors]
    lines.append(f"::notice title=followup-bot::{escape_data(summary_line(report))}")
    return "\n".join(lines) + "\n"


def annotation(finding: Finding) -> str:
    command = _LEVELS.get(finding.severity, "notice")
    props = {"file": finding.path, "line": finding.line, "col": finding.column, "title": finding.rule}
    joined = ",".join(f"{name}={escape_property(str(value))}" for name, value in props.items())
    return f"::{command} {joined}::{escape_data(f'{finding.status.value}: {finding.message}')}"


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")
