"""Python's cyclic garbage collector, run less often while a scan makes and drops millions of small objects.

A scan allocates objects by the hundred thousand (syntax nodes read, pieces of words, settings), nearly all
freed at once by reference counting. The collector still starts every 700 allocations, and as the scan's
caches and results grow it walks every live object again: on verl's tip, `bot launches` spent about an
eighth of its CPU in it (five full collections of ~50 ms each). Inside `scanning()` what exists already
(the modules, the scan's context) is frozen, never walked again, and the youngest generation is collected
every 20,000 allocations instead of 700. Garbage held in cycles is still collected, only later; on leaving,
the thresholds are restored and the frozen objects rejoin the oldest generation.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 20_000  # allocations between two collections of the youngest generation (Python's default: 700)


@contextmanager
def scanning(young: int = YOUNG) -> Iterator[None]:
    """Collect less often inside the block; nested blocks leave the outermost one in charge."""
    thresholds = gc.get_threshold()
    outermost = gc.get_freeze_count() == 0
    if outermost:
        gc.freeze()
    gc.set_threshold(max(young, thresholds[0]), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if outermost:
            gc.unfreeze()
