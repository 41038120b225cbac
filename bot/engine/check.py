"""One file: its front end reads it, each checker finds and plans (the rules' evaluator, compose-check), and
the edits take the one path to a verified change (bot.engine.settle).

Nothing is written here: a verified change is returned with the findings.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from bot.compose.checker import ComposeChecker, ComposeOptions
from bot.compose.context import ComposeContext
from bot.context import NO_CONSOLES
from bot.engine.edits import apply_edits, unique_edits
from bot.engine.settle import Again, Judge, settle
from bot.hydra.entry import RepositoryEntries
from bot.ir import Setting
from bot.lang import front_end, is_shell_family, kind_for_path, launch_reader
from bot.lang.focus import Focus
from bot.lang.front import FrontEnd, LaunchReader, Reading, SourceUnreadable
from bot.lang.kinds import SHELL
from bot.model import Baseline, FileResult, Finding
from bot.rules.evaluate import LaunchFacts, evaluate
from bot.rules.globs import any_match
from bot.rules.model import Rule, evaluated
from bot.rules.parse_reach import rules_reached

if TYPE_CHECKING:
    from bot.compose.judge import ConfigEdits
    from bot.engine.context import EngineContext


def rules_for(path: str, rules: list[Rule]) -> list[Rule]:
    return [r for r in rules if not r.files or any_match(list(r.files), path)]


def findings_in(path: str, reading: Reading, rules: list[Rule], facts: LaunchFacts | None,
                context: EngineContext | None = None) -> list[Finding]:
    """Every unit the front end read, evaluated; a view's findings in the file's own terms. `context`: the
    scan of the repository a moved entry point's new module must be in (None: not checked; the files
    looked at join the reading's reads)."""
    targets = RepositoryEntries(context) if context is not None else None
    findings: list[Finding] = []
    for unit in reading.units:
        found = evaluate(path, unit.groups, rules, unit.realise, facts, targets)
        findings.extend(map(unit.to_host, found) if unit.to_host is not None else found)
    if targets is not None:
        reading.reads |= targets.looked
    return findings


def read_findings(path: str, data: bytes, rules: list[Rule], facts: LaunchFacts | None = None, *,
                  kind: str | None = None, packages: dict[str, str] | None = None,
                  context: EngineContext | None = None) -> list[Finding]:
    """The findings of one file with their planned edits, before they are applied and verified."""
    kind = kind or kind_for_path(path) or SHELL
    return findings_in(path, front_end(path, kind, context, packages).read(data), rules, facts, context)


def check_file(path: str, data: bytes, rules: list[Rule], facts: LaunchFacts | None = None, *,
               kind: str | None = None, packages: dict[str, str] | None = None,
               context: EngineContext | None = None, baseline: Baseline | None = None, focus: Focus | None = None,
               configs: ConfigEdits | None = None, front: FrontEnd | None = None) -> FileResult:
    """Find, fix in memory and verify one file; nothing is written here. `context`: the scan of its repository
    (the scripts it calls, its console scripts, its Hydra apps; None: the file alone);
    `focus`: the parts of the file that can hold anything for the rules (the rest is not read);
    `configs`: the config as the run's config edits leave it, which Hydra judges edited launches with;
    `front`: the file's front end (bot.lang.front_end), when another check of the file shares its parses.

    Findings silenced by a comment in the file or by `baseline` are set aside before any fix is planned.
    """
    kind = kind or kind_for_path(path) or SHELL
    rules = evaluated(rules)  # a migration's steps in its place
    front = front or front_end(path, kind, context, packages, focus)
    try:
        reading = front.read(data)
    except SourceUnreadable as exc:
        return FileResult(unreadable=f"cannot be read as {kind}: {exc}", kind=kind)
    findings = findings_in(path, reading, rules, facts, context)
    result = FileResult(findings=findings, partly_parsed=reading.partly_parsed, launches=reading.launches,
                        kind=kind, reads=tuple(sorted(reading.reads)),
                        unsure=tuple(sorted(rules_reached(reading.regions, rules))),
                        inputs=tuple(sorted(reading.inputs)) if reading.inputs is not None else None)

    def rules_again(new: bytes) -> tuple[list[Finding], list[Setting]] | None:
        try:
            again = front.read(new)
            return findings_in(path, again, rules, facts, context), _unreadable(again)
        except SourceUnreadable:
            return None

    judge: Judge | None = None
    shell = launch_reader(path, kind, context, front) if is_shell_family(kind) else None  # the front end's own
    if context is not None and shell is not None:  # launches in scripts, docs' blocks, notebooks, workflows
        judge = partial(_judge, context, shell, data, configs)  # the edited text: parsed once, for it and verify
    settled = settle(path, data, findings, Again(rules_again, front.errors, front.problem, len(_unreadable(reading))),
                     baseline=baseline, kind=kind, consoles=context.consoles if context is not None else NO_CONSOLES,
                     shell=shell, judge=judge)
    result.silenced, result.change, result.composed = settled.silenced, settled.change, settled.judged
    return result


def compose_file(path: str, data: bytes, context: ComposeContext, options: ComposeOptions, *, kind: str,
                 baseline: Baseline | None = None, front: FrontEnd | None = None) -> FileResult:
    """compose-check's check of one file (bot.compose.checker): its launches composed, the fixes (a `+` on a
    key that exists now, a key a config change renamed) verified by composing the edited text again; `front`:
    the file's front end, when the rules' check of the file shares its parses. Counted in the composer's
    stats (the caller's `Composer.counting`)."""
    reader = launch_reader(path, kind, context, front)
    checker = ComposeChecker(context, reader, path, options)
    try:
        result = checker.read(data)
    except ValueError as exc:  # not what its name says: a notebook that is not JSON
        return FileResult(unreadable=f"cannot be read as {kind}: {exc}", kind=kind)

    def composed_again(new: bytes) -> tuple[list[Finding], list[Setting]] | None:
        try:
            return checker.again(new), []
        except ValueError:
            return None  # the parse-error check reports it

    again = Again(composed_again, reader.errors, reader.problem, apart=False)
    settled = settle(path, data, result.findings, again, baseline=baseline, kind=kind, consoles=context.consoles,
                     shell=reader)
    result.silenced, result.change = settled.silenced, settled.change
    checker.in_repository_terms(result)
    return result


def _judge(context: ComposeContext, reader: LaunchReader, data: bytes, configs: ConfigEdits | None,
           findings: list[Finding]) -> bool:
    """Every edit composes (bot.compose.judge): the rules' fixes that would stop a launch composing, taken back."""
    from bot.compose.judge import keep_composing

    return keep_composing(context, reader, data, findings, partial(_edited, data), configs)


def _edited(data: bytes, findings: list[Finding]) -> bytes:
    """The text the fixes of these findings make."""
    return apply_edits(data, unique_edits(findings))


def _unreadable(reading: Reading) -> list[Setting]:
    """The values of a reading that Hydra's grammar cannot read."""
    return [s for unit in reading.units for group in unit.groups for s in group.settings if s.state == "invalid"]
