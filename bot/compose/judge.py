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
from dataclasses import dataclass
from typing import Protocol

from bot.compose.context import ComposeContext
from bot.compose.readings import Reading, Run, describe, elided, failures, in_run, readings, sweep_runs
from bot.hydra.app import AppProblem, HydraApp, resolve_app
from bot.hydra.compose import Composer
from bot.hydra.messages import in_repository_terms
from bot.hydra.shadow import ConfigShadow
from bot.hydra.source import NotComposed
from bot.ir import Launch, Override
from bot.lang import launch_reader, may_launch
from bot.lang.front import LaunchReader
from bot.lang.kinds import SHELL
from bot.model import Finding, Reason, Status


class ConfigEdits(Protocol):
    """The config as a run's own YAML edits leave it (bot.engine.run_configs.RunConfigs)."""

    def shadow(self, rule: str = "") -> ConfigShadow | None: ...  # one rule's edits ("": every rule's)


Judged = tuple[int, dict[int, str], set[int]]  # launches, Hydra's first message for each failing, those not composed


def _failures(context: ComposeContext, reader: LaunchReader, data: bytes,
              shadow: ConfigShadow | None = None) -> Judged:
    """(launches, Hydra's first message per launch that does not compose, the launches not composed: no app
    found, a doc's elided launch, a sweep not composed) for the file's bytes; `shadow`: composed with the
    config as the run's edits leave it."""
    found = _launches(reader, data)
    kind = reader.kind
    if found is None:
        return -1, {}, set()
    composer = context.composer  # one per scan: composed bases are shared between files
    failing: dict[int, str] = {}
    unjudged: set[int] = set()
    for index, (launch, line) in enumerate(found):
        app = resolve_app(context, launch, explain=False)
        runs = [] if isinstance(app, AppProblem) or elided(kind, launch) else sweep_runs(launch)[0]
        if isinstance(app, AppProblem) or not runs:
            unjudged.add(index)
            continue
        app = shadow.app(app) if shadow is not None else app
        problem = _first_failure(launch, app, composer, runs)
        if problem is not None:
            reading, override, message = problem
            where = f"{override.prefix}{override.key}: " if override is not None else ""
            message = shadow.originals(message) if shadow is not None else message
            message = in_repository_terms(message, context.root)
            failing[index] = f"line {line}{describe(reading)}: {where}{message}"
    return len(found), failing, unjudged


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
    composes to now."""
    count, failing, unjudged = known if known is not None else _failures(context, reader, before)
    count_after, failing_after, _ = _failures(context, reader, after, shadow)
    if count_after != count:
        return []  # the edits moved launches: nothing to pair them with (verify judges the shell)
    return [message for index, message in sorted(failing_after.items())
            if index not in failing and index not in unjudged]


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
    before = _failures(context, reader, data)
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
