"""A launch's overrides other than its config-group choices, applied to a composed base as Hydra applies them.

The compose index (bot.hydra.compose_index) reads off the base whether each override composes; where it is
certain every one does, nothing is copied or applied; where it is certain of each and some fail, those are
applied to a copy of the base with Hydra's own override logic, which confirms them and gives the messages.
Where it is not sure, the whole list is applied in turn, as Hydra applies it. On a base composed as plain data
(bot.hydra.plain_compose) the plain index decides (plain_said), and a failure it is sure of is confirmed by
Hydra's override logic on the mappings on the way to its key alone (confirmed): no base is composed by Hydra.
Under CROSS_CHECK (dev only: the real-world check sets it) every list the index decides is applied as well,
and a verdict Hydra does not share raises IndexDisagreement, which the run reports as an internal error of
the file whose launch it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.hydra.compose_index import FAIL, verdicts

CROSS_CHECK = "BOT_COMPOSE_INDEX_CROSS_CHECK"  # dev only: "1" applies every list the index decides too


class IndexDisagreement(AssertionError):
    """The compose index and Hydra disagree on a launch's overrides (checked only under CROSS_CHECK)."""


@dataclass
class ComposerCounts:
    """What a composer did, for tests and benchmarks (never in a report): Hydra's compositions, override lists
    applied to a copy of a base, and lists the compose index passed without one."""

    hydra_composes: int = 0
    plain_composes: int = 0  # bases composed as plain data (bot.hydra.plain_compose)
    applied: int = 0
    confirmed: int = 0  # failing overrides confirmed on the mappings on the way to their key (Applied.confirmed)
    indexed: int = 0


def message_of(exc: BaseException) -> str:
    """Hydra's message on one line, with its cause's when it does not say it already."""
    text = str(exc)
    cause = exc.__cause__
    if cause is not None and str(cause) not in text:
        text += " " + str(cause)
    return " ".join(text.split())


