"""Each launch of a view composed with the repository's config, once per way through its branches and
run of its sweeps: each override Hydra would reject is a finding of the built-in rule `hydra-compose`
with Hydra's own message (bot.compose.findings); why a launch is not composed is counted apart.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from bot.compose import doc_refusals
from bot.compose.context import ComposeContext
from bot.compose.findings import chosen_by_caller, failure_finding, launch_finding, override_finding
from bot.compose.readings import Reading, Run, describe, elided, failures, in_run, readings, sweep_runs
from bot.hydra.app import AppProblem, HydraApp, entry_path, resolve_app
from bot.hydra.argparse_gate import argparse_failure
from bot.hydra.compose import Composer
from bot.hydra.renames import Rename
from bot.hydra.source import ConfigBroken, NotComposed
from bot.ir import Launch, Override
from bot.lang import is_document
from bot.lang.kinds import SHELL
from bot.model import Finding

_NOT_LOADED = re.compile(r"Could not load '([^']+)'")  # a defaults entry that names no file


def check_script(path: str, context: ComposeContext, launches: list[Launch],
                 renames: list[Rename] | None = None, kind: str = SHELL) -> list[Finding]:
    """Each launch (of one view of a file: bot.lang.front.LaunchView) composed once per way through its
    branches (bot.compose.readings); `kind`: the file's (in a doc, `...` stands for arguments left out)."""
    findings: list[Finding] = []
    reported: set[object] = set()
    composer = context.composer
    for launch in launches:
        composer.stats.launches += 1
        app = resolve_app(context, launch)
        failure = app.failure if isinstance(app, AppProblem) else argparse_failure(
            context, launch, entry_path(context, launch))
        # a doc's launch illustrates: not judged, but where its own parser refuses a word written out
        if failure is not None and (not is_document(kind) or (
                (isinstance(app, HydraApp) or app.refused is not None) and doc_refusals.judged(context, launch, app))):
            findings.append(failure_finding(path, launch, app.config_name if isinstance(app, HydraApp) else None,
                                            failure))
            continue
        if isinstance(app, AppProblem):
            composer.stats.unresolved.append((path, launch.line, app.reason))
            continue
        if failure is not None:
            composer.stats.unresolved.append((path, launch.line, f"argparse refuses its words before Hydra "
                                                                 f"composes ({failure}); in a doc, not judged"))
            continue
        if elided(kind, launch):
            composer.stats.unresolved.append((path, launch.line, "the doc leaves some of its arguments out (`...`)"))
            continue
        runs, unswept = sweep_runs(launch)
        if unswept is not None:
            composer.stats.unresolved.append((path, launch.line, ("partly checked: " if runs else "") + unswept))
            if not runs:
                continue
        # the repository's structured configs, where they are read; a stand-in for one it names at run time
        with context.stored.put_in(), composer.computing(context.stored.computed):
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
                    chosen_by_caller(finding, app, override.key, message, launch, context.apps)
            if len(where) < composed:  # not in every way the script runs: name the one
                finding.message += describe(where[0])
            finding.scope = (launch.lines,)
            findings.append(finding)
    return findings


def _compose_runs(path: str, context: ComposeContext, launch: Launch, app: HydraApp,
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
            composer.set_aside.clear()
            try:
                failed = failures(reading, launch, app, composer)
            except NotComposed as exc:  # whatever the launch says: not its finding
                why = (path, launch.line, _not_composed(context.root, exc, composer))
                if why not in composer.stats.unresolved:
                    composer.stats.unresolved.append(why)
                continue
            for aside, missing in composer.set_aside:
                why = (path, launch.line, f"{aside.key} is set under the empty stand-in for {missing}, which "
                                          "the repository registers under a name it computes when it runs "
                                          f"({context.stored.computed(missing)}): its schema is not read")
                if why not in composer.stats.unresolved:
                    composer.stats.unresolved.append(why)
            for override, message in failed:
                stored = _NOT_LOADED.search(message)
                if stored is not None and context.stored.may_register(stored.group(1)):
                    unread = context.stored.unread(stored.group(1))
                    why = (path, launch.line, f"its config names {stored.group(1)}, which the repository "
                                              "registers in Hydra's ConfigStore when it runs"
                                              + (f" ({unread})" if unread else ""))
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
