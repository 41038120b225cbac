"""Worker processes forked from this one, fed over pipes: what a scan's second core runs.

A forked worker inherits the loaded modules, the rules and everything set up before the fork, so a
task is a module-level function, a chunk of arguments and a few keywords, pickled into a pipe, and
the answer comes back the same way. Nothing else runs in between: no threads, no queues, no
executor, which cost more than the work on a small repository.

A worker holds at most two chunks at once, the second only when its message fits in the pipe's
buffer: then neither side can block the other (a worker writing a large answer is read by the
main process, which writes a task only where it cannot block). A worker that dies, or a function
that raises, stops the run with a RuntimeError naming what it was given; the scan's own work
catches a file's failures itself (bot.engine.isolation), so this is a bug or a killed process.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

_HEADER = struct.Struct("<Q")
SMALL = 16 * 1024  # bytes: a message this size fits a pipe's buffer (64 KiB on Linux, 16 KiB at least)


def can_fork() -> bool:
    return hasattr(os, "fork") and hasattr(os, "waitpid")


def _send(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]


def _read(fd: int, size: int) -> bytes:
    parts = []
    while size:
        part = os.read(fd, min(size, 1 << 20))
        if not part:
            raise EOFError
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _message(value: Any) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


def _receive(fd: int) -> Any:
    (size,) = _HEADER.unpack(_read(fd, _HEADER.size))
    return pickle.loads(_read(fd, size))


def _serve(tasks: int, answers: int) -> None:
    """A worker's life: answer each task until the main process closes the pipe."""
    while True:
        try:
            number, function, chunk, keywords = _receive(tasks)
        except EOFError:
            return
        reply: tuple[int, bool, Any]
        try:
            reply = (number, True, [function(item, **keywords) for item in chunk])
        except BaseException as exc:  # told to the main process, which raises it
            import traceback

            reply = (number, False, "".join(traceback.format_exception(exc)))
        _send(answers, _message(reply))


@dataclass
class _Worker:
    pid: int
    tasks: int  # the pipe this process writes tasks to
    answers: int  # the pipe it reads answers from
    held: deque[int] = field(default_factory=deque)  # chunk numbers sent and not yet answered


class Forks:
    """`jobs` worker processes forked now; `map` runs a function over arguments on them, in order."""

    def __init__(self, jobs: int) -> None:
        self.workers: list[_Worker] = []
        try:
            for _ in range(jobs):
                self.workers.append(self._fork())
        except BaseException:
            self.close()
            raise

    def _fork(self) -> _Worker:
        task_read, task_write = os.pipe()
        answer_read, answer_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: it never returns into the caller's code
            status = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C stops the main process, which ends this
                os.close(task_write)
                os.close(answer_read)
                for other in self.workers:
                    os.close(other.tasks)
                    os.close(other.answers)
                _serve(task_read, answer_write)
            except BaseException:  # the main process sees the pipe close
                status = 1
            finally:
                os._exit(status)
        os.close(task_read)
        os.close(answer_write)
        return _Worker(pid, task_write, answer_read)

    def map(self, function: Callable[..., Any], items: list[Any], chunk: int = 1, **keywords: Any) -> Iterator[Any]:
        """function(item, **keywords) for each item, computed in the workers `chunk` items at a time."""
        chunks = [items[start : start + chunk] for start in range(0, len(items), chunk)]
        messages = deque(_message((number, function, part, keywords)) for number, part in enumerate(chunks))
        first = 0  # the first chunk not yet sent
        answered: dict[int, list[Any]] = {}
        for number in range(len(chunks)):
            while number not in answered:
                for worker in self.workers:
                    while messages and (not worker.held or (len(worker.held) < 2 and len(messages[0]) <= SMALL)):
                        _send(worker.tasks, messages.popleft())
                        worker.held.append(first)
                        first += 1
                self._collect(answered, chunks)
            yield from answered.pop(number)

    def _collect(self, answered: dict[int, list[Any]], chunks: list[list[Any]]) -> None:
        """Wait for answers, and keep those that came."""
        busy = {worker.answers: worker for worker in self.workers if worker.held}
        ready, _, _ = select.select(list(busy), [], [])
        for fd in ready:
            worker = busy[fd]
            number = worker.held[0]
            try:
                answer_number, ok, payload = _receive(fd)
            except EOFError:
                _, status = os.waitpid(worker.pid, 0)
                self.workers.remove(worker)
                raise RuntimeError(f"a worker process ended ({_status(status)}) while given: "
                                   f"{_describe(chunks[number])}") from None
            assert answer_number == number
            worker.held.popleft()
            if not ok:
                raise RuntimeError(f"a worker process failed on {_describe(chunks[number])}:\n{payload}")
            answered[number] = payload

    def close(self) -> None:
        """End the workers: those that hold no work end at the closed pipe, the others are stopped."""
        for worker in self.workers:
            os.close(worker.tasks)
            if worker.held:
                os.kill(worker.pid, signal.SIGKILL)
        for worker in self.workers:
            os.close(worker.answers)
            os.waitpid(worker.pid, 0)
        self.workers = []

    def __enter__(self) -> Forks:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _describe(chunk: list[Any]) -> str:
    names = [str(getattr(item, "path", item)) for item in chunk]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


__all__ = ["Forks", "can_fork"]