class Applied:
    """The answers for each (base, override texts) of one composer: the same texts on the same base, the same
    answer."""

    def __init__(self, counts: ComposerCounts, plain_copies: bool = False, cross_check: bool | None = None) -> None:
        self.counts = counts
        self.plain_copies = plain_copies  # copy bases with OmegaConf's `copy()` (the reference for fresh_copy)
        self.cross_check = os.environ.get(CROSS_CHECK) == "1" if cross_check is None else cross_check
        self._answers: dict[tuple[int, tuple[str, ...]], list[tuple[int, str]]] = {}
        self._parsed: dict[str, list[Any]] = {}
        self._pickled: dict[int, bytes] = {}
        self._plain: dict[int, bool] = {}  # the index's reading of the bases' mappings (kept, never changed)
        self._parser: Any = None
        self._plain_read: dict[str, Any] = {}  # each override as the plain index reads it (_read_plain)
        self._alone: dict[int, dict[int, str]] = {}  # the plain index's verdict on an override alone, by base

    def failures(self, base: Any, texts: list[str], line: int) -> list[tuple[int, str]]:
        """(index in `texts`, Hydra's message) of each override that fails on the base; `line`: the launch's,
        for a disagreement's message."""
        ident = (id(base), tuple(texts))
        if ident not in self._answers:
            said = self._indexed(base, texts)
            if said is None or self.cross_check:
                self._answers[ident] = self._apply(base, texts)
                if said is not None:
                    self._agree(said, base, texts, self._answers[ident], line)
            elif FAIL not in said:
                self.counts.indexed += 1
                self._answers[ident] = []
            else:
                self._answers[ident] = self._failing(said, base, texts)
        return self._answers[ident]

    def plain_said(self, base: dict[str, Any], texts: list[str]) -> list[str] | None:
        """The plain index's verdict (PASS or FAIL) on each override applied in turn to a base composed as plain
        data (bot.hydra.plain_index), or None where it is not sure of one (or Hydra's grammar does not parse it):
        Hydra then applies the whole list."""
        from hydra.errors import HydraException

        from bot.hydra.plain_index import plain_verdicts

        try:
            parsed = [self._read_plain(text) for text in texts]
        except (HydraException, IndexError):
            return None
        return plain_verdicts(base, parsed, self._alone.setdefault(id(base), {}))

    def confirmed(self, base: dict[str, Any], texts: list[str], said: list[str]) -> list[tuple[int, str]] | None:
        """(index, Hydra's message) of each override the plain index says fails, each applied alone by Hydra's
        own override logic to the mappings on the way to its key (bot.hydra.plain_index.on_the_way): the index's
        keys are unrelated and a failing override changes nothing, so it fails alone as in the list, and what
        Hydra's message says of it (its key, the mapping's type) is all on the way. None when Hydra applies one
        without failing: the caller applies the whole list to the whole base then."""
        return self._each_alone(said, base, texts, lambda text: self._apply_on_the_way(base, text))

    def _each_alone(self, said: list[str], base: Any, texts: list[str],
                    apply: Callable[[str], list[tuple[int, str]]]) -> list[tuple[int, str]] | None:
        """(index, message) of each override the index says fails, applied alone by `apply` once per base; None
        when one does not fail alone."""
        failed: list[tuple[int, str]] = []
        for index, one in enumerate(said):
            if one != FAIL:
                continue
            ident = (id(base), (texts[index],))
            if ident not in self._answers:
                self._answers[ident] = apply(texts[index])
            if not self._answers[ident]:
                return None
            failed.extend((index, message) for _, message in self._answers[ident])
        return failed

    def _apply_on_the_way(self, base: dict[str, Any], text: str) -> list[tuple[int, str]]:
        from hydra._internal.config_loader_impl import ConfigLoaderImpl
        from hydra.errors import HydraException
        from omegaconf import OmegaConf
        from omegaconf.errors import OmegaConfBaseException

        from bot.hydra.plain_index import on_the_way

        self.counts.confirmed += 1
        parsed = self._parse(text)
        key = parsed[0].key_or_group
        cfg = OmegaConf.create(on_the_way(base, key) if isinstance(key, str) else base)
        OmegaConf.set_struct(cfg, True)
        try:
            ConfigLoaderImpl._apply_overrides_to_config(parsed, cfg)
        except (HydraException, OmegaConfBaseException) as exc:
            return [(0, message_of(exc))]
        return []

    def _read_plain(self, text: str) -> Any:
        """The override as the plain index reads it: without Hydra's parser where it has the simplest form."""
        from bot.hydra.plain_index import quick_override

        found = self._plain_read.get(text)
        if found is None:
            found = self._plain_read[text] = quick_override(text) or self._parse(text)[0]
        return found

    def _failing(self, said: list[str], base: Any, texts: list[str]) -> list[tuple[int, str]]:
        """Only what the index says fails, each applied alone (once per base: the index's keys are unrelated and
        a failing override changes nothing, so it fails alone as in the list): confirmed by Hydra, which words
        why (the real-world check holds the words equal to those of the whole list: _agree). Should one not fail
        alone, the whole list is applied."""
        failed = self._each_alone(said, base, texts, lambda text: self._apply(base, [text]))
        return failed if failed is not None else self._apply(base, texts)

    def _agree(self, said: list[str], base: Any, texts: list[str], failed: list[tuple[int, str]], line: int) -> None:
        """IndexDisagreement where the index's verdict on an override is not Hydra's, or Hydra words a failure
        applied alone otherwise than in the whole list."""
        raised = {index for index, _ in failed}
        for index, one in enumerate(said):
            if (one == FAIL) != (index in raised):
                hydra = "raises" if index in raised else "composes"
                raise IndexDisagreement(f"the compose index says {one} and Hydra {hydra} for {texts[index]}: the "
                                        f"launch at line {line}, {' '.join(texts)}")
        if failed and self._failing(said, base, texts) != failed:
            raise IndexDisagreement(f"Hydra words the failures of the launch at line {line} otherwise when only "
                                    f"they are applied: {' '.join(texts)}")

    def _indexed(self, base: Any, texts: list[str]) -> list[str] | None:
        """The compose index's verdict on each override; None for one Hydra's grammar does not parse
        (applying it gives Hydra's message)."""
        from hydra.errors import HydraException

        try:
            parsed = [self._parse(text)[0] for text in texts]
        except (HydraException, IndexError):
            return None
        return verdicts(base, parsed, self._plain)[0]

    def _apply(self, base: Any, texts: list[str]) -> list[tuple[int, str]]:
        """The overrides applied in turn to a copy of the base, as Hydra applies them."""
        from hydra._internal.config_loader_impl import ConfigLoaderImpl
        from hydra.errors import HydraException
        from omegaconf import OmegaConf
        from omegaconf.errors import OmegaConfBaseException

        self.counts.applied += 1
        cfg = self.fresh_copy(base)
        OmegaConf.set_struct(cfg, True)
        failed: list[tuple[int, str]] = []
        for index, text in enumerate(texts):
            try:
                ConfigLoaderImpl._apply_overrides_to_config(self._parse(text), cfg)
            except (HydraException, OmegaConfBaseException) as exc:
                failed.append((index, message_of(exc)))
        return failed

    def fresh_copy(self, base: Any) -> Any:
        """A copy of a composed base to apply overrides to. OmegaConf's own pickling round trip gives
        the same config as `base.copy()` (flags, node types, parents) at a third of its cost; the
        test suite compares the two on every fixture launch."""
        import pickle

        if self.plain_copies:
            return base.copy()
        blob = self._pickled.get(id(base))
        if blob is None:
            blob = self._pickled[id(base)] = pickle.dumps(base)
        return pickle.loads(blob)

    def _parse(self, text: str) -> list[Any]:
        """Hydra's parse of one override; parsing is pure and applying does not change the result."""
        from hydra.core.override_parser.overrides_parser import OverridesParser

        if text not in self._parsed:
            self._parser = self._parser or OverridesParser.create()
            self._parsed[text] = self._parser.parse_overrides([text])
        return self._parsed[text]
