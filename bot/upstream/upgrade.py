"""`bot upgrade --repo D --to REF` (issue 43, item 3): every migration between D's pins and REF, in the upstream's
history order, over a working copy of D.

For each distinct pinned commit P, the upstream's first-parent commits P..REF are walked oldest first (one walk
for all pins: a commit acts on the files whose pin it follows). A commit that can matter (bot.upstream.upgrade_span)
gets the step `bot watch --upstream` runs (bot.upstream.downstream_watch: the rules it triggers or infers, D laid
beside the upstream at the commit's parent and at the commit, its launches composed there), over the working copy
AS THE STEPS BEFORE LEFT IT: each step's verified edits are written into the copy before the next, so a key renamed
twice ends at its last name. Then the pins are bumped to REF (bot.downstream.bump). The result: each step with its
rules and edits, and the working copy's files against D's.

With a rule pack (bot.upstream.pack, `--pack`), nothing is inferred: a commit the pack has rules for runs them in
the same step (laid and verified as above), one that edits config YAML gets its compose check as without a pack,
one that calls for neither is not stepped, and a commit outside the pack's range is read and inferred as without it
(with a note).
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot import scratch
from bot.downstream.bump import Bumped, bump_pins
from bot.downstream.model import Pin, Upstream
from bot.downstream.pin_target import Target, resolve, resolve_pin
from bot.downstream.pins import pin_of, read_pins
from bot.errors import UserError
from bot.gitfiles import git_files
from bot.model import FileChange, Finding, Report, Status
from bot.upstream.change import read_change
from bot.upstream.downstream_watch import Named, compose_since, package_dirs, scan_laid, upstream_history
from bot.upstream.laid_tree import laid_tree
from bot.upstream.upgrade_span import Commit, may_matter, span

COMPOSE = "hydra-compose"
LAUNCH_LINE = re.compile(r"\[launch of \S+ at line (\d+)\]")

if TYPE_CHECKING:
    from bot.config import Config
    from bot.rules.model import Rule
    from bot.upstream.pack import Pack
    from bot.upstream.watching import InferPolicy, WatchResult


@dataclass
class Step:
    """One upstream commit acted on: the rules it ran (with why), the edits it made, what is left to a person."""

    commit: Commit
    reasons: dict[str, str]
    changes: list[FileChange]  # the files as this step found and left them
    composed: list[str]  # `path:line entry` of launches failing at the commit that the edits make compose
    manual: list[Finding]  # findings with no verified edit (a launch that still fails to compose, ...)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Upgrade:
    upstream: Upstream
    target: Target
    starts: list[Target]  # the distinct pinned commits, oldest first
    walked: int = 0  # the first-parent commits of the span(s)
    checked: int = 0  # those that could matter
    steps: list[Step] = field(default_factory=list)  # those that ran a rule
    changes: list[FileChange] = field(default_factory=list)  # D's files before and after the whole upgrade
    bumped: Bumped = field(default_factory=Bumped)
    notes: list[str] = field(default_factory=list)
    failing: list[Finding] | None = None  # launches of the edited files that fail at the target (None: not checked)
    seconds: dict[str, float] = field(default_factory=dict)  # where the time went

    @property
    def edited(self) -> bool:
        return bool(self.changes)


@dataclass(frozen=True)
class Resolved:
    pin: Pin
    target: Target | None


def upgrade(root: Path, config: Config, named: Named, ref: str, rules: list[Rule], policy: InferPolicy,
            jobs: int = 1, label: str = "", progress: Callable[[str], None] | None = None, verify: bool = True,
            pack: Pack | None = None) -> Upgrade:
    """The upgrade of the downstream at `root` to `ref` (module docstring); `root` is only read. `verify`: the
    launches of the files it edits composed against the upstream at the target, those that fail listed. `pack`:
    the rules to run instead of inferring them (checked to be of this upstream: bot.upstream.pack.refuse_other)."""
    if pack is not None:
        from bot.upstream.pack import refuse_other

        refuse_other(pack, named.upstream, named.setting)
    with upstream_history(named) as history:
        target = resolve(history, ref)
        if target is None:
            raise UserError(f"--to: {named.upstream.source} has no commit, tag, branch or version {ref!r} "
                            f"(expected one of its history; {named.setting} names the upstream)")
        packages = package_dirs(named, history, (target.commit,), root)
        upstream, resolved, notes = _pins(root, config, named, history, packages)
        starts = _starts(history, resolved, target, notes)
        result = Upgrade(upstream, target, starts, notes=notes)
        if not resolved:
            result.notes.append(f"no pin of {upstream.distribution} found: nothing to upgrade from")
        with working_copy(root) as work:
            _walk(result, work, history, packages, resolved, rules, policy, jobs, label or str(root), progress,
                  pack)
            moving = {t.commit for t in starts}
            result.bumped = bump_pins(work, [r.pin for r in resolved if r.target is not None
                                             and r.target.commit in moving], target, _date(history, target))
            result.changes = _against(root, work)
            if verify and result.changes:
                clock = time.monotonic()
                result.failing = verify_at(work, history, target.commit, packages, [c.path for c in result.changes],
                                           label or str(root))
                result.seconds["verify"] = round(time.monotonic() - clock, 2)
    return result


def _pins(root: Path, config: Config, named: Named, history: Path, packages: tuple[str, ...]
          ) -> tuple[Upstream, list[Resolved], list[str]]:
    """D's pins (bot.toml's [[pins]], else the usual places), each with its commit or a note; the upstream as the
    pins name it (a checkout's directory name is not its distribution: with no pin of that name, the packages laid,
    `verl` for a checkout in `history/`, name it)."""
    spec = config.downstream_of(root)
    upstream = named.upstream
    reading = read_pins(root, upstream, spec.pins if spec is not None else (), "bot.toml")
    names = tuple(p.rsplit("/", 1)[-1] for p in packages)
    if not reading.pins and names and upstream.distribution not in names:
        upstream = replace(upstream, distribution=names[0], packages=names)
        reading = read_pins(root, upstream, spec.pins if spec is not None else (), "bot.toml")
    notes = list(reading.notes)
    out: list[Resolved] = []
    for pin in reading.pins:
        found, note = resolve_pin(history, pin)
        if note is not None:
            notes.append(note)
        out.append(Resolved(pin, found))
    return upstream, out, notes


def _starts(history: Path, resolved: list[Resolved], target: Target, notes: list[str]) -> list[Target]:
    """The distinct pinned commits before the target, oldest first (by commit date); a pin at the target or past it
    is noted and left (an upgrade never moves a pin back)."""
    seen: dict[str, Target] = {}
    for r in resolved:
        if r.target is None or r.target.commit == target.commit or r.target.commit in seen:
            continue
        if _is_ancestor(history, target.commit, r.target.commit):
            notes.append(f"{r.pin.file}: {r.pin.value} is past {target.given}: left as it is")
            continue
        seen[r.target.commit] = r.target
    return sorted(seen.values(), key=lambda t: _date(history, t) or "")


def _is_ancestor(history: Path, older: str, newer: str) -> bool:
    done = subprocess.run(["git", "-C", str(history), "merge-base", "--is-ancestor", older, newer],
                          capture_output=True, check=False)
    return done.returncode == 0


def _walk(result: Upgrade, work: Path, history: Path, packages: tuple[str, ...], resolved: list[Resolved],
          rules: list[Rule], policy: InferPolicy, jobs: int, label: str, progress: Callable[[str], None] | None,
          pack: Pack | None = None) -> None:
    if not result.starts:
        return
    clock = time.monotonic()
    spans = {start.commit: span(history, start.commit, result.target.commit) for start in result.starts}
    order = _union(list(spans.values()))
    members = {sha: {c.sha for c in commits} for sha, commits in spans.items()}
    covered = set() if pack is None else {c.sha for c in span(history, pack.start["commit"], pack.end["commit"])}
    kept = may_matter(history, order, packages, rules) if pack is None else _packed(result, history, order,
                                                                                    packages, rules, pack, covered)
    result.walked, result.checked = len(order), len(kept)
    result.seconds["span"] = round(time.monotonic() - clock, 2)
    for index, commit in enumerate(kept, 1):
        following = {sha for sha, inside in members.items() if commit.sha in inside}

        def eligible(path: str, following: set[str] = following) -> bool:
            pin = pin_of([r.pin for r in resolved], path)
            found = next((r.target for r in resolved if r.pin == pin), None)
            return found is not None and found.commit in following

        if progress is not None:
            progress(f"[{index}/{len(kept)}] {commit.sha[:12]} {commit.subject[:70]}")
        packed = None if pack is None or commit.sha not in covered else pack.rules_at(commit.sha)
        step = run_step(work, history, commit, packages, rules, policy, jobs, label, eligible, packed)
        gc.collect()  # GitPython's repositories hold their git processes' pipes until collected: hundreds of steps
        # in one process would reach select()'s limit of 1024 descriptors (the step's forked workers wait on select)
        for key, value in step[1].items():
            result.seconds[key] = round(result.seconds.get(key, 0.0) + value, 2)
        if step[0] is not None:
            result.steps.append(step[0])


def _packed(result: Upgrade, history: Path, order: list[Commit], packages: tuple[str, ...], rules: list[Rule],
            pack: Pack, covered: set[str]) -> list[Commit]:
    """The commits an upgrade with a pack steps, of those it reads without one: a commit the pack has rules for, one
    that edits config YAML (its step composes the launches it reaches again, and fixes what that can fix: an
    appended `+key` the config now holds), any when rules are given (they may trigger), and those outside the pack's
    range (their rules inferred, noted)."""
    with_rules = set(pack.commits())
    outside = [c for c in order if c.sha not in covered]
    if outside:
        result.notes.append(f"{len(outside)} upstream commit(s) of the upgrade are outside the pack's range "
                            f"{pack.start['commit'][:12]}..{pack.end['commit'][:12]}: their rules were inferred")
    return [c for c in may_matter(history, order, packages, rules)
            if c.sha not in covered or c.sha in with_rules or rules
            or any(p.endswith((".yaml", ".yml")) for p in c.paths)]


def _union(spans: list[list[Commit]]) -> list[Commit]:
    """The commits of every span once, in the longest span's order (the others' own commits after, in theirs)."""
    ordered = sorted(spans, key=len, reverse=True)
    seen: dict[str, Commit] = {}
    for commits in ordered:
        for commit in commits:
            seen.setdefault(commit.sha, commit)
    return list(seen.values())


def run_step(work: Path, history: Path, commit: Commit, packages: tuple[str, ...], rules: list[Rule],
             policy: InferPolicy, jobs: int, label: str, eligible: Callable[[str], bool],
             packed: list[tuple[Rule, str]] | None = None) -> tuple[Step | None, dict[str, float]]:
    """`bot watch --upstream`'s step for one commit over the working copy, its verified edits to the files that
    follow the commit written into it; (None when the commit calls for no rule, the seconds of each part).
    `packed`: the commit's rules from a pack, each with its reason, run in place of the inferred ones."""
    from bot.engine.write import write_changes
    from bot.publish.run import PublishOptions
    from bot.upstream.watching import choose

    clock = time.monotonic()
    times: dict[str, float] = {}
    change = read_change(history, commit.parent, commit.sha)
    options = PublishOptions()
    with laid_tree(work, history, change.before, change.after, packages) as laid:
        times["lay"] = time.monotonic() - clock
        if packed is None:
            result, _, selected = choose(history, laid.root, rules, change, options, policy)
        else:
            result, _, selected = choose(history, laid.root, rules, change, options, replace(policy, confidence="off"))
            _add_packed(result, selected, packed)
        times["choose"] = time.monotonic() - clock - times["lay"]
        if not result.rules:
            return None, times
        compose_since(options, laid)
        report = scan_laid(laid, selected, label, options, None, jobs)
        kept = replace(report, changes=[c for c in report.changes if eligible(c.path) and c.before != c.after],
                       findings=[f for f in report.findings if eligible(f.path)])
        times["scan"] = time.monotonic() - clock - times["lay"] - times["choose"]
        composed = _made_to_compose(laid.root, kept)
    if kept.changes:
        write_changes(work, kept)
        if kept.unwritten():
            raise UserError(f"{work}: the step of {commit.sha[:12]} could not write {', '.join(kept.unwritten())}")
    fixed = {c.split(" ", 1)[0] for c in composed}  # a launch that composes after the edits is no one's to fix
    manual = [f for f in kept.findings if f.status is Status.MANUAL and not f.is_note
              and not (f.rule == COMPOSE and _launch_of(f) in fixed)]
    notes = [*result.suggestions, *result.not_understood]
    reasons = {r.id: result.reasons.get(r.id, "") for r in result.rules}
    step = Step(commit, reasons, kept.changes, composed, manual, notes, round(time.monotonic() - clock, 2))
    times["write"] = time.monotonic() - clock - sum(times.values())
    return step, times


