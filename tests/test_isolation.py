"""The time bound of one file's work holds even when its first alarm lands where Python drops exceptions."""

from __future__ import annotations

import gc
import time

from bot.engine.isolation import isolated


def test_a_time_out_dropped_in_a_garbage_collector_callback_is_raised_again() -> None:
    calls: list[str] = []

    def slow_first_collection(phase: str, info: dict[str, int]) -> None:
        calls.append(phase)
        if len(calls) == 1:
            time.sleep(0.3)  # the alarm rings in here, where an exception is printed and dropped

    def work() -> str:
        gc.collect()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            sum(range(100))
        return "finished"

    gc.callbacks.append(slow_first_collection)
    try:
        result, error = isolated("slow.sh", "checking", work, seconds=0.1)
    finally:
        gc.callbacks.remove(slow_first_collection)
    assert result is None and error is not None and error.reason == "not checked: checking took longer than 0.1 s"
