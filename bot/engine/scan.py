"""The scan: sources -> prefilter -> parse -> check (the rules' evaluator, compose-check) -> verified edits
-> Report. compose-check is this scan with only its checker (compose_scan); `run --compose` with both."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from bot.compose.checker import ComposeOptions, Key
from bot.discover import SourceFile, sources
from bot.engine.assemble import add_outcome, compose_report, merge
from bot.engine.batches import Batches
from bot.engine.checker import Composing, Setup, scan_one, schema_differs
from bot.engine.context import scan_context
from bot.engine.isolation import DEFAULT_SECONDS
from bot.engine.silence import default_baseline
from bot.engine.wanted import focus_for, listing_of, scripts_of
from bot.errors import UserError
from bot.gitfiles import head_commit
from bot.hydra.compose import ComposeStats
from bot.hydra.renames import config_renames
from bot.lang import is_config, is_shell_family, names_apps, shell_family
from bot.lang.focus import Scripts
from bot.model import BASELINE, Baseline, CacheStats, Finding, Outcome, Reason, Report, RuleInfo
from bot.rules.model import Rule, consults_config, evaluated


class Memo(Protocol):
    """Earlier per-file results (bot.cache.reuse.CachedResults): the scan asks, it does not cache."""

    def plan(self, root: Path, files: list[SourceFile], listed: list[SourceFile],
             extra_reads: list[str], consoles: str) -> list[SourceFile]: ...  # the files to check now
    def hit(self, path: str) -> Outcome | None: ...
    def record(self, source: SourceFile, outcome: Outcome) -> None: ...
    def finish(self, *, complete: bool) -> CacheStats: ...


@dataclass
class Scanned:
    """What one scan reports: the rules' findings, with compose-check's joined when it composed (`report`), and
    compose-check's own report and counts (`composed`, `stats`: None when it did not compose)."""

    report: Report
    composed: Report | None = None
    stats: ComposeStats | None = None


def scan(root: Path, rules: list[Rule], *, label: str | None = None, paths: set[str] | None = None,
         jobs: int = 1, memo: Memo | None = None, seconds: float | None = DEFAULT_SECONDS,
         baseline: Baseline | None = None, progress: Callable[[int, int], None] | None = None,
         compose: ComposeOptions | None = None) -> Report:
    """Scan every file of `root` the bot reads (or only `paths`, relative to it) with the enabled rules, and
    with `compose`, compose every launch of the repository's shell-family files too (compose-check, its
    findings joined to the rules': `run --compose`). See scan_all."""
    return scan_all(root, rules, label=label, paths=paths, jobs=jobs, memo=memo, seconds=seconds, baseline=baseline,
                    progress=progress, compose=compose).report


def compose_scan(root: Path, label: str | None = None, since: str | None = None,
                 seconds: float | None = DEFAULT_SECONDS, known: set[Key] | None = None,
                 baseline: Baseline | None = None, progress: Callable[[int, int], None] | None = None,
                 jobs: int = 1, paths: set[str] | None = None) -> tuple[Report, ComposeStats]:
    """compose-check: a scan of every shell-family file (scripts, docs, notebooks, workflows) with only the
    compose checker; `+` fixes verified by composing again. `since`: a commit whose config the keys it
    renamed since are fixed from; `known`: failures (path, key, value) not to report, those older than a
    change (bot.engine.drift). `baseline`: as for scan (None: the repository's own, if it has one). `paths`: only
    these files' launches are composed (`--files`), against the whole repository's config."""
    renames = tuple(config_renames(root.resolve(), since)) if since else ()
    options = ComposeOptions(renames, frozenset(known) if known is not None else None)
    scanned = scan_all(root, [], label=label, paths=paths, jobs=jobs, seconds=seconds, baseline=baseline,
                       progress=progress, compose=options, alone=True)
    assert scanned.composed is not None and scanned.stats is not None
    return scanned.composed, scanned.stats


