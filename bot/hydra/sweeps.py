"""Multirun sweeps (`a,b`, `choice(..)`, `range(..)`, `interval(..)`, `glob(..)`) as values a rule can read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Sweep(str):
    """A multirun sweep (`a,b`, `choice(..)`, `range(..)`, `interval(..)`, `glob(..)`): one run per element.

    A string (Hydra's own description of it) so that it reads and stores as any other value; `elements`
    are the values the runs take, None when they are not a fixed list (an interval, a glob)."""

    elements: tuple[Any, ...] | None

    def __new__(cls, text: str, elements: tuple[Any, ...] | None) -> Sweep:
        made = super().__new__(cls, text)
        made.elements = elements
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Sweep, (str(self), self.elements))


MAX_SWEEP_ELEMENTS = 1000


def sweep_of(value: Any, plain: Callable[[Any], Any]) -> Sweep | None:
    """Hydra's sweep object as a Sweep, its elements made plain with `plain`; None for anything else."""
    from hydra.core.override_parser.types import ChoiceSweep, Glob, IntervalSweep, RangeSweep

    elements: tuple[Any, ...] | None = None
    if isinstance(value, ChoiceSweep):
        elements = tuple(plain(v) for v in value.list)
    elif isinstance(value, RangeSweep):
        numbers = (value.start, value.stop, value.step)
        if all(isinstance(n, int) and not isinstance(n, bool) for n in numbers) and value.step:
            span = range(int(value.start), int(value.stop), int(value.step))  # type: ignore[arg-type]
            elements = tuple(span) if len(span) <= MAX_SWEEP_ELEMENTS else None
    elif not isinstance(value, (IntervalSweep, Glob)):
        return None
    return Sweep(str(value), elements)