def _add_packed(result: WatchResult, selected: list[Rule], packed: list[tuple[Rule, str]]) -> None:
    """The pack's rules of the step run as choose runs the inferred ones: after the given rules, before the compose
    check."""
    taken = {r.id for r in selected}
    added = [(rule, reason) for rule, reason in packed if rule.id not in taken]
    selected.extend(rule for rule, _ in added)
    composing = [r for r in result.rules if r.id == COMPOSE]
    result.rules = [*(r for r in result.rules if r.id != COMPOSE), *(rule for rule, _ in added), *composing]
    result.reasons.update({rule.id: reason for rule, reason in added})
    result.inferred_ids |= {rule.id for rule, _ in added}


def _launch_of(finding: Finding) -> str:
    """`path:line` of the launch a compose-check finding is about (its message names the launch's line)."""
    named = LAUNCH_LINE.search(finding.message)
    return f"{finding.path}:{named[1] if named else finding.line}"


def _made_to_compose(tree: Path, report: Report) -> list[str]:
    """`path:line entry`, for each launch of an edited script that fails to compose before the edits and composes
    after them (composed in the laid tree, against the upstream at the step's commit)."""
    from bot.compose.judge import launch_outcomes
    from bot.engine.context import repository_context

    scripts = [c for c in report.changes if report.file_kinds.get(c.path, "shell") == "shell"]
    if not scripts:
        return []
    context = repository_context(tree)
    return [f"{c.path}:{o.line} {o.entry}" for c in scripts for o in launch_outcomes(context, c.path, c.before, c.after)
            if o.before.startswith("fails") and o.after == "composes"]


