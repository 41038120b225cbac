"""Propose rules from validation code an upstream change adds (libcst; nothing is imported).

A new `assert self.engine_config.use_mbridge` (or `if not ...: raise`) in a class whose
`engine_config` is typed `McoreEngineConfig` says: every config node whose `_target_` names
McoreEngineConfig must set `use_mbridge` truthy. The bot maps the field to the Hydra key paths
of those nodes in the repository's YAML and proposes a format-v1 rule with its provenance.
Only checks that are new after the change count; moved, loosened or removed checks yield nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.upstream.check import Check, NotUnderstood
from bot.upstream.flow import is_test_path
from bot.upstream.propose import Places, Proposal, equivalent, propose
from bot.upstream.sources import text_of, too_large


def _allowed(check: Check) -> set[Any] | None:
    """The values a check lets through, where that is a small set (to tell stricter from looser)."""
    if check.kind == "truthy":
        return {True}
    if check.kind == "falsy":
        return {False}
    if check.kind == "equals":
        return set(check.values)
    if check.kind == "in":
        return set(check.values)
    return None


def compare(new: Check, old: list[Check]) -> str:
    """new | same | stricter | looser | changed: the new check against the old ones on the same field."""
    if not old:
        return "new"
    if any(o.identity() == new.identity() for o in old):
        return "same"
    allowed = _allowed(new)
    before = [_allowed(o) for o in old if o.guard == new.guard]
    if allowed is not None and before and all(b is not None for b in before):
        union = set().union(*[b for b in before if b is not None])
        if allowed < union:
            return "stricter"
        return "looser" if allowed >= union else "changed"
    if new.kind == old[0].kind == "bound" and new.values[0] == old[0].values[0] and len(old) == 1:
        op, limit = new.values
        old_limit = old[0].values[1]
        tighter = limit > old_limit if op in (">", ">=") else limit < old_limit if op in ("<", "<=") else False
        return "stricter" if tighter else "looser"
    return "changed"


def _conjuncts(guard: str) -> set[str]:
    return {part.strip() for part in guard.split(" and ") if part.strip()}


def _shape(check: Check) -> tuple[object, ...]:
    values = check.values
    if check.kind == "relation":
        values = (values[0], str(values[1]).rsplit(".", 1)[-1])
    return check.field, check.kind, values


def judge(new: Check, old: list[Check], places: Places | None = None) -> tuple[str, Check | None]:
    """The new check against every old check of the changed files, per field:
    (same | stricter | looser | changed | new, the old check it tightens)."""
    if any(o.identity() == new.identity() for o in old):
        return "same", None
    shaped = [o for o in old if _shape(o) == _shape(new)]
    for earlier in (o for o in shaped if o.subject() == new.subject()):
        before, now = _conjuncts(earlier.guard), _conjuncts(new.guard)
        if now == before:
            return "same", None
        if now < before:  # a guard removed, a condition widened
            return "stricter", earlier
        if now > before:
            return "looser", None
    for earlier in shaped:  # the same check on another holder: moved, unless it reads other config nodes only
        if places is None:
            return "same", None
        here, there = places.nodes(new), places.nodes(earlier)
        if not here or not there or set(here) & set(there):
            return "same", None
    return compare(new, [o for o in old if o.subject() == new.subject() and _comparable(o, new)]), None


def _comparable(old: Check, new: Check) -> bool:
    """Whether an old check constrains the same aspect of the field (an allowed set, one side of a
    bound): a check of another kind beside it (a lower bound beside a divisibility) is a new one."""
    if _allowed(old) is not None and _allowed(new) is not None:
        return True
    if old.kind == new.kind == "bound":
        return (old.values[0] in (">", ">=")) == (new.values[0] in (">", ">="))
    return old.kind == new.kind and old.kind != "relation"


@dataclass
class Inference:
    proposals: list[Proposal] = field(default_factory=list)
    covered: list[str] = field(default_factory=list)  # ids of existing rules that already cover a check
    not_understood: list[NotUnderstood] = field(default_factory=list)
    unchanged: int = 0  # checks that moved or stayed as they were
    loosened: int = 0  # checks that let more through than before: no rule


Read = tuple[list[Check], dict[str, dict[str, str]], list[NotUnderstood]]
MAX_READERS = 4  # processes reading a change's Python files at once


def _checks(source: str, path: str) -> Read:
    """`checks_in`, with a file that fails or takes too long reported as not understood."""
    from bot.engine.isolation import isolated
    from bot.upstream.checks import checks_in  # libcst: imported where the files are read

    found, error = isolated(path, "reading its checks", lambda: checks_in(source, path))
    if found is None:
        assert error is not None
        return [], {}, [NotUnderstood(path, 0, "", "", error.reason)]
    return found


def _read_one(_state: object, item: tuple[str, str]) -> Read:
    return _checks(*item)


class Reading:
    """The checks of each (text, path), being read: on forked workers when there are several files and cores
    (libcst reads a large file in a second or so), begun at once so the caller does other work meanwhile (git's
    checkout of the tree); `results` waits for them."""

    def __init__(self, texts: list[tuple[str, str]], beside: int = 0) -> None:
        """`beside`: processes the caller runs meanwhile (git's checkout), each leaving a core to it; then the
        texts are read on a worker even where there is one."""
        from bot.engine.forks import Forks, can_fork, usable_cores

        self.texts = texts
        jobs = min(max(1, usable_cores() - beside), MAX_READERS, len(texts))
        self.forks: Forks | None = Forks(jobs) if jobs >= 2 - bool(beside) and can_fork() else None
        self.tasks: dict[int, int] = {}  # task -> the text it reads
        if self.forks is None:
            return
        try:  # the largest first: the workers start on them while the caller goes on, and finish together
            for index in sorted(range(len(texts)), key=lambda i: -len(texts[i][0])):
                self.tasks[self.forks.submit(_read_one, [texts[index]])] = index
        except BaseException:
            self.close()
            raise

    def widen(self) -> None:
        """The process it was begun beside has ended: a worker more, where the cores allow and texts wait."""
        from bot.engine.forks import usable_cores

        if self.forks is not None and self.forks.queued() and \
                len(self.forks.workers) < min(usable_cores(), MAX_READERS, len(self.texts)):
            self.forks.grow()

    def results(self) -> list[Read]:
        """The checks of each text, in the order given (read here when no worker was started)."""
        if self.forks is None:
            return [_checks(text, path) for text, path in self.texts]
        out: list[Read] = [([], {}, [])] * len(self.texts)
        try:
            while self.forks.pending():
                number, (read,) = self.forks.answer()
                out[self.tasks[number]] = read
        finally:
            self.close()
        return out

    def close(self) -> None:
        """The workers ended (a reading not waited for is dropped)."""
        if self.forks is not None:
            self.forks.close()
            self.forks = None


# per file the change edits: where its checks before and after the change are among the texts read (None: not
# read), or why the file after it is not read
Planned = tuple[int | None, int | None, NotUnderstood | None]


def _plan(old: Any, new: Any) -> tuple[list[tuple[str, str]], list[Planned]]:
    """The texts to read checks of (the Python files the change edits, tests aside, before and after it), and
    what each file's are."""
    texts: list[tuple[str, str]] = []
    planned: list[Planned] = []
    for diff in old.diff(new):
        before, before_unread = None, None  # why the file before the change was not read: its checks are not known
        if diff.a_path and diff.a_path.endswith(".py") and not diff.new_file and not is_test_path(diff.a_path):
            blob = old.tree[diff.a_path]
            before_unread = too_large(blob)
            if before_unread is None:
                before = len(texts)
                texts.append((text_of(blob), diff.a_path))
        path = diff.b_path or ""
        if not path.endswith(".py") or diff.deleted_file or is_test_path(path):
            planned.append((before, None, None))
            continue
        blob = new.tree[path]
        skipped = too_large(blob) or (f"before the change: {before_unread}" if before_unread else None)
        if skipped is not None:
            planned.append((before, None, NotUnderstood(path, 0, "", "", skipped)))
            continue
        planned.append((before, len(texts), None))
        texts.append((text_of(blob), path))
    return texts, planned


@dataclass
class Begun:
    """An inference begun (`begin`): the commits, what is read of each file the change edits, and the reading of
    their checks under way; `infer` finishes it."""

    new: Any
    planned: list[Planned]
    reading: Reading

    def widen(self) -> None:
        """What it was begun beside (git's checkout) has ended: the reading takes the core back."""
        self.reading.widen()

    def close(self) -> None:
        self.reading.close()


def begin(root: Path, before: str, after: str, beside: int = 0) -> Begun:
    """An inference from the change `before`..`after` begun: the Python files it edits (tests aside) being read on
    forked workers, while the caller goes on (bot.upstream.watching: while git checks out the tree, `beside` one
    process, which keeps a core: each worker reads its own copy of libcst in, so the fewer the cheaper)."""
    import git

    repo = git.Repo(root)
    old, new = repo.commit(before), repo.commit(after)
    texts, planned = _plan(old, new)
    return Begun(new, planned, Reading(texts, beside))


def infer(root: Path, before: str, after: str, existing: list[Any], begun: Begun | None = None) -> Inference:
    """Proposals from the Python files the change edits (tests aside); checks are compared across
    all of them, so a check moved from one file to another is not new. `begun`: this inference, begun earlier."""
    begun = begun or begin(root, before, after)
    old_checks: list[Check] = []
    old_unread: set[str] = set()
    candidates: list[tuple[list[Check], dict[str, dict[str, str]]]] = []
    result = Inference()
    read = begun.reading.results()
    for before_at, after_at, skipped in begun.planned:
        if before_at is not None:
            checks, _, unread = read[before_at]
            old_checks.extend(checks)
            old_unread.update(u.text for u in unread if u.text)
        if skipped is not None:
            result.not_understood.append(skipped)
        elif after_at is not None:
            checks, types, unread = read[after_at]
            candidates.append((checks, types))
            result.not_understood.extend(unread)
    result.not_understood = [u for u in result.not_understood if not (u.text and u.text in old_unread)]
    places = Places(begun.new)
    for checks, types in candidates:
        fresh: list[tuple[Check, Check | None]] = []
        for check in checks:
            verdict, earlier = judge(check, old_checks, places)
            if verdict == "same":
                result.unchanged += 1
            elif verdict == "looser":
                result.loosened += 1
            elif verdict == "changed":
                result.not_understood.append(NotUnderstood(check.path, check.line, check.text, check.message,
                                                           "the check on this field changed shape"))
            else:
                fresh.append((check, earlier))
        proposals, unread = propose(places, fresh, types)
        result.not_understood.extend(unread)
        for proposal in proposals:
            same = equivalent(proposal, existing)
            if same is not None:
                result.covered.append(same)
            else:
                proposal.rule["id"] = _unique(str(proposal.rule["id"]), {p.rule["id"] for p in result.proposals})
                result.proposals.append(proposal)
    return result


def _unique(rule_id: str, taken: set[str]) -> str:
    """Two checks on fields of one name make two rules: the second is `<id>-2` (ids name branches)."""
    number, unique = 1, rule_id
    while unique in taken:
        number += 1
        unique = f"{rule_id}-{number}"
    return unique
