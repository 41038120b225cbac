"""Literal settings no enabled rule can report: `TOKEN=LITERAL` where every rule keyed by TOKEN finds the
value fine (`use_mbridge=True` under a rule asking for True).

A file whose every token is written so needs no parse (bot.lang.focus): a match rule reports a setting
only when its value test does not fail, and the test reads nothing but the value. Rules that add keys,
relate keys or move entry points report by what is absent or elsewhere, so their tokens never settle.
"""

from __future__ import annotations

from bot.hydra.grammar import HydraSyntaxError, parse_override
from bot.ir import Setting, State
from bot.rules.matching import value_matches
from bot.rules.model import Rule


class SettledLiterals:
    """Which `TOKEN=LITERAL` texts (a bare Hydra literal: letters, digits, `_`, `.`, `-`) can be no finding."""

    def __init__(self, rules: list[Rule]) -> None:
        by_token: dict[bytes, list[Rule]] = {}
        for rule in rules:
            for token in rule.prefilter_tokens() or ():
                by_token.setdefault(token, []).append(rule)
        self._rules = {token: tuple(listed) for token, listed in by_token.items() if all(map(_value_gated, listed))}
        self.tokens = frozenset(self._rules)
        self._known: dict[tuple[bytes, str], bool] = {}

    def settled(self, token: bytes, literal: str) -> bool:
        known = self._known.get((token, literal))
        if known is None:
            known = self._known[(token, literal)] = self._settled(token, literal)
        return known

    def _settled(self, token: bytes, literal: str) -> bool:
        rules = self._rules.get(token)
        if not rules:
            return False
        try:
            parsed = parse_override(f"{token.decode()}={literal}")
        except (HydraSyntaxError, UnicodeDecodeError):
            return False
        setting = Setting(token.decode(), "", literal, parsed.value, State.STATIC, 0, 0)
        return all(value_matches(rule, setting) is False for rule in rules)


def _value_gated(rule: Rule) -> bool:
    """A rule that reports a setting of its keys only for some values, and nothing else."""
    fix = rule.fix
    return bool(rule.match_key) and not rule.ensure and rule.relation is None and not (fix and fix.entrypoint)


__all__ = ["SettledLiterals"]
