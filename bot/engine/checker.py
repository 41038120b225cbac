"""Checking one file: what its bytes tell (screen), then each checker on the one reading of it (check_one):
the rules' evaluator when the file holds anything for them (scan_one), compose-check when the scan composes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from bot.compose.checker import Composed, ComposeOptions
from bot.compose.findings import RULE_ID
from bot.discover import SourceFile, read_source
from bot.engine.check import check_file, compose_file, rules_for
from bot.engine.isolation import isolated
from bot.hydra.messages import in_repository_terms
from bot.lang import front_end, is_config, is_shell_family, launch_reader, may_launch
from bot.lang.focus import Calls, Focus, Scripts, Trees, may_call_script, may_run_hot, script_calls
from bot.lang.front import FrontEnd
from bot.model import Baseline, Outcome, Skipped
from bot.rules.evaluate import LaunchFacts
from bot.rules.model import Rule

if TYPE_CHECKING:
    from bot.engine.context import EngineContext
    from bot.engine.run_configs import RunConfigs


@dataclass(frozen=True)
class Composing:
    """compose-check in a scan: its options, and the baseline its findings are silenced with (the scan's:
    what composing finds is never cached, so it needs no second check with the baseline)."""

    options: ComposeOptions
    baseline: Baseline | None


@dataclass(frozen=True)
class Setup:
    """What checking a file reads besides the file: the scan's context (its rules, focus, console scripts,
    Hydra caches), and what the scan learns as it goes (the packages, the scripts). The same in every
    worker: the fork hands it over, and Forks.broadcast each change."""

    context: EngineContext
    facts: LaunchFacts | None
    config_dirs: tuple[str, ...]
    seconds: float | None
    packages: dict[str, str] | None = None
    scripts: Scripts | None = None
    compose: Composing | None = None  # the scan composes every shell-family file's launches


@dataclass
class Waiting:
    """A caller screened before the scripts that hold a token are known: its `outcome` should none of
    the scripts its `calls` name hold one (bot.engine.batches)."""

    outcome: Outcome
    calls: Calls


def screen(source: SourceFile, focus: Focus | None,
           trees: Trees | None = None) -> tuple[Outcome | Waiting | None, bytes | None, bool]:
    """What the file's bytes tell before it is read: (its outcome so far, a Waiting, or None without the listing
    when it waits for the scripts (`focus.scripts`); its bytes, None when they cannot be read; whether the
    rules check it). `trees`: the file's front end's parses, which a script's settled literals are told with.

    The paths the focus looked for on disk (scripts the listing lacks) join the outcome's `looked_up`.
    """
    outcome = Outcome(source.path)
    data = read_source(source, outcome.skipped)
    if data is None:
        return outcome, None, False
    outcome.holds_token = focus is None or focus.holds(data, source.kind, trees)
    if not outcome.holds_token:
        assert focus is not None
        if not may_call_script(source.kind, data):
            return outcome, data, False
        outcome.by_callees = True
        if focus.scripts is None:
            if focus.listing is None:
                return None, data, False
            calls = script_calls(data, source.path, focus.listing)
            outcome.looked_up = calls.looked
            return Waiting(outcome, calls), data, False
        if not may_run_hot(data, source.path, focus.scripts, whole=True, looked=focus.looked):
            outcome.looked_up = tuple(focus.looked)
            return outcome, data, False
    return outcome, data, True


Checked = tuple[Outcome | Waiting | None, Composed | None]  # the rules' outcome, what composing gave


def scan_one(source: SourceFile, setup: Setup, baseline: Baseline | None = None,
             configs: RunConfigs | None = None) -> Outcome | Waiting | None:
    """The rules' outcome of one file (a second check of it: with the baseline, with the run's config edits);
    see check_one."""
    return check_one(source, setup, baseline, configs, composing=False)[0]


def check_one(source: SourceFile, setup: Setup, baseline: Baseline | None = None,
              configs: RunConfigs | None = None, composing: bool = True) -> Checked:
    """One file's outcome, and what composing its launches gave when the scan composes (`setup.compose`), from
    one reading of it: the checkers share its front end, so each text is parsed once.

    A file whose worth depends on the scripts it may run is left for later (a Waiting, or None without the
    listing) until `setup.scripts`, the listed scripts and which of them hold a token, are known; it is
    composed at once (`composing`: False when it was). `configs`: the config as the run's edits leave it
    (bot.engine.run_configs)."""
    context = setup.context
    wanted = context.focus
    focus = replace(wanted, scripts=setup.scripts, looked=[]) if wanted is not None else None
    family = is_shell_family(source.kind)  # one front end reads it: a text parsed for one reader serves them all
    front = front_end(source.path, source.kind, context, setup.packages, focus) if family else None
    outcome, data, check = screen(source, focus, launch_reader(source.path, source.kind, context, front).tree
                                  if front is not None else None)
    composes = composing and setup.compose is not None and family
    if outcome is None or isinstance(outcome, Waiting):  # composed now, from the parse the screen may have made
        return outcome, _compose(source, data, [], setup, front) if composes else None
    read = list(outcome.skipped)  # why the bytes could not be read, if they could not
    file_rules = rules_for(source.path, list(context.rules)) if check else []
    if is_config(source.kind) and any(source.path.startswith(d + "/") for d in setup.config_dirs):
        file_rules = schema_rules(file_rules)
    if front is None and data is not None and file_rules:
        front = front_end(source.path, source.kind, context, setup.packages, focus)
    if data is not None and file_rules:
        work = partial(check_file, source.path, data, file_rules, setup.facts, kind=source.kind,
                       packages=setup.packages, context=context, baseline=baseline, focus=focus, configs=configs,
                       front=front)
        result, outcome.error = isolated(source.path, "checking", work, setup.seconds)
        if result is None:
            assert outcome.error is not None
            outcome.error = replace(outcome.error, rules=tuple(r.id for r in file_rules if _may_match(r, data)))
        else:
            outcome.result = result
            outcome.looked_up = tuple(focus.looked) if focus is not None else ()
            if result.unreadable:
                outcome.skipped.append(Skipped(source.path, result.unreadable))
    return outcome, _compose(source, data, read, setup, front) if composes else None


def compose_one(setup: Setup, source: SourceFile) -> Composed:
    """What composing one file's launches gave, for a file the rules do not read in this scan (a cached result,
    one `--files` does not name, every file of compose-check alone)."""
    skipped: list[Skipped] = []
    return _compose(source, read_source(source, skipped), skipped, setup, None)


def _compose(source: SourceFile, data: bytes | None, skipped: list[Skipped], setup: Setup,
             front: FrontEnd | None) -> Composed:
    """compose-check on one file, isolated as its own step ("composing": its error entry is its own, beside the
    rules'); `front`: the file's front end, shared with the rules' check."""
    assert setup.compose is not None
    context = setup.context
    composed = Composed(source.path, source.kind, skipped=skipped)
    if data is None:
        return composed
    if not may_launch(data, context.consoles):
        composed.quiet = True
        return composed
    work = partial(compose_file, source.path, data, context, setup.compose.options, kind=source.kind,
                   baseline=setup.compose.baseline, front=front)
    with context.composer.counting() as stats:
        composed.result, error = isolated(source.path, "composing", work, setup.seconds)
    composed.stats = stats
    if error is not None:  # nothing of the file is reported: neither its launches nor those not composed
        stats.launches = stats.readings = 0
        stats.unresolved.clear()
        composed.error = replace(error, reason=in_repository_terms(error.reason, context.root), rules=(RULE_ID,))
    elif composed.result is not None and composed.result.unreadable:
        composed.skipped.append(Skipped(source.path, composed.result.unreadable))
    return composed


def schema_rules(rules: list[Rule]) -> list[Rule]:
    """The rules for an app's own config tree (its config directories), the schema launches override:
    values are fixed there, keys not added."""
    return [replace(r, ensure=()) for r in rules if r.match_key or r.relation is not None]


def schema_differs(rules: list[Rule]) -> bool:
    """Whether schema_rules reads differently from `rules`: if not, the config directories need not be known."""
    return any(r.ensure or not (r.match_key or r.relation is not None) for r in rules)


def _may_match(rule: Rule, data: bytes) -> bool:
    """Whether the file holds the rule's literal tokens (a rule without tokens may match anywhere)."""
    tokens = rule.prefilter_tokens()
    return tokens is None or any(t in data for t in tokens)


__all__ = ["Checked", "Composing", "Waiting", "check_one", "compose_one", "scan_one", "schema_differs", "schema_rules",
           "screen"]
