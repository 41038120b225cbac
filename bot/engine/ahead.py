"""A directory made ahead, in a forked process, while this one goes on: waited for by this process and by any
process forked from it afterwards (a scan's workers), so it is made once whatever the number of workers.

What it is made of (git's objects, files linked or written) is the forked process's own work: it reads nothing
this process changes afterwards. It signals that it is done by closing a pipe, which every process holding the
pipe's other end sees; a file beside the directory says that making it succeeded. When it did not (an error, a
killed process), `wait` says so and the caller makes the directory itself, which reports the error the usual
way.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

from bot import scratch


class Ahead:
    """`make(path)` run at once in a forked process (`path`: a directory to be, `tree` in a private directory made
    for it, where bot.scratch puts a tree of about `room` bytes); `wait` gives the path once made (None if making
    it failed); `close` ends it and removes it."""

    def __init__(self, make: Callable[[Path], None], prefix: str, room: int = 0) -> None:
        self._private = Path(scratch.mkdtemp(prefix, room))  # mode 0700: nobody else puts anything there
        self.path = self._private / "tree"
        self._made = self._private / "made"
        self._owner = os.getpid()
        self._pid: int | None = None
        self._done: bool | None = None
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the forked process: it never returns into the caller's code
            status = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C stops the main process, which ends this
                os.close(read)
                make(self.path)
                self._made.touch()
                status = 0
            except BaseException:  # the caller sees the pipe close without the mark, and makes it itself
                status = 1
            finally:
                os._exit(status)
        os.close(write)
        self._pid, self._pipe = pid, read

    def wait(self) -> Path | None:
        """The directory, once the forked process has made it; None when it could not."""
        if self._done is None:
            while True:
                select.select([self._pipe], [], [])
                if not os.read(self._pipe, 1 << 12):  # closed: the forked process ended
                    break
            self._done = self._made.exists()
            self._reap()
        return self.path if self._done else None

    def close(self) -> None:
        """The forked process ended (stopped if it is still at work) and the directory removed; only the
        process that began it does this, once its own forked workers are done with it."""
        if os.getpid() != self._owner:
            return
        if self._pid is not None:
            os.kill(self._pid, signal.SIGKILL)
            self._reap()
        if self._pipe >= 0:
            os.close(self._pipe)
            self._pipe = -1
        shutil.rmtree(self._private, ignore_errors=True)

    def _reap(self) -> None:
        if self._pid is not None and os.getpid() == self._owner:
            os.waitpid(self._pid, 0)
            self._pid = None
