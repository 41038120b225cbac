"""The config as a scan's own YAML edits leave it: every rule's edits, or one rule's.

The compose judge (bot.compose.judge) composes a launch with one rule's fixes against the
config as that rule's config edits leave it, and with every rule's fixes against the config as all
of them leave it: a rule is not blamed for a key another rule removes from the config.
"""

from __future__ import annotations

from pathlib import Path

from bot.engine.edits import apply_edits, unique_edits
from bot.hydra.shadow import ConfigShadow
from bot.lang import is_config
from bot.model import Outcome, Status

EVERY_RULE = ""


class RunConfigs:
    """Edited copies of the config, made per rule (or for every rule) when the judge first asks."""

    def __init__(self, root: Path, outcomes: dict[str, Outcome]) -> None:
        self.root = root
        self.edits: dict[str, dict[str, bytes]] = {}  # rule (EVERY_RULE: all) -> YAML path -> bytes after
        for path, outcome in outcomes.items():
            result = outcome.result
            if result is None or result.change is None or not is_config(result.kind):
                continue
            self.edits.setdefault(EVERY_RULE, {})[path] = result.change.after
            fixed = [f for f in result.findings if f.status is Status.FIXABLE and f.edits]
            for rule in sorted({f.rule for f in fixed}):
                mine = unique_edits([f for f in fixed if f.rule == rule])
                self.edits.setdefault(rule, {})[path] = apply_edits(result.change.before, mine)
        self._shadows: dict[str, ConfigShadow] = {}

    def __bool__(self) -> bool:
        return bool(self.edits)

    def shadow(self, rule: str = EVERY_RULE) -> ConfigShadow | None:
        """The config as `rule`'s edits leave it (EVERY_RULE: all of them); None when it edits none."""
        if rule not in self.edits:
            return None
        if rule not in self._shadows:
            self._shadows[rule] = ConfigShadow(self.root, self.edits[rule])
        return self._shadows[rule]

    def close(self) -> None:
        for shadow in self._shadows.values():
            shadow.close()
        self._shadows.clear()