def scan_all(root: Path, rules: list[Rule], *, label: str | None = None, paths: set[str] | None = None,
             jobs: int = 1, memo: Memo | None = None, seconds: float | None = DEFAULT_SECONDS,
             baseline: Baseline | None = None, progress: Callable[[int, int], None] | None = None,
             compose: ComposeOptions | None = None, alone: bool = False) -> Scanned:
    """The one scan: each file read once, by its front end, for every checker the scan runs (the rules'
    evaluator; compose-check with `compose`, over every shell-family file the repository lists, whatever
    `paths`; `alone`: compose-check only, listing only those files, and composing only `paths` where given).

    With a `memo`, files it holds a result for are not checked again by the rules (not when rules compose
    configs: those results depend on the whole config tree; nor is what composing finds ever cached). A
    file that fails or takes longer than `seconds` becomes an error entry; the others are reported.
    `baseline`: findings to silence; None takes the repository's own
    (bot.engine.silence.DEFAULT_BASELINE), if it has one. `progress` is told (files checked, files to
    check) as the check goes.
    """
    if not root.is_dir():
        raise UserError(f"{root}: expected a directory (the repository to scan)")
    enabled = evaluated([r for r in rules if r.enabled])  # a migration's steps in its place
    report = _new_report(root, rules, label, baseline)
    packaging: list[str] = []
    listed = list(sources(root, report.skipped, shell_family() if alone else None, sized=paths, packaging=packaging))
    unlisted = list(report.skipped)  # what the listing left out
    wanted = focus_for(enabled)
    if wanted is not None:
        wanted = replace(wanted, listing=listing_of(listed))
    context = scan_context(root, listed, packaging, enabled, wanted)
    facts = None
    if consults_config(enabled):
        from bot.hydra.config_facts import ConfigFacts

        facts = ConfigFacts(context, context.composer)
    files = [s for s in listed if paths is None or s.path in paths]
    for source in files:
        report.files_scanned += 1
        report.files_by_kind[source.kind] = report.files_by_kind.get(source.kind, 0) + 1
    if not enabled:
        files, report.files_quiet = [], dict(report.files_by_kind)
    reuse = memo if facts is None and files else None
    packages = None
    if reuse is not None and any(is_config(s.kind) for s in files):  # the memo plans with what they are read from
        packages = _layout(root, listed, report)
    todo = files if reuse is None else reuse.plan(root, files, listed, sorted(report.reads), context.consoles_digest)
    held = report.baseline.paths() if report.baseline is not None else set()
    config_dirs: tuple[str, ...] = ()
    yaml_checked = any(is_config(s.kind) for s in todo) or any(is_config(s.kind) and s.path in held for s in files)
    if yaml_checked and schema_differs(enabled):
        config_dirs = app_config_dirs([s for s in listed if names_apps(s.kind)])
    checking = {s.path for s in todo}
    hits = {} if reuse is None else {s.path: hit for s in files if s.path not in checking
                                     and (hit := reuse.hit(s.path)) is not None}
    composing = [s for s in listed if is_shell_family(s.kind) and (not alone or paths is None or s.path in paths)
                 ] if compose is not None else []
    setup = Setup(context, facts, config_dirs, seconds, packages,
                  compose=Composing(compose, report.baseline) if compose is not None else None)
    with Batches(setup, jobs, progress) as batches:
        outcomes, scripts, composed = batches.run(todo, hits, listed, root,
                                                  [s for s in composing if s.path not in checking])
    report.reads.update(batches.layout_reads - {s.path for s in listed})  # included configs git ignores
    setup = replace(setup, packages=batches.packages, compose=None)
    final = _final_outcomes(root, files, outcomes, scripts, setup, reuse, report.baseline, held,
                            lambda: scripts_of(listed, outcomes, wanted))
    for source in files:
        add_outcome(report, final[source.path], source.kind)
    if reuse is not None:
        report.cache = reuse.finish(complete=paths is None)
    report.findings.sort(key=Finding.sort_key)
    report.silenced.sort(key=Finding.sort_key)
    report.errors.sort(key=lambda e: e.path)
    if compose is None:
        return Scanned(report)
    alone_report, stats = compose_report(report, label, context.root, unlisted, composing, composed)
    if alone:
        return Scanned(alone_report, alone_report, stats)
    merge(report, alone_report)
    return Scanned(report, alone_report, stats)


def _new_report(root: Path, rules: list[Rule], label: str | None, baseline: Baseline | None) -> Report:
    return Report(
        repo=label or str(root),
        commit=head_commit(root),
        rules=[RuleInfo(r.id, r.enabled, r.title, r.severity, r.upstream) for r in rules],
        baseline=baseline if baseline is not None else default_baseline(root),
    )


def _final_outcomes(root: Path, files: list[SourceFile], outcomes: dict[str, Outcome], scripts: Scripts | None,
                    setup: Setup, reuse: Memo | None, baseline: Baseline | None, held: set[str],
                    all_scripts: Callable[[], Scripts]) -> dict[str, Outcome]:
    """Each file's outcome as reported: recorded in the memo as the file alone says it, then checked again with
    the baseline where it holds findings of it, and judged again with the run's config edits where Hydra refused
    some of its fixes. `all_scripts`: the scripts' answers, when the batches had none (every caller cached)."""
    final: dict[str, Outcome] = {}
    known = scripts
    for source in files:
        outcome = outcomes[source.path]
        if reuse is not None and reuse.hit(source.path) is None:
            reuse.record(source, outcome)  # what the file alone says: a judgement with the run's config edits is not
        if source.path in held and baseline is not None and _baselined(outcome, baseline):
            # checked again with the baseline, so that no fix of a silenced finding is planned (never cached)
            known = known if known is not None else all_scripts()  # a cached caller
            again = scan_one(source, replace(setup, scripts=known), baseline)
            assert isinstance(again, Outcome)
            outcome = again
        final[source.path] = outcome
    if any(uncomposed(o) for o in final.values()):
        known = known if known is not None else all_scripts()
        _judge_with_config_edits(root, files, final, replace(setup, scripts=known), held, baseline)
    return final


