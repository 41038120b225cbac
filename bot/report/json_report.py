"""The JSON report, contract v1 (design.md): the keys it names keep their names and types.

Compatible extensions: "severity" per finding, "partly_parsed" at the top, and "files_parsed",
"launches", "files_changed", "written" and "errors" in the summary, "errors" at the top (files that
could not be checked: path, one-line reason, stage), "kinds" in the summary (files,
findings, fixable and manual per source kind), "kind" per finding, "publish" after publishing,
"suppressed" at the top (silenced findings, each with "suppression": "inline" or "baseline") and
"suppressed" and "files_quiet" (files with nothing for the rules) in the summary; after a --write,
"written" per file and "fixed", "files_written" and "files_not_written" in the summary (a write
that stopped part way wrote only some: each file not written also has an error of stage "writing").
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.model import BASELINE, INLINE, FileChange, Finding, Report, Skipped
from bot.report.diff import unified_diff
from bot.report.summary import quiet

VERSION = 1
_SURROGATE = re.compile("[\ud800-\udfff]")


def render(report: Report) -> str:
    return _SURROGATE.sub(_escape_surrogate, layout(to_dict(report)))


def layout(data: dict[str, Any]) -> str:
    """One top-level key per line and one list item (a finding, a file) per line.

    As readable in a terminal and as easy to grep as an indented dump, and several times faster
    for big reports: every line is written by json's C encoder.
    """
    encode = json.JSONEncoder(ensure_ascii=False).encode
    lines = []
    for key, value in data.items():
        name = encode(key)
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {encode(item)}" for item in value)
            lines.append(f"  {name}: [\n{items}\n  ]")
        else:
            lines.append(f"  {name}: {encode(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _escape_surrogate(match: re.Match[str]) -> str:
    """A diff of a non-UTF-8 file carries surrogate escapes; spell them as JSON escapes.

    The output stays encodable as UTF-8, and json.loads gives the same string back, so
    encoding that with errors="surrogateescape" restores the file's exact bytes.
    """
    return f"\\u{ord(match.group()):04x}"


def to_dict(report: Report) -> dict[str, Any]:
    changes = sorted((c for c in report.changes if c.before != c.after), key=lambda c: c.path)
    unwritten = set(report.unwritten())
    out: dict[str, Any] = {
        "version": VERSION,
        "repo": report.repo,
        "commit": report.commit,
        "rules": [{"id": r.id, "enabled": r.enabled} for r in sorted(report.rules, key=lambda r: r.id)],
        "findings": [_finding(f, report.file_kinds.get(f.path, "shell"))
                     for f in sorted(report.findings, key=Finding.sort_key)],
        "files": [_file(c, unwritten if report.written else None) for c in changes],
        "skipped": [{"path": s.path, "reason": s.reason} for s in sorted(report.skipped, key=_skip_key)],
        "partly_parsed": sorted(set(report.partly_parsed)),
        "errors": [{"path": e.path, "reason": e.reason, "stage": e.stage} for e in report.errors],
        "suppressed": [_finding(f, report.file_kinds.get(f.path, "shell")) | {"suppression": f.silenced}
                       for f in sorted(report.silenced, key=Finding.sort_key)],
        "summary": {
            "files_scanned": report.files_scanned,
            "findings": len(report.problems),
            "fixable": report.fixable,
            "manual": report.manual,
            "notes": report.notes,
            "files_parsed": report.files_parsed,
            "launches": report.launches,
            "files_changed": len(changes),
            "written": report.written,
            "kinds": report.kind_counts(),
            "errors": len(report.errors),
            "files_quiet": quiet(report),
            "suppressed": {"inline": sum(1 for f in report.silenced if f.silenced == INLINE),
                           "baseline": sum(1 for f in report.silenced if f.silenced == BASELINE)},
        },
    }
    if report.written:  # extension: what a --write wrote (a write that stopped part way left some files)
        out["summary"] |= {"fixed": report.fixed, "files_written": len(changes) - len(unwritten),
                           "files_not_written": len(unwritten)}
    if report.inferred is not None:  # extension: inferred rules not run, new checks not understood
        out["inferred"] = {"suggestions": report.inferred.suggestions,
                           "not_understood": report.inferred.not_understood}
    if report.publish is not None:  # extension: what publishing decided, and its API request count
        out["publish"] = {"decisions": [d.as_dict() for d in report.publish.decisions],
                          "api_requests": report.publish.api_requests}
    return out


def _file(change: FileChange, unwritten: set[str] | None) -> dict[str, Any]:
    """A changed file; after a --write (`unwritten`: the files it left), whether it was written."""
    out: dict[str, Any] = {"path": change.path, "diff": unified_diff(change)}
    if unwritten is not None:
        out["written"] = change.path not in unwritten
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
