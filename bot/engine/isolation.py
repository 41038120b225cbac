"""One bad file never stops a run: failures while checking a file become that file's error entry.

`isolated(path, stage, work)` runs the work for one file under a time bound and turns any
exception (a bug of the bot's, an input nested deeper than Python's stack, a file that takes too
long) into a `FileError`: a one-line reason for the report, and the traceback for the run's crash
log, which lists every such file. KeyboardInterrupt and SystemExit still stop the run.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from bot.model import FileError
from bot.pyparse import TooDeep
from bot.secrets import redact

T = TypeVar("T")
DEFAULT_SECONDS = 60.0  # per file; the slowest file of verl's tip takes under a second
AGAIN = 0.1  # seconds: how soon a time-out that did not reach the work is raised again
_BOT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the bot package


class FileTimeout(Exception):
    """The work on one file took longer than the time bound."""


@contextmanager
def time_bound(seconds: float | None) -> Iterator[None]:
    """Raise FileTimeout in this thread after `seconds` of wall time (main thread only; else unbounded)."""
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:  # none, or an outer bound holds
        yield
        return
    assert seconds is not None

    def expire(signum: int, frame: object) -> None:
        # raised in a garbage collector callback or a __del__, the exception is printed and dropped:
        # ring again shortly, until it reaches the work
        signal.setitimer(signal.ITIMER_REAL, AGAIN)
        raise FileTimeout(f"took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def where(exc: BaseException) -> str:
    """The innermost frame of the bot's own code the exception passed through, as `file:line in func`."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if f.filename.startswith(_BOT_DIR)] or frames
    if not own:
        return ""
    frame = own[-1]
    relative = os.path.relpath(frame.filename, os.path.dirname(_BOT_DIR))
    return f"{relative.replace(os.sep, '/')}:{frame.lineno} in {frame.name}"


def describe(exc: BaseException, stage: str) -> str:
    """One line for the report: what failed, how, and where in the bot."""
    if isinstance(exc, FileTimeout):
        return f"not checked: {stage} {exc}"
    if isinstance(exc, TooDeep):  # refused before parsing: the reason says where
        return f"not checked: {exc}"
    if isinstance(exc, RecursionError):
        return f"not checked: nested too deeply to {stage} (RecursionError at {where(exc)})"
    message = " ".join(str(exc).split())[:200]
    return f"internal error while {stage}: {type(exc).__name__}: {message} (at {where(exc)})"


def isolated(path: str, stage: str, work: Callable[[], T],
             seconds: float | None = DEFAULT_SECONDS) -> tuple[T | None, FileError | None]:
    """Run `work` for one file; its result, or the FileError that takes its place."""
    try:
        with time_bound(seconds):
            return work(), None
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # any failure on one file becomes its error entry; the run goes on
        import traceback  # only for a file that failed

        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return None, FileError(path, describe(exc, stage), stage, detail)


def write_crash_log(errors: list[FileError], header: str) -> str:
    """One log for the run with every file that failed and its traceback; returns its path."""
    import tempfile

    from bot.safe_write import new_file

    text = redact(header) + f"\n{len(errors)} file(s) could not be checked:\n" + "".join(
        redact(f"\n== {error.path} ({error.stage})\n{error.reason}\n{error.detail}") for error in errors)
    return new_file(tempfile.gettempdir(), text.encode("utf-8", "surrogateescape"), "bot-crash-", ".log")