def _judge_with_config_edits(root: Path, files: list[SourceFile], final: dict[str, Outcome], setup: Setup,
                             held: set[str], baseline: Baseline | None) -> None:
    """The files whose fixes Hydra refused, judged again with the config as the run's YAML edits (those
    the run writes, after the baseline) leave it: the edited launches run with the edited config.
    Never cached: the result rests on which other files this run edits."""
    from bot.engine.run_configs import RunConfigs

    configs = RunConfigs(root, final)
    if not configs:
        return
    try:
        for source in files:
            if uncomposed(final[source.path]):
                quiet = baseline if source.path in held else None
                again = scan_one(source, setup, quiet, configs)
                assert isinstance(again, Outcome)
                final[source.path] = again
    finally:
        configs.close()


def uncomposed(outcome: Outcome) -> bool:
    """Whether Hydra refused some of the file's fixes (judged with the config as it is)."""
    return outcome.result is not None and any(f.reason is Reason.UNCOMPOSED for f in outcome.result.findings)


def _layout(root: Path, listed: list[SourceFile], report: Report) -> dict[str, str]:
    """Where Hydra puts each config's keys, from every config's defaults list; the configs git ignores
    that they include join the report's reads."""
    from bot.lang.yaml.config import yaml_packages

    reads: set[str] = set()
    packages = yaml_packages(root, [s.path for s in listed if is_config(s.kind)], reads)
    report.reads.update(reads - {s.path for s in listed})
    return packages


def recheck(root: Path, full: Report, rules: list[Rule]) -> Report:
    """The report a scan with only `rules` would make, cut from `full` (a scan with more rules).

    Their findings are taken as they are, but every file they would change is checked again with
    only them: alone, a fix another rule's fix overlapped is made, and what is verified is their
    edits alone. So a follow-up per rule needs one scan of the repository, not one per rule.
    """
    ids = {r.id for r in rules}
    mine = [f for f in full.findings if f.rule in ids]
    touched = {f.path for f in mine if f.edits or f.reason is not None}
    same = full.baseline if full.baseline is not None else Baseline()  # none: not the default again
    again = scan(root, rules, label=full.repo, paths=touched, baseline=same) if touched else None
    report = replace(full, rules=[r for r in full.rules if r.id in ids],
                     findings=[f for f in mine if f.path not in touched] + (again.findings if again else []),
                     silenced=[f for f in full.silenced if f.rule in ids and f.path not in touched]
                     + (again.silenced if again else []),
                     changes=again.changes if again else [], cache=None)
    report.findings.sort(key=Finding.sort_key)
    report.silenced.sort(key=Finding.sort_key)
    return report


def _baselined(outcome: Outcome, baseline: Baseline) -> bool:
    """Whether the baseline silences findings of this outcome; those without a fix are set aside here.

    True: a silenced finding had a fix, or a fix was refused because of it: check the file again.
    """
    result = outcome.result
    held = [f for f in result.findings if baseline.holds(f)] if result is not None else []
    if result is None or not held:
        return False
    if any(f.edits or f.reason is not None for f in held):
        return True
    for finding in held:
        finding.silenced = BASELINE
    result.findings = [f for f in result.findings if f.silenced is None]
    result.silenced.extend(held)
    return False


_CONFIG_PATH = re.compile(rb"@hydra\.main\([^)]*?config_path\s*=\s*[\"']([^\"']+)[\"']", re.S)


def app_config_dirs(python_files: list[SourceFile]) -> tuple[str, ...]:
    """The config directories `@hydra.main(config_path=...)` apps of the repository compose from."""
    dirs: set[str] = set()
    for source in python_files:
        try:
            data = source.absolute.read_bytes()
        except OSError:
            continue
        if b"hydra.main" not in data:
            continue
        for match in _CONFIG_PATH.finditer(data):
            relative = match.group(1).decode("utf-8", "replace")
            if relative.startswith(("/", "pkg:", "file:")):
                continue
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(source.path), relative))
            if not joined.startswith(".."):
                dirs.add(joined)
    return tuple(sorted(dirs))



__all__ = ["Scanned", "compose_scan", "scan", "scan_all"]
