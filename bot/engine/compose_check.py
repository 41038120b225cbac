"""compose-check: every launch of every shell file composed with the repository's config.

Each override Hydra would reject is a finding of the built-in rule `hydra-compose` with Hydra's
own message; `+` on a key that exists now, and a key a config change renamed, are fixed, verified
by composing again. One file that fails is an error entry; the others are still composed.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from bot.engine.compose_findings import RULE_ID as RULE_ID
from bot.engine.compose_findings import chosen_by_caller, launch_finding, override_finding
from bot.engine.compose_findings import compose_rule as compose_rule
from bot.engine.compose_findings import merge_into as merge_into
from bot.engine.isolation import DEFAULT_SECONDS, isolated
from bot.engine.readings import Reading, Run, describe, elided, failures, in_run, readings, sweep_runs
from bot.engine.silence import default_baseline, identity, silence
from bot.hydra.app import AppProblem, HydraApp, resolve_app
from bot.hydra.compose import Composer, ComposeStats
from bot.hydra.messages import in_repository_terms
from bot.hydra.renames import Rename, config_renames
from bot.hydra.source import ConfigBroken, NotComposed
from bot.ir import Launch, Override
from bot.lang import launch_reader, may_launch
from bot.lang.front import LaunchReader, LaunchView
from bot.lang.kinds import SHELL
from bot.model import Baseline, ComposeSummary, FileError, Finding, Reason, Report, Status

if TYPE_CHECKING:
    from bot.engine.context import EngineContext



_NOT_LOADED = re.compile(r"Could not load '([^']+)'")  # a defaults entry that names no file


def check_script(path: str, context: EngineContext, launches: list[Launch],
                 renames: list[Rename] | None = None, kind: str = SHELL) -> list[Finding]:
    """Each launch (of one view of a file: bot.lang.front.LaunchView) composed once per way through its
    branches (bot.engine.readings); `kind`: the file's (in a doc, `...` stands for arguments left out)."""
    findings: list[Finding] = []
    reported: set[object] = set()
    composer = context.composer
    for launch in launches:
        composer.stats.launches += 1
        app = resolve_app(context, launch)
        if isinstance(app, AppProblem):
            composer.stats.unresolved.append((path, launch.line, app.reason))
            continue
        if elided(kind, launch):
            composer.stats.unresolved.append((path, launch.line, "the doc leaves some of its arguments out (`...`)"))
            continue
        runs, unswept = sweep_runs(launch)
        if unswept is not None:
            composer.stats.unresolved.append((path, launch.line, ("partly checked: " if runs else "") + unswept))
            if not runs:
                continue
        found, composed = _compose_runs(path, context, launch, app, runs)
        composer.stats.readings += composed
        for spot, (failing, message, where) in found.items():
            if spot in reported:
                continue
            reported.add(spot)
            override = failing
            if override is None:
                finding = launch_finding(path, launch, app, message)
            else:
                finding = override_finding(path, override, message, launch, renames or [])
                if launch.caller_args:
                    chosen_by_caller(finding, app, override.key, message, launch)
            if len(where) < composed:  # not in every way the script runs: name the one
                finding.message += describe(where[0])
            finding.scope = (launch.lines,)
            findings.append(finding)
    return findings


def _compose_runs(path: str, context: EngineContext, launch: Launch, app: HydraApp,
                  runs: list[Run]) -> tuple[dict[object, tuple[Override | None, str, list[Reading]]], int]:
    """Where the launch fails in each way through the script's branches and each run of its sweeps, and
    how many readings were composed."""
    composer = context.composer
    found: dict[object, tuple[Override | None, str, list[Reading]]] = {}
    composed = 0
    for branch in readings(launch, app, composer):
        if branch.unchecked is not None:
            composer.stats.unresolved.append((path, launch.line, f"partly checked: {branch.unchecked}"))
            continue
        for reading in (in_run(branch, run) for run in runs):
            composed += 1
            try:
                failed = failures(reading, launch, app, composer)
            except NotComposed as exc:  # whatever the launch says: not its finding
                why = (path, launch.line, _not_composed(context.root, exc, composer))
                if why not in composer.stats.unresolved:
                    composer.stats.unresolved.append(why)
                continue
            for override, message in failed:
                stored = _NOT_LOADED.search(message)
                if stored is not None and context.stored.may_register(stored.group(1)):
                    why = (path, launch.line, f"its config names {stored.group(1)}, which the repository "
                                              "registers in Hydra's ConfigStore when it runs")
                    if why not in composer.stats.unresolved:  # once, whatever the runs and ways
                        composer.stats.unresolved.append(why)
                    continue
                place: object = override.key_span if override is not None else ("launch", launch.line)
                found.setdefault(place, (override, message, []))[2].append(reading)
    return found, composed


