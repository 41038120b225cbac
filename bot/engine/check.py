"""One file: its front end reads it, the evaluator finds and plans, the edits are applied and verified.

Nothing is written here: a verified change is returned with the findings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.context import NO_CONSOLES
from bot.engine.edits import apply_edits, find_conflicts, narrow_edits, unique_edits, verify
from bot.engine.silence import identity, silence
from bot.hydra.entry import RepositoryEntries
from bot.ir import Setting
from bot.lang import front_end, kind_for_path
from bot.lang.focus import Focus
from bot.lang.front import FrontEnd, Reading, SourceUnreadable
from bot.lang.kinds import SHELL, SHELL_FAMILY
from bot.model import Baseline, FileChange, FileResult, Finding, Reason, Status
from bot.rules.evaluate import LaunchFacts, evaluate
from bot.rules.globs import any_match
from bot.rules.model import Rule
from bot.rules.parse_reach import rules_reached

if TYPE_CHECKING:
    from bot.engine.context import EngineContext
    from bot.engine.run_configs import RunConfigs


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
               configs: RunConfigs | None = None) -> FileResult:
    """Find, fix in memory and verify one file; nothing is written here. `context`: the scan of its repository
    (the scripts it calls, its console scripts, its Hydra apps; None: the file alone);
    `focus`: the parts of the file that can hold anything for the rules (the rest is not read);
    `configs`: the config as the run's config edits leave it, which Hydra judges edited launches with.

    Findings silenced by a comment in the file or by `baseline` are set aside before any fix is planned.
    """
    kind = kind or kind_for_path(path) or SHELL
    front = front_end(path, kind, context, packages, focus)
    try:
        reading = front.read(data)
    except SourceUnreadable as exc:
        return FileResult(unreadable=f"cannot be read as {kind}: {exc}", kind=kind)
    findings = findings_in(path, reading, rules, facts, context)
    consoles = context.consoles if context is not None else NO_CONSOLES
    silenced = silence(findings, data, baseline, kind, consoles)
    result = FileResult(findings=findings, partly_parsed=reading.partly_parsed, launches=reading.launches,
                        kind=kind, reads=tuple(sorted(reading.reads)),
                        unsure=tuple(sorted(rules_reached(reading.regions, rules))), silenced=silenced,
                        inputs=tuple(sorted(reading.inputs)) if reading.inputs is not None else None)
    narrow_edits(data, findings)
    edits = unique_edits(findings)
    if not edits:
        return result
    conflicts = find_conflicts(edits)
    if conflicts:
        clashing = [c.first for c in conflicts] + [c.second for c in conflicts]
        for finding in findings:
            if any(e in clashing for e in finding.edits):
                others = sorted({c.second.rule if c.first in finding.edits else c.first.rule for c in conflicts
                                 if c.first in finding.edits or c.second in finding.edits})
                finding.make_manual(f"conflicting fixes (with {', '.join(others)}): not edited", Reason.CONFLICT)
        edits = unique_edits(findings)
        if not edits:
            return result
    if context is not None and kind in SHELL_FAMILY:  # launches in scripts, docs' blocks, notebooks, workflows
        from bot.engine.compose_judge import keep_composing

        result.composed = keep_composing(context, path, data, findings, configs, kind)
        edits = unique_edits(findings)
        if not edits:
            return result
    after = apply_edits(data, edits)
    refused = {(f.rule, f.key) for f in findings if f.reason is not None}  # conflicts, and what Hydra refused
    def problem_with(edited: list[Finding]) -> str | None:
        """Why the edits of these findings alone cannot be trusted (the others' findings may stay)."""
        own = unique_edits(edited)
        mine = {id(f) for f in edited}  # the other fixable findings stay unfixed here: they may still fire
        others = refused | {(f.rule, f.key) for f in fixable if id(f) not in mine}
        return _verified(path, data, apply_edits(data, own), own, front, rules, facts, others, (baseline, silenced),
                         len(_unreadable(reading)), context, kind)

    fixable = [f for f in findings if f.status is Status.FIXABLE]
    problem = problem_with(fixable)
    if problem is not None:  # one bad edit costs only the fixes of its rule and key
        good, failed = _verifiable(fixable, problem, problem_with)
        if good and problem_with(good) is not None:
            good = []
        kept = {id(f) for f in good}
        for finding in fixable:
            if id(finding) not in kept:
                why = failed.get(id(finding)) or problem
                finding.make_manual(f"the fix could not be verified: {why}", Reason.UNVERIFIED)
        if not good:
            return result
        after = apply_edits(data, unique_edits(good))
    result.change = FileChange(path, data, after)
    return result


MAX_UNITS = 32  # fixes verified apart in one file, beyond a check per rule


def _verifiable(fixable: list[Finding], problem: str,
                problem_with: Callable[[list[Finding]], str | None]) -> tuple[list[Finding], dict[int, str]]:
    """The findings whose fixes verify apart, and why each other one's do not (by the finding's id), when all
    of them together do not (`problem`). Each rule's fixes are verified alone; a rule whose fixes fail is
    split by key (its rename verified without its unwritable addition), within MAX_UNITS checks. The keys
    that pass alone are kept only if they pass with the rules that passed: never a part of a rule whose
    parts clash with each other (two keys renamed to one name)."""
    def split(findings: list[Finding], part: Callable[[Finding], str]) -> list[list[Finding]]:
        groups: dict[str, list[Finding]] = {}
        for finding in findings:
            groups.setdefault(part(finding), []).append(finding)
        return [groups[name] for name in sorted(groups)]

    good: list[Finding] = []
    parts: list[Finding] = []  # key groups of failing rules that pass alone
    failed: dict[int, str] = {}
    checks = 0
    rules = split(fixable, lambda f: f.rule)
    for mine in rules:
        why = problem if len(rules) == 1 else problem_with(mine)
        checks += len(rules) > 1
        if why is None:
            good.extend(mine)
            continue
        keys = split(mine, lambda f: f.key)
        if len(keys) == 1 or checks + len(keys) > MAX_UNITS:
            failed.update((id(f), why) for f in mine)
            continue
        checks += len(keys)
        for same in keys:
            reason = problem_with(same)
            failed.update((id(f), reason or why) for f in same)
            if reason is None:
                parts.extend(same)
    if parts and problem_with(good + parts) is None:
        good.extend(parts)
    return good, failed


def _verified(path: str, data: bytes, after: bytes, edits: list, front: FrontEnd,  # type: ignore[type-arg]
              rules: list[Rule], facts: LaunchFacts | None, refused: set[tuple[str, str]],
              quiet: tuple[Baseline | None, list[Finding]], unreadable: int, context: EngineContext | None,
              kind: str | None = None) -> str | None:
    """Why the edited bytes cannot be trusted (None: they can); `quiet`: the baseline, what was silenced;
    `unreadable`: how many values Hydra could not read before the edits (an edit never adds one)."""
    baseline, silenced = quiet
    still: list[Finding] = []
    broken: list[Setting] = []

    def rescan(new: bytes) -> list[Finding]:
        # what was refused for a conflict still fires after the others are applied: that is expected
        try:
            reading = front.read(new)
            again = findings_in(path, reading, rules, facts, context)
        except SourceUnreadable:
            return []  # reported by the parse-error check
        still[:] = silence(again, new, baseline, kind, context.consoles if context is not None else NO_CONSOLES)
        broken[:] = _unreadable(reading)
        return [f for f in again if (f.rule, f.key) not in refused]

    outcome = verify(data, after, edits, front.errors, rescan)
    if not outcome.ok:
        return outcome.reason
    if len(broken) > unreadable:
        return f"an edited value no longer reads as Hydra ({broken[-1].key}: {broken[-1].reason})"
    lost = Counter(map(identity, silenced)) - Counter(map(identity, still))
    if lost:
        rule, key, _ = next(iter(lost))
        return f"the edits would change what a silenced finding says ({rule} on {key})"
    return front.problem(data, after)



def _unreadable(reading: Reading) -> list[Setting]:
    """The values of a reading that Hydra's grammar cannot read."""
    return [s for unit in reading.units for group in unit.groups for s in group.settings if s.state == "invalid"]
