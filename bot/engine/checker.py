"""Checking one file: what its bytes tell (screen), then parse, evaluate and verified edits (scan_one)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from bot.discover import SourceFile, read_source
from bot.engine.check import check_file, rules_for
from bot.engine.isolation import isolated
from bot.lang.focus import Calls, Focus, Scripts, may_call_script, may_run_hot, script_calls
from bot.lang.kinds import YAML
from bot.model import Baseline, Outcome, Skipped
from bot.rules.evaluate import LaunchFacts
from bot.rules.model import Rule

if TYPE_CHECKING:
    from bot.engine.context import EngineContext
    from bot.engine.run_configs import RunConfigs


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


@dataclass
class Waiting:
    """A caller screened before the scripts that hold a token are known: its `outcome` should none of
    the scripts its `calls` name hold one (bot.engine.batches)."""

    outcome: Outcome
    calls: Calls


def screen(source: SourceFile, focus: Focus | None) -> tuple[Outcome | Waiting | None, bytes | None]:
    """What the file's bytes tell before any parse: (its outcome, None) when that is all, (a Waiting,
    None) or (None, None) without the listing when it waits for the scripts (`focus.scripts`), (the
    outcome so far, the bytes) when it must be checked.

    The paths the focus looked for on disk (scripts the listing lacks) join the outcome's `looked_up`.
    """
    outcome = Outcome(source.path)
    data = read_source(source, outcome.skipped)
    if data is None:
        return outcome, None
    outcome.holds_token = focus is None or focus.holds(data, source.kind)
    if not outcome.holds_token:
        assert focus is not None
        if not may_call_script(source.kind, data):
            return outcome, None
        outcome.by_callees = True
        if focus.scripts is None:
            if focus.listing is None:
                return None, None
            calls = script_calls(data, source.path, focus.listing)
            outcome.looked_up = calls.looked
            return Waiting(outcome, calls), None
        if not may_run_hot(data, source.path, focus.scripts, whole=True, looked=focus.looked):
            outcome.looked_up = tuple(focus.looked)
            return outcome, None
    return outcome, data


def scan_one(source: SourceFile, setup: Setup, baseline: Baseline | None = None,
             configs: RunConfigs | None = None) -> Outcome | Waiting | None:
    """One file's outcome. A file whose worth depends on the scripts it may run is left for later
    (a Waiting, or None without the listing) until `setup.scripts`, the listed scripts and which of them
    hold a token, are known. `configs`: the config as the run's edits leave it (bot.engine.run_configs)."""
    context = setup.context
    wanted = context.focus
    focus = replace(wanted, scripts=setup.scripts, looked=[]) if wanted is not None else None
    outcome, data = screen(source, focus)
    if outcome is None or data is None or isinstance(outcome, Waiting):
        return outcome
    file_rules = rules_for(source.path, list(context.rules))
    if source.kind == YAML and any(source.path.startswith(d + "/") for d in setup.config_dirs):
        file_rules = schema_rules(file_rules)
    if file_rules:
        work = partial(check_file, source.path, data, file_rules, setup.facts, kind=source.kind,
                       packages=setup.packages, context=context, baseline=baseline, focus=focus, configs=configs)
        result, outcome.error = isolated(source.path, "checking", work, setup.seconds)
        if result is None:
            assert outcome.error is not None
            outcome.error = replace(outcome.error, rules=tuple(r.id for r in file_rules if _may_match(r, data)))
            return outcome
        outcome.result = result
        outcome.looked_up = tuple(focus.looked) if focus is not None else ()
        if result.unreadable:
            outcome.skipped.append(Skipped(source.path, result.unreadable))
    return outcome


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


__all__ = ["Waiting", "scan_one", "schema_differs", "schema_rules", "screen"]