def _not_composed(root: Path, exc: NotComposed, composer: Composer) -> str:
    """Why a launch is not composed; a broken config is kept for the one error entry that names it."""
    if not isinstance(exc, ConfigBroken):
        return str(exc)
    where = _in_repository(root, exc.path)
    composer.stats.broken.setdefault(where, _in_repository(root, exc.problem))
    return f"its config {where} does not compose (see the errors)"


def _in_repository(root: Path, text: str) -> str:
    """Paths of the repository in a text, as the repository names them."""
    return text.replace(str(root) + os.sep, "")


def _compose_file(context: EngineContext, path: str, kind: str, data: bytes, renames: list[Rename],
                  report: Report, known: set[tuple[str, str, str | None]] | None = None) -> None:
    """One shell-family file's launches composed (a script's, a doc's blocks', a notebook's cells', a
    workflow's steps'), its verified fixes and findings added to `report`.

    Fixes pass the same verification as every rule's (bot.engine.edits.verify): bytes outside the
    edits unchanged, no new parse error, and composing the edited file again finds nothing to fix.
    """
    from bot.engine.edits import apply_edits, verify
    from bot.model import FileChange, Skipped

    front = launch_reader(path, kind, context)
    composer = context.composer
    try:
        findings, launches, partial = _composed(path, context, front, data, renames)
    except ValueError as exc:  # not what its name says: a notebook that is not JSON
        report.skipped.append(Skipped(path, f"cannot be read as {kind}: {exc}"))
        return
    if known is not None:  # --since: only what the config change broke (bot.engine.drift)
        drift = [f for f in findings if (path, f.key, f.value) not in known]
        composer.stats.known += len(findings) - len(drift)
        findings = drift
    silenced = silence(findings, data, report.baseline, kind, context.consoles)
    edits = [e for f in findings if f.status is Status.FIXABLE for e in f.edits]
    change = None
    if edits:
        after = apply_edits(data, edits)

        def compose_again(new: bytes) -> list[Finding]:
            counted = (composer.stats.launches, len(composer.stats.unresolved), composer.stats.readings)
            try:
                again = _composed(path, context, front, new, renames)[0]
            except ValueError:
                again = []  # the parse-error check reports it
            composer.stats.launches = counted[0]  # the edited copy's launches are not counted twice
            del composer.stats.unresolved[counted[1]:]
            composer.stats.readings = counted[2]
            still[:] = silence(again, new, report.baseline, kind, context.consoles)
            return again

        still: list[Finding] = []
        outcome = verify(data, after, edits, front.errors, compose_again)
        if outcome.ok and Counter(map(identity, silenced)) - Counter(map(identity, still)):
            outcome.ok, outcome.reason = False, "the edits would change what a silenced finding says"
        if outcome.ok:
            change = FileChange(path, data, after)
        else:
            for finding in findings:
                if finding.status is Status.FIXABLE:
                    finding.make_manual(f"the fix could not be verified: {outcome.reason}", Reason.UNVERIFIED)
    report.files_parsed += 1
    report.launches += launches
    if partial:
        from bot.rules.parse_reach import rules_reached

        report.partly_parsed.append(path)
        regions = [r for view in partial for r in view.regions()]
        report.unsure[path] = tuple(rules_reached(regions, [compose_rule()]))
    if change is not None:
        report.changes.append(change)
    report.findings.extend(findings)
    report.silenced.extend(silenced)


