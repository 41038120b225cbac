"""The JSON report, contract v1 (design.md): the keys it names keep their names and types.

Compatible extensions: "severity" per finding, "partly_parsed" at the top, and "files_parsed",
"launches", "files_changed" and "written" in the summary, "kinds" in the summary (files,
findings, fixable and manual per source kind), "kind" per finding, "publish" after publishing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.model import Finding, Report, Skipped
from bot.report.diff import unified_diff

VERSION = 1
_SURROGATE = re.compile("[\ud800-\udfff]")


def render(report: Report) -> str:
    text = json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"
    return _SURROGATE.sub(_escape_surrogate, text)


def _escape_surrogate(match: re.Match[str]) -> str:
    """A diff of a non-UTF-8 file carries surrogate escapes; spell them as JSON escapes.

    The output stays encodable as UTF-8, and json.loads gives the same string back, so
    encoding that with errors="surrogateescape" restores the file's exact bytes.
    """
    return f"\\u{ord(match.group()):04x}"


def to_dict(report: Report) -> dict[str, Any]:
    changes = sorted((c for c in report.changes if c.before != c.after), key=lambda c: c.path)
    out = {
        "version": VERSION,
        "repo": report.repo,
        "commit": report.commit,
        "rules": [{"id": r.id, "enabled": r.enabled} for r in sorted(report.rules, key=lambda r: r.id)],
        "findings": [_finding(f, report.file_kinds.get(f.path, "shell"))
                     for f in sorted(report.findings, key=Finding.sort_key)],
        "files": [{"path": c.path, "diff": unified_diff(c)} for c in changes],
        "skipped": [{"path": s.path, "reason": s.reason} for s in sorted(report.skipped, key=_skip_key)],
        "partly_parsed": sorted(set(report.partly_parsed)),
        "summary": {
            "files_scanned": report.files_scanned,
            "findings": len(report.findings),
            "fixable": report.fixable,
            "manual": report.manual,
            "files_parsed": report.files_parsed,
            "launches": report.launches,
            "files_changed": len(changes),
            "written": report.written,
            "kinds": report.kind_counts(),
        },
    }
    if "inferred" in report.extra:  # extension: inferred rules not run, new checks not understood
        out["inferred"] = report.extra["inferred"]
    if "publish" in report.extra:  # extension: what publishing decided, and its API request count
        out["publish"] = report.extra["publish"]
    return out


def _skip_key(item: Skipped) -> tuple[str, str]:
    return (item.path, item.reason)


def _finding(finding: Finding, kind: str) -> dict[str, Any]:
    site = finding.fix_site
    return {
        "rule": finding.rule,
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "key": finding.key,
        "value": finding.value,
        "status": finding.status.value,
        "message": finding.message,
        "fix_site": {"path": site[0], "line": site[1]} if site is not None else None,
        "severity": finding.severity,
        "kind": kind,
    }
