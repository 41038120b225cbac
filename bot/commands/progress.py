"""Progress on a terminal: one line on stderr, rewritten in place, for runs that take longer than a
couple of seconds; nothing at all when stderr is not a terminal (CI logs, pipes, files)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

AFTER = 2.0  # seconds before the first line: a quick run prints nothing
EVERY = 0.25  # seconds between two lines


class Progress:
    """Called with (done, total) as the work goes; `close()` clears the line."""

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self.started = time.monotonic()
        self.last = 0.0
        self.width = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < AFTER or now - self.last < EVERY:
            return
        self.last = now
        line = f"{self.what}: {done} of {total} files ({now - self.started:.0f} s)"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