def _composed(path: str, context: EngineContext, front: LaunchReader, data: bytes,
              renames: list[Rename]) -> tuple[list[Finding], int, list[LaunchView]]:
    """(findings in the file's terms, launches composed, views partly parsed) of each of the file's views."""
    composer = context.composer
    findings: list[Finding] = []
    launches = 0
    partial: list[LaunchView] = []
    for read in front.launch_views(data):
        view = read.view
        first = len(composer.stats.unresolved)
        found = check_script(path, context, read.launches, renames, front.kind)
        near = read.near_errors()
        for finding in found:
            if finding.edits and finding.line in near:
                finding.status, finding.edits, finding.fix_site = Status.MANUAL, [], None
                finding.message += "; not edited: next to a part the shell parser could not read"
        if view.host_at is not None or view.names:  # a doc's block, a notebook's cell: as the file says it
            composer.stats.unresolved[first:] = [
                (p, view.host_line(line, data) if view.host_at is not None else line, view.restore(why))
                for p, line, why in composer.stats.unresolved[first:]]
        findings.extend(view.to_host(f, data) for f in found)
        launches += len(read.launches)
        if read.partly_parsed:
            partial.append(read)
    return findings, launches, partial


def _in_repository_terms(report: Report, stats: ComposeStats, root: Path) -> None:
    """Hydra's messages (search paths, file names) relative to the repository, never the machine's paths."""
    for finding in (*report.findings, *report.silenced):
        finding.message = in_repository_terms(finding.message, root)
    report.errors = [replace(e, reason=in_repository_terms(e.reason, root)) for e in report.errors]
    stats.unresolved[:] = [(path, line, in_repository_terms(why, root)) for path, line, why in stats.unresolved]


def compose_scan(root: Path, label: str | None = None, since: str | None = None,
                 seconds: float | None = DEFAULT_SECONDS,
                 known: set[tuple[str, str, str | None]] | None = None,
                 baseline: Baseline | None = None,
                 progress: Callable[[int, int], None] | None = None) -> tuple[Report, ComposeStats]:
    """Every launch of every shell-family file (scripts, docs, notebooks, workflows), composed; `+` fixes
    verified by composing again.

    A file that fails or takes too long becomes an error entry; the others are still composed.
    `known`: failures (path, key, value) not to report: those older than a change (bot.engine.drift).
    `baseline`: as for bot.engine.scan.scan (None: the repository's own, if it has one).
    """
    from bot.discover import read_source, sources
    from bot.engine.context import scan_context
    from bot.gitfiles import head_commit
    from bot.lang.kinds import SHELL_FAMILY
    from bot.model import RuleInfo

    root = root.resolve()  # every path below is the repository's, whatever the working directory
    renames = config_renames(root, since) if since else []
    report = Report(repo=label or str(root), commit=head_commit(root),
                    rules=[RuleInfo(RULE_ID, True, "Overrides compose with the repository's Hydra config")],
                    baseline=baseline if baseline is not None else default_baseline(root))
    packaging: list[str] = []
    listed = list(sources(root, report.skipped, SHELL_FAMILY, packaging=packaging))
    context = scan_context(root, listed, packaging)
    composer = context.composer
    for done, source in enumerate(listed):
        if progress is not None:
            progress(done, len(listed))
        report.files_scanned += 1
        data = read_source(source, report.skipped)
        if data is None:
            continue
        if not may_launch(data, context.consoles):
            report.files_quiet[source.kind] = report.files_quiet.get(source.kind, 0) + 1
            continue
        counted = (composer.stats.launches, len(composer.stats.unresolved), composer.stats.readings)
        report.file_kinds[source.path] = source.kind  # a finding in a doc is a markdown one, not a shell one
        work = partial(_compose_file, context, source.path, source.kind, data, renames, report, known)
        _, error = isolated(source.path, "composing", work, seconds)
        if error is not None:
            composer.stats.launches, composer.stats.readings = counted[0], counted[2]
            del composer.stats.unresolved[counted[1]:]
            report.errors.append(replace(error, rules=(RULE_ID,)))
    report.errors.extend(FileError(path, problem, "composing", rules=(RULE_ID,))
                         for path, problem in sorted(composer.stats.broken.items()))
    _in_repository_terms(report, composer.stats, root)
    report.errors.sort(key=lambda e: e.path)
    report.findings.sort(key=Finding.sort_key)
    report.silenced.sort(key=Finding.sort_key)
    report.compose = ComposeSummary(composer.stats.launches, composer.stats.base_composes,
                                    list(composer.stats.unresolved), composer.stats.readings)
    return report, composer.stats
