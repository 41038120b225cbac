"""What a file must hold for the enabled rules to read it (bot.lang.focus), told before any parse."""

from __future__ import annotations

from bot.discover import SourceFile, read_source
from bot.lang import is_callee_script
from bot.lang.focus import Focus, Scripts
from bot.model import Outcome
from bot.rules.model import Rule
from bot.rules.settled import SettledLiterals


def prefilter_tokens(rules: list[Rule]) -> list[bytes] | None:
    tokens: set[bytes] = set()
    for rule in rules:
        rule_tokens = rule.prefilter_tokens()
        if rule_tokens is None:
            return None
        tokens.update(rule_tokens)
    return sorted(tokens)


def focus_for(rules: list[Rule]) -> Focus | None:
    """What a file must hold for the rules to read it (bot.lang.focus); None: every file."""
    tokens = prefilter_tokens(rules)
    return Focus(tuple(tokens), settle=SettledLiterals(rules)) if tokens is not None else None


def scripts_of(listed: list[SourceFile], outcomes: dict[str, Outcome], wanted: Focus | None) -> Scripts:
    """The listed `.sh` scripts and those that hold a token or could not be read (bot.lang.focus).

    Outcomes tell for the files scanned; the others (a `--files` run) are read here.
    """
    def hot(source: SourceFile) -> bool:
        outcome = outcomes.get(source.path)
        if outcome is not None:
            return outcome.holds_token or bool(outcome.skipped) or outcome.error is not None
        data = read_source(source, [])
        return data is None or wanted is None or wanted.holds(data)

    paths = _scripts(listed)
    hot_paths = frozenset(s.path for s in paths if hot(s))
    inputs = {path: frozenset(told) for path in hot_paths if (told := _inputs(outcomes.get(path))) is not None}
    return Scripts(frozenset(s.path for s in paths), hot_paths, _root(listed), inputs)


def listing_of(listed: list[SourceFile]) -> Scripts:
    """The listed scripts, before which of them hold a token is known (Focus.listing)."""
    return Scripts(frozenset(s.path for s in _scripts(listed)), frozenset(), _root(listed))


def _scripts(listed: list[SourceFile]) -> list[SourceFile]:
    return [s for s in listed if is_callee_script(s.kind, s.path)]


def _root(listed: list[SourceFile]) -> str | None:
    return str(listed[0].root) if listed else None


def _inputs(outcome: Outcome | None) -> tuple[str, ...] | None:
    """The variables a checked script's callers can hand it, when it was read whole."""
    if outcome is None or outcome.error is not None or outcome.skipped or outcome.result is None:
        return None
    return outcome.result.inputs


__all__ = ["focus_for", "listing_of", "prefilter_tokens", "scripts_of"]
