"""The one way a checker's findings become a change: silence -> plan -> apply -> verify.

Every checker of a file (the rules' evaluator, compose-check) hands its findings here with its second
look at an edited text (`Again`): findings silenced by a comment or the baseline are set aside, edits
narrowed, overlapping fixes refused as a conflict, the rest judged (the rules' fixes: every launch that
composed still composes, bot.compose.judge), applied and verified (bot.engine.edits.verify: bytes
outside the edits unchanged, no new parse error, nothing left to fix, every silenced finding still
there, the front end's own problem check). Nothing is written here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.context import Consoles
from bot.engine.edits import apply_edits, find_conflicts, narrow_edits, unique_edits, verify
from bot.engine.silence import identity, silence
from bot.ir import Setting
from bot.model import Baseline, FileChange, Finding, Reason, Status

if TYPE_CHECKING:
    from bot.lang.comments import ShellTexts

MAX_UNITS = 32  # fixes verified apart in one file, beyond a check per rule


@dataclass(frozen=True)
class Again:
    """How a checker looks at an edited text: its findings there with the values Hydra's grammar cannot read
    (None when the text no longer reads as its kind), the front end's parse-error
    count and its own problem check; `unreadable`: how many values Hydra could not read before the edits
    (an edit never adds one); `apart`: fixes that fail together are tried rule by rule and key by key
    (compose-check's are verified together: a second compose judges the whole file)."""

    findings: Callable[[bytes], tuple[list[Finding], list[Setting]] | None]
    errors: Callable[[bytes], int]
    problem: Callable[[bytes, bytes], str | None]
    unreadable: int = 0
    apart: bool = True


@dataclass
class Settled:
    silenced: list[Finding]
    change: FileChange | None = None
    judged: bool = False  # Hydra judged the edits: the result depends on the repository's config tree


Judge = Callable[[list[Finding]], bool]  # takes back the fixes Hydra refuses; True when Hydra was asked


def settle(path: str, data: bytes, findings: list[Finding], again: Again, *, baseline: Baseline | None,
           kind: str | None, consoles: Consoles, shell: ShellTexts | None = None,
           judge: Judge | None = None) -> Settled:
    """Silence, then fix in memory and verify the findings of one checker on one file (in place: a fix that
    cannot be made becomes manual, saying why). `shell`: the file's shell front end, whose parses silencing
    reads comments from."""
    settled = Settled(silence(findings, data, baseline, kind, consoles, shell))
    narrow_edits(data, findings)
    edits = unique_edits(findings)
    if not edits:
        return settled
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
            return settled
    if judge is not None:
        settled.judged = judge(findings)
        edits = unique_edits(findings)
        if not edits:
            return settled
    after = apply_edits(data, edits)
    refused = {(f.rule, f.key) for f in findings if f.reason is not None}  # conflicts, and what Hydra refused
    quiet = (baseline, kind, consoles, shell, settled.silenced)

    def problem_with(edited: list[Finding]) -> str | None:
        """Why the edits of these findings alone cannot be trusted (the others' findings may stay)."""
        own = unique_edits(edited)
        mine = {id(f) for f in edited}  # the other fixable findings stay unfixed here: they may still fire
        others = refused | {(f.rule, f.key) for f in fixable if id(f) not in mine}
        return _verified(data, apply_edits(data, own), own, again, others, quiet)

    fixable = [f for f in findings if f.status is Status.FIXABLE]
    problem = problem_with(fixable)
    if problem is not None:  # one bad edit costs only the fixes of its rule and key
        good, failed = _verifiable(fixable, problem, problem_with) if again.apart else ([], {})
        if good and problem_with(good) is not None:
            good = []
        kept = {id(f) for f in good}
        for finding in fixable:
            if id(finding) not in kept:
                why = failed.get(id(finding)) or problem
                finding.make_manual(f"the fix could not be verified: {why}", Reason.UNVERIFIED)
        if not good:
            return settled
        after = apply_edits(data, unique_edits(good))
    settled.change = FileChange(path, data, after)
    return settled


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


# the baseline, the kind, the console scripts, the shell front end, what was silenced
Quiet = tuple[Baseline | None, str | None, Consoles, "ShellTexts | None", list[Finding]]


def _verified(data: bytes, after: bytes, edits: list, again: Again,  # type: ignore[type-arg]
              refused: set[tuple[str, str]], quiet: Quiet) -> str | None:
    """Why the edited bytes cannot be trusted (None: they can); `refused`: (rule, key) of the findings that may
    still fire after the edits (refused fixes, the fixable ones left out of these edits)."""
    baseline, kind, consoles, shell, silenced = quiet
    still: list[Finding] = []
    broken: list[Setting] = []

    def rescan(new: bytes) -> list[Finding]:
        # what was refused for a conflict still fires after the others are applied: that is expected
        read = again.findings(new)
        if read is None:
            return []  # reported by the parse-error check
        found, unreadable = read
        still[:] = silence(found, new, baseline, kind, consoles, shell)
        broken[:] = unreadable
        return [f for f in found if (f.rule, f.key) not in refused]

    outcome = verify(data, after, edits, again.errors, rescan)
    if not outcome.ok:
        return outcome.reason
    if len(broken) > again.unreadable:
        return f"an edited value no longer reads as Hydra ({broken[-1].key}: {broken[-1].reason})"
    lost = Counter(map(identity, silenced)) - Counter(map(identity, still))
    if lost:
        rule, key, _ = next(iter(lost))
        return f"the edits would change what a silenced finding says ({rule} on {key})"
    return again.problem(data, after)
