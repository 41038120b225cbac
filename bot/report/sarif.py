"""SARIF 2.1.0 for code-scanning tools, with the bot's byte-span edits as machine-applicable fixes."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from typing import Any
from urllib.parse import quote

from bot import __version__
from bot.model import INLINE, Edit, Finding, Report, RuleInfo, Status

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL = "followup-bot"
_LEVELS = {"error": "error", "warning": "warning", "note": "note"}
_GITHUB_REPO = re.compile(r"[\w.-]+/[\w.-]+")
_UPSTREAM = re.compile(r"(?P<repo>[\w.-]+/[\w.-]+)#(?P<number>\d+)")
HOME = "https://github.com/followup-bot/followup-bot"
COMPOSE_RULE = "hydra-compose"
FINGERPRINT = "followupBot/v1"  # rule, path, key, value and the occurrence: stable when lines move


def render(report: Report) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def to_dict(report: Report) -> dict[str, Any]:
    rules = sorted(report.rules, key=lambda r: r.id)
    index = {r.id: i for i, r in enumerate(rules)}
    contents = {c.path: c.before for c in report.changes}
    seen: Counter[tuple[str, str, str, str | None]] = Counter()
    results = [_result(f, index, contents.get(f.path), seen) for f in sorted(report.findings, key=Finding.sort_key)]
    source = report.baseline.source if report.baseline is not None else ""
    results += [_result(f, index, contents.get(f.path), seen) | {"suppressions": [_suppression(f, source)]}
                for f in sorted(report.silenced, key=Finding.sort_key)]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": TOOL, "version": __version__, "rules": [_rule(r) for r in rules]}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if report.errors:  # files that could not be checked: the run is not complete, and says where
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "error", "message": {"text": e.reason},
             "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(e.path)}}}]}
            for e in report.errors]}]
    if report.commit and _GITHUB_REPO.fullmatch(report.repo):
        provenance = {"repositoryUri": f"https://github.com/{report.repo}", "revisionId": report.commit}
        run["versionControlProvenance"] = [provenance]
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def level(severity: str) -> str:
    return _LEVELS.get(severity, "note")


def uri(path: str) -> str:
    """A relative URI reference: spaces and non-ASCII characters percent-encoded."""
    return quote(path, safe="/")


def _rule(rule: RuleInfo) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.id,
        "shortDescription": {"text": rule.title or rule.id},
        "helpUri": help_uri(rule),
        "defaultConfiguration": {"level": level(rule.severity), "enabled": rule.enabled},
    }


def help_uri(rule: RuleInfo) -> str:
    """The upstream change a rule follows, where it names one; else the page that explains such rules."""
    found = _UPSTREAM.fullmatch(rule.upstream or "")
    if found is not None:
        return f"https://github.com/{found['repo']}/pull/{found['number']}"
    page = "compose.md" if rule.id == COMPOSE_RULE else "rules.md"
    return f"{HOME}/blob/main/docs/{page}"


def fingerprint(finding: Finding, occurrence: int) -> str:
    """What identifies a finding across runs (as a baseline entry does), not its line."""
    identity = "\0".join((finding.rule, finding.path, finding.key, finding.value or "", str(occurrence)))
    return hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()


def _result(finding: Finding, index: dict[str, int], before: bytes | None,
            seen: Counter[tuple[str, str, str, str | None]]) -> dict[str, Any]:
    result: dict[str, Any] = {"ruleId": finding.rule}
    identity = (finding.rule, finding.path, finding.key, finding.value)
    seen[identity] += 1
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    result |= {
        "level": level(finding.severity),
        "message": {"text": finding.message},
        "locations": [_location(finding, before)],
        "partialFingerprints": {FINGERPRINT: fingerprint(finding, seen[identity])},
        "properties": {"status": finding.status.value, "key": finding.key, "value": finding.value},
    }
    if finding.status is not Status.MANUAL and finding.edits:
        result["fixes"] = [{"description": {"text": finding.message}, "artifactChanges": _changes(finding.edits)}]
    return result


def _suppression(finding: Finding, baseline: str) -> dict[str, Any]:
    """A silenced finding: `inSource` for a comment in the file, `external` for the baseline."""
    if finding.silenced == INLINE:
        return {"kind": "inSource", "status": "accepted",
                "justification": "a `followup-bot: ignore` comment in the file"}
    return {"kind": "external", "status": "accepted", "justification": f"listed in the baseline {baseline}".strip()}


def _location(finding: Finding, before: bytes | None) -> dict[str, Any]:
    region = {"startLine": finding.line, "startColumn": _column(finding, before)}
    return {"physicalLocation": {"artifactLocation": {"uri": uri(finding.path)}, "region": region}}


def _column(finding: Finding, before: bytes | None) -> int:
    """Findings count columns in bytes; SARIF counts code points. Convert when the file is at hand."""
    if before is None:
        return finding.column
    lines = before.split(b"\n")
    if not 0 < finding.line <= len(lines):
        return finding.column
    prefix = lines[finding.line - 1][: finding.column - 1]
    return len(prefix.decode("utf-8", errors="replace")) + 1


def _changes(edits: list[Edit]) -> list[dict[str, Any]]:
    by_path: dict[str, list[Edit]] = defaultdict(list)
    for edit in edits:
        by_path[edit.path].append(edit)
    return [
        {"artifactLocation": {"uri": uri(path)}, "replacements": [_replacement(e) for e in _ordered(group)]}
        for path, group in sorted(by_path.items())
    ]


def _ordered(edits: list[Edit]) -> list[Edit]:
    """By position; insertions at one point keep their planned order (as bot.engine.edits applies them)."""
    return [e for _, e in sorted(enumerate(edits), key=lambda t: (t[1].span.start, t[1].span.end, t[0]))]


def _replacement(edit: Edit) -> dict[str, Any]:
    span = edit.span
    return {
        "deletedRegion": {"byteOffset": span.start, "byteLength": span.end - span.start},
        "insertedContent": {"text": edit.text},
    }
