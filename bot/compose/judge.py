"""Every edit composes: a launch that composes before the bot's edits must compose after them.

Hydra is the judge: each launch of the file whose app is found in the repository is composed
(bot.hydra.compose) once per way through the script's branches (bot.compose.readings), before and
after the edits. The launches are read by the file's own front end (its LaunchReader), so the edited
text the verification reads again is parsed once for both.
A rule whose edits alone make a composing launch fail keeps none of them in that file: its
findings become manual, quoting Hydra. Launches that did not compose before are not judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from bot.compose.context import ComposeContext
from bot.compose.readings import Reading, Run, describe, elided, failures, in_run, readings, sweep_runs
from bot.hydra.app import AppProblem, HydraApp, resolve_app
from bot.hydra.compose import Composer
from bot.hydra.messages import in_repository_terms
from bot.hydra.shadow import ConfigShadow
from bot.hydra.source import NotComposed
from bot.ir import Launch, Override, Way, Ways
from bot.lang import launch_reader, may_launch
from bot.lang.front import LaunchReader
from bot.lang.kinds import SHELL
from bot.model import Finding, Reason, Status


class ConfigEdits(Protocol):
    """The config as a run's own YAML edits leave it (bot.engine.run_configs.RunConfigs)."""

    def shadow(self, rule: str = "") -> ConfigShadow | None: ...  # one rule's edits ("": every rule's)


UNJUDGED = "\0unjudged"  # a launch not composed: no app found, a doc's elided launch, a sweep not composed


@dataclass
class Judged:
    """A text's launches (None: the bytes do not read as their kind), each composed only when the judge asks
    about it (`verdict`), at most once; `shadow`: composed with the config as the run's edits leave it."""

    context: ComposeContext
    kind: str
    found: list[tuple[Launch, int]] | None
    shadow: ConfigShadow | None = None
    verdicts: dict[int, str | None] = field(default_factory=dict)  # index -> Hydra's message, None: composes
    apps: dict[int, HydraApp | AppProblem] = field(default_factory=dict)
    composed: int = 0  # launches composed: what the judge asked Hydra

    @property
    def count(self) -> int:
        return -1 if self.found is None else len(self.found)

    def app(self, index: int) -> HydraApp | AppProblem:
        assert self.found is not None
        if index not in self.apps:
            self.apps[index] = resolve_app(self.context, self.found[index][0], explain=False)
        return self.apps[index]

    def verdict(self, index: int) -> str | None:
        """Hydra's first message for the launch (`line N: ...`), None when it composes, UNJUDGED."""
        if index not in self.verdicts:
            self.verdicts[index] = self._verdict(index)
        return self.verdicts[index]

    def _verdict(self, index: int) -> str | None:
        assert self.found is not None
        launch, line = self.found[index]
        app = self.app(index)
        runs = [] if isinstance(app, AppProblem) or elided(self.kind, launch) else sweep_runs(launch)[0]
        if isinstance(app, AppProblem) or not runs:
            return UNJUDGED
        shadow = self.shadow
        app = shadow.app(app) if shadow is not None else app
        self.composed += 1
        problem = _first_failure(launch, app, self.context.composer, runs)
        if problem is None:
            return None
        reading, override, message = problem
        where = f"{override.prefix}{override.key}: " if override is not None else ""
        message = shadow.originals(message) if shadow is not None else message
        message = in_repository_terms(message, self.context.root)
        return f"line {line}{describe(reading)}: {where}{message}"


def judged(context: ComposeContext, reader: LaunchReader, data: bytes, shadow: ConfigShadow | None = None) -> Judged:
    """The launches of a file's bytes, as the judge asks Hydra about them (none composed yet)."""
    return Judged(context, reader.kind, _launches(reader, data), shadow)


def _same(before: Judged, after: Judged, index: int) -> bool:
    """Whether the edits leave the launch as it was: its words, its overrides in every way through its branches,
    its app, and none of its app's config files edited by the run (the shadow). Such a launch keeps its
    verdict: it is not composed on either side."""
    assert before.found is not None and after.found is not None
    app = before.app(index)
    if app != after.app(index):
        return False
    if isinstance(app, AppProblem):
        return True  # no app on either side: neither is composed, whatever the edits did to its words
    old, new = before.found[index][0], after.found[index][0]
    if launch_words(old) != launch_words(new) or launch_ways(old) != launch_ways(new):
        return False  # the ways through the branches, dearer to work out, only for launches of the same words
    return after.shadow is None or after.shadow.app(app) is app


