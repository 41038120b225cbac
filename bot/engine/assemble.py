"""A scan's report, put together from what each file gave: the rules' outcomes (add_outcome), compose-check's
own report (compose_report), and the one place compose-check's findings join the rules' (merge)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot.compose.checker import Composed
from bot.compose.findings import RULE_ID, compose_rule
from bot.discover import SourceFile
from bot.hydra.compose import ComposeStats
from bot.hydra.messages import in_repository_terms
from bot.model import ComposeSummary, FileError, FileResult, Finding, Outcome, Reason, Report, RuleInfo, Skipped, Status

COMPOSE_TITLE = "Overrides compose with the repository's Hydra config"  # compose-check's own report names it so


def add_outcome(report: Report, outcome: Outcome, kind: str) -> None:
    """One file's outcome of the rules' check, added to the report."""
    report.skipped.extend(outcome.skipped)
    if outcome.error is not None:
        report.errors.append(outcome.error)
    result = outcome.result
    if result is None and outcome.error is None and not outcome.skipped:
        report.files_quiet[kind] = report.files_quiet.get(kind, 0) + 1
    if result is None or result.unreadable:
        return
    report.file_kinds[outcome.path] = result.kind
    report.reads.update(result.reads)
    _add_result(report, outcome.path, result)


def _add_result(report: Report, path: str, result: FileResult) -> None:
    """A file's findings, silenced findings, launches and change, as every checker's result adds them."""
    report.files_parsed += 1
    report.findings.extend(result.findings)
    report.silenced.extend(result.silenced)
    report.launches += result.launches
    if result.partly_parsed:
        report.partly_parsed.append(path)
        report.unsure[path] = result.unsure
    if result.change is not None:
        report.changes.append(result.change)


def compose_report(scan: Report, label: str | None, root: Path, unlisted: list[Skipped], files: list[SourceFile],
                   composed: dict[str, Composed]) -> tuple[Report, ComposeStats]:
    """compose-check's report of `files` (the shell-family files listed, in order) and its counts; `scan`: the
    scan's report (its commit, its baseline), `unlisted`: what the listing left out."""
    report = Report(repo=label or str(root), commit=scan.commit, rules=[RuleInfo(RULE_ID, True, COMPOSE_TITLE)],
                    baseline=scan.baseline, skipped=list(unlisted))
    stats = ComposeStats()
    for source in files:
        part = composed[source.path]
        report.files_scanned += 1
        report.skipped.extend(part.skipped)
        if part.quiet:
            report.files_quiet[source.kind] = report.files_quiet.get(source.kind, 0) + 1
        if not part.read:
            continue
        report.file_kinds[source.path] = source.kind  # a finding in a doc is a markdown one, not a shell one
        stats.add(part.stats)
        if part.error is not None:
            report.errors.append(part.error)
        result = part.result
        if result is None or result.unreadable:
            continue
        _add_result(report, source.path, result)
    report.errors.extend(FileError(path, in_repository_terms(problem, root), "composing", rules=(RULE_ID,))
                         for path, problem in sorted(stats.broken.items()))
    report.errors.sort(key=lambda e: e.path)
    report.findings.sort(key=Finding.sort_key)
    report.silenced.sort(key=Finding.sort_key)
    report.compose = ComposeSummary(stats.launches, stats.base_composes, list(stats.unresolved), stats.readings)
    return report, stats


def merge(report: Report, composed: Report) -> None:
    """compose-check's findings, verified fixes and errors added to the rules' report of the same scan: the one
    merge. A file the rules change keeps their change; compose-check's fixes in it are not made in this run
    (manual, a conflict), so no finding claims a fix the written file lacks."""
    rule = compose_rule()
    if all(r.id != rule.id for r in report.rules):
        report.rules.append(RuleInfo(rule.id, True, rule.title, rule.severity, rule.upstream))
    taken = {c.path for c in report.changes}
    for finding in composed.findings:
        if finding.path in taken and finding.status is Status.FIXABLE:
            finding = replace(finding)  # the composed report keeps its own
            finding.make_manual("not edited in this run: other rules change this file; run again after their "
                                "fixes", Reason.CONFLICT)
        report.findings.append(finding)
    report.findings.sort(key=Finding.sort_key)
    report.silenced = sorted(report.silenced + composed.silenced, key=Finding.sort_key)
    report.changes.extend(c for c in composed.changes if c.path not in taken)
    report.errors.extend(composed.errors)
    for path, kind in composed.file_kinds.items():
        report.file_kinds.setdefault(path, kind)
    report.errors.sort(key=lambda e: e.path)
    report.compose = composed.compose