def verify_at(work: Path, history: Path, target: str, packages: tuple[str, ...], edited: list[str], label: str
              ) -> list[Finding]:
    """compose-check of the edited files' launches, the working copy laid beside the upstream at the target: those
    that fail (whatever the upgrade did; a launch that failed at the pin too is listed as well)."""
    from bot.compose.checker import ComposeOptions
    from bot.engine.scan import scan

    with laid_tree(work, history, target, target, packages) as laid:
        report = laid.own_only(scan(laid.root, [], label=label, paths=set(edited), compose=ComposeOptions()))
    return [f for f in report.findings if f.rule == COMPOSE and not f.is_note]


@contextmanager
def working_copy(root: Path) -> Iterator[Path]:
    """D's files (tracked, and untracked ones not ignored) in a scratch git repository (removed after)."""
    made = Path(scratch.mkdtemp("bot-upgrade-", scratch.checkout_size(root)))
    work = made / "work"
    try:
        work.mkdir()
        for rel in git_files(root):
            source, dest = root / rel, work / rel
            if not (source.is_symlink() or source.is_file()):
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            if source.is_symlink():
                os.symlink(os.readlink(source), dest)
            else:
                shutil.copyfile(source, dest)
        for args in (["init", "--quiet"], ["add", "--all", "--force"]):
            subprocess.run(["git", "-C", str(work), *args], capture_output=True, check=True)
        yield work
    finally:
        shutil.rmtree(made, ignore_errors=True)


def _against(root: Path, work: Path) -> list[FileChange]:
    """The working copy's files that differ from D's, by path."""
    out: list[FileChange] = []
    for rel in sorted(git_files(work)):
        after = work / rel
        if after.is_symlink() or not after.is_file():
            continue
        try:
            before = (root / rel).read_bytes()
        except OSError:
            continue
        now = after.read_bytes()
        if now != before:
            out.append(FileChange(rel, before, now))
    return out


def _date(history: Path, target: Target) -> str | None:
    done = subprocess.run(["git", "-C", str(history), "log", "-1", "--format=%cs", target.commit],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or None