def launch_words(launch: Launch) -> tuple[object, ...]:
    """What composing a launch reads of its own words, wherever it stands in the text: its entry, flags and
    words, and its overrides (positions left out, shared words kept as shared)."""
    fixed = (launch.entry, launch.entry_kind, launch.launcher, launch.config_path, launch.config_name,
             launch.config_dir, launch.config_names, launch.config_runtime, launch.config_path_dir, launch.workdir,
             launch.entry_base, launch.source_path, launch.console_target, launch.multirun, launch.caller_args,
             launch.args, launch.branch, launch.function)
    return fixed, _overrides(launch.overrides)


def launch_ways(launch: Launch) -> tuple[object, ...]:
    """The overrides of each way through the launch's branches, and the variables they read."""
    ways = launch.handle.ways() if launch.handle is not None else Ways([Way("", launch.overrides)], 1)
    return ways.total, tuple(
        (way.label, _overrides(way.overrides), tuple(sorted(way.variables.items())),
         tuple(way.variable_of.get(id(o)) for o in way.overrides)) for way in ways.items)


def _overrides(overrides: list[Override]) -> tuple[object, ...]:
    """The overrides as Hydra gets them; an override that shares its word with an earlier one (alternatives
    of one word in the branches) is given as that one's index."""
    first: dict[object, int] = {}
    out: list[object] = []
    for index, o in enumerate(overrides):
        shared = first.setdefault(o.key_span, index) if o.key_span is not None else index
        out.append((o.key, o.prefix, o.package, o.written, o.value_written, o.literal, o.text, repr(o.value),
                    o.state, shared))
    return tuple(out)


def _first_failure(launch: Launch, app: HydraApp, composer: Composer,
                   runs: list[Run]) -> tuple[Reading, Override | None, str] | None:
    """The first way through the branches, in the first run of its sweeps, where the launch fails (or is not
    composed: a broken config, a config file that is not the repository's, which then judges nothing)."""
    for branch in readings(launch, app, composer):
        if branch.unchecked is not None:
            continue
        for reading in (in_run(branch, run) for run in runs):
            try:
                problems = failures(reading, launch, app, composer)
            except NotComposed as exc:
                return reading, None, f"not composed: {exc}"
            if problems:
                return reading, *problems[0]
    return None


def _launches(reader: LaunchReader, data: bytes) -> list[tuple[Launch, int]] | None:
    """Each launch of a shell-family file (a doc's blocks, a notebook's cells, a workflow's steps), with its
    line in the file; None when the bytes do not read as their kind."""
    try:
        views = reader.launch_views(data)
    except ValueError:
        return None
    return [(launch, view.view.file_line(launch.start, data)) for view in views for launch in view.launches]


@dataclass(frozen=True)
class LaunchOutcome:
    """What Hydra said of one launch of a file, before and after the edits."""

    line: int  # in the edited file
    entry: str  # the module or script it runs
    ways: int  # ways through the script's branches composed
    before: str  # "composes" | "fails: <Hydra's message>" | "not composed: <why>"
    after: str


def launch_outcomes(context: ComposeContext, path: str, before: bytes, after: bytes) -> list[LaunchOutcome]:
    """Each launch the edits reach, composed before and after them (launches paired by position)."""
    reader = launch_reader(path, SHELL, context)
    old, new = ([launch for view in reader.launch_views(data) for launch in view.launches] for data in (before, after))
    if len(old) != len(new):
        return []
    composer = context.composer
    out: list[LaunchOutcome] = []
    for launch_before, launch_after in zip(old, new):
        if [o.written for o in launch_before.overrides] == [o.written for o in launch_after.overrides]:
            continue  # the edits do not reach this launch
        app = resolve_app(context, launch_after)
        entry = launch_after.entry or "?"
        if isinstance(app, AppProblem):
            out.append(LaunchOutcome(launch_after.line, entry, 0, f"not composed: {app.reason}",
                                     f"not composed: {app.reason}"))
            continue
        ways, first = _verdict(launch_before, app, composer)
        _, then = _verdict(launch_after, app, composer)
        out.append(LaunchOutcome(launch_after.line, entry, ways, first, then))
    return out


def _verdict(launch: Launch, app: HydraApp, composer: Composer) -> tuple[int, str]:
    runs, unswept = sweep_runs(launch)
    if not runs:
        return 0, f"not composed: {unswept}"
    ways = [r for r in readings(launch, app, composer) if r.unchecked is None]
    problem = _first_failure(launch, app, composer, runs)
    if problem is not None:
        reading, override, message = problem
        where = f"{override.prefix}{override.key}: " if override is not None else ""
        return len(ways), f"fails{describe(reading)}: {where}{message}"
    return len(ways), "composes" if ways else "not composed: no way through its branches could be read"


def newly_failing(context: ComposeContext, reader: LaunchReader, before: bytes, after: bytes,
                  known: Judged | None = None, shadow: ConfigShadow | None = None) -> list[str]:
    """Hydra's messages for the launches that compose with `before` and not with `after` (with the config
    as the run's edits leave it, given a `shadow`), read by the file's front end (`reader`). A launch not
    composed before is not judged: one whose entry point an edit moves ran nothing before, whatever it
    composes to now. Only the launches the edits change (or whose config files the run edits) are composed:
    the others keep their verdict. `known`: the launches of `before`, with what was asked of them already."""
    old = known if known is not None else judged(context, reader, before)
    new = judged(context, reader, after, shadow)
    if new.count != old.count:
        return []  # the edits moved launches: nothing to pair them with (verify judges the shell)
    out: list[str] = []
    for index in range(new.count):
        if _same(old, new, index):
            continue
        then = new.verdict(index)
        if then is not None and then != UNJUDGED and old.verdict(index) is None:
            out.append(then)
    return out


def keep_composing(context: ComposeContext, reader: LaunchReader, data: bytes, findings: list[Finding],
                   edited: Callable[[list[Finding]], bytes], configs: ConfigEdits | None = None) -> bool:
    """Take back, rule by rule, the fixes that would make one of the file's launches stop composing.

    `reader`: the file's front end, which reads its launches; `edited`: the text these findings' fixes make;
    `configs`: the config as the run's own config edits leave it, which the edited launches run with
    (bot.engine.scan judges again with it the files whose fixes were taken back): one rule's fixes
    with that rule's config edits, all of them together with all of them.
    True when Hydra was asked (the result then depends on the repository's config tree).
    """
    fixable = [f for f in findings if f.status is Status.FIXABLE]
    if not any(f.edits for f in fixable) or not may_launch(data, context.consoles):
        return False
    before = judged(context, reader, data)
    every = configs.shadow() if configs is not None else None
    if not newly_failing(context, reader, data, edited(findings), before, every):
        return True
    rules = sorted({f.rule for f in fixable})
    for rule in rules:
        mine = [f for f in findings if f.rule == rule and f.status is Status.FIXABLE]
        shadow = configs.shadow(rule) if configs is not None else None
        broken = newly_failing(context, reader, data, edited(mine), before, shadow)
        for finding in mine if broken else []:
            finding.make_manual(f"not edited: {_nearest(finding, broken)}", Reason.UNCOMPOSED)
    left = [f for f in findings if f.status is Status.FIXABLE]
    together = any(f.edits for f in left)
    broken = newly_failing(context, reader, data, edited(left), before, every) if together else []
    for finding in left if broken else []:
        finding.make_manual(f"not edited: with the other rules' fixes {_nearest(finding, broken)}",
                            Reason.UNCOMPOSED)
    return True


def _nearest(finding: Finding, messages: list[str]) -> str:
    """Which launch would no longer compose, and Hydra's message: the finding's own when it is one of them
    (the launch its lines are in), else the first of the others."""
    starts = [(int(m.group(1)), message) for message in messages if (m := _LINE.match(message))]
    scope = finding.scope or ((finding.line, finding.line),)
    own = [message for line, message in starts if any(first <= line <= last for first, last in scope)]
    if own:
        return f"the launch would no longer compose ({own[0]})"
    return f"another launch its rule edits would no longer compose ({messages[0]})"


_LINE = re.compile(r"line (\d+)")
