"""Worker processes forked from this one, fed over pipes: what a scan's second core runs.

A forked worker inherits the loaded modules and the state it is forked with (a scan's context and
rules), which it hands every task as its first argument, so a task is a module-level function, a
chunk of arguments and a few keywords, pickled into a pipe, and the answer comes back the same way;
`broadcast` replaces the state in every worker. Nothing else runs in between: no threads, no queues,
no executor, which cost more than the work on a small repository.

A task may be meant for one worker (`submit`'s `worker`: bot.compose.affinity shares compose-check's files
out by the base they compose against): a worker takes the first queued task that is its own or anyone's, passing
over the others' own, and takes one of theirs, the last queued, only when it holds nothing, nothing else is left
for it and that worker has more than one task of its own queued besides the two it holds.

A worker holds at most two tasks: one at work, the next to start on while its answer is read. The
main process never blocks on a write: what a pipe does not take yet waits in the worker's buffer,
and the main process waits for a pipe to take more or for an answer to come, whichever is first, so
a worker writing a large answer is always read, whatever the pipes' size. A worker that dies, or a function
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
from typing import Any, NoReturn

_HEADER = struct.Struct("<Q")
DEPTH = 2  # tasks a worker holds at most: one at work, one to start on while its answer is read
STEAL_FROM = 1  # tasks of its own another worker has queued, more than which an idle worker takes one of them


def can_fork() -> bool:
    return hasattr(os, "fork") and hasattr(os, "waitpid")


def usable_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


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


def _serve(tasks: int, answers: int, state: Any) -> None:
    """A worker's life: answer each task (with the state it holds) until the main process closes the pipe."""
    while True:
        try:
            number, function, chunk, keywords = _receive(tasks)
        except EOFError:
            return
        reply: tuple[int, bool, Any]
        try:
            if function == _STATE_CHANGE:  # broadcast: the worker's state, replaced
                changed, args = chunk[0]
                state = changed(state, *args)
                reply = (number, True, [])
            else:
                reply = (number, True, [function(state, item, **keywords) for item in chunk])
        except BaseException as exc:  # told to the main process, which raises it
            import traceback

            reply = (number, False, "".join(traceback.format_exception(exc)))
        _send(answers, _message(reply))


@dataclass
class _Worker:
    pid: int
    tasks: int  # the pipe this process writes tasks to
    answers: int  # the pipe it reads answers from
    held: deque[int] = field(default_factory=deque)  # tasks given (sent or being sent), not yet answered
    own: deque[tuple[int, bytes]] = field(default_factory=deque)  # tasks for this worker alone, given first
    unsent: bytearray = field(default_factory=bytearray)  # what the tasks pipe has not taken yet


_STATE_CHANGE = "state"  # a task that replaces the worker's state (Forks.broadcast)


class Forks:
    """`jobs` worker processes forked now, each holding `state` (handed to every task as its first argument).
    `submit` queues a task (a function over a chunk of arguments) for any worker, `broadcast` a change of
    state every worker makes before its later tasks, `answer` waits for the next answered task. `map` runs a
    function over arguments, answers in order.
    """

    def __init__(self, jobs: int, state: Any = None) -> None:
        self._state = state
        self.workers: list[_Worker] = []
        self._queue: deque[tuple[int, bytes, int | None]] = deque()  # (task, message, the worker it is for or None)
        self._chunks: dict[int, list[Any]] = {}  # each task's arguments, until answered
        self._answered: deque[tuple[int, list[Any]]] = deque()
        self._internal: set[int] = set()  # broadcast tasks: their answers are nobody's
        self._count = 0
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
                _serve(task_read, answer_write, self._state)
            except BaseException:  # the main process sees the pipe close
                status = 1
            finally:
                os._exit(status)
        os.close(task_read)
        os.close(answer_write)
        os.set_blocking(task_write, False)
        return _Worker(pid, task_write, answer_read)

    def submit(self, function: Callable[..., Any], chunk: list[Any], urgent: bool = False, worker: int | None = None,
               **keywords: Any) -> int:
        """Queue function(state, item, **keywords) for each item of the chunk; `urgent`: before the tasks queued;
        `worker`: for that worker (an index of `workers`), which another takes only when it would wait otherwise;
        such a task is handed out at the next `submit` for any worker or `answer`, so that the tasks submitted
        together are all queued before an idle worker looks for one of another's."""
        number = self._number(chunk)
        entry = (number, _message((number, function, chunk, keywords)), worker)
        if urgent:
            self._queue.appendleft(entry)
        else:
            self._queue.append(entry)
        if worker is None:
            self._feed()
        return number

    def broadcast(self, function: Callable[..., Any], *args: Any) -> None:
        """Every worker's state becomes function(state, *args) before any task queued after this."""
        for worker in self.workers:
            number = self._number([function])
            self._internal.add(number)
            worker.own.append((number, _message((number, _STATE_CHANGE, [(function, args)], {}))))
        self._feed()

    def _number(self, chunk: list[Any]) -> int:
        self._count += 1
        self._chunks[self._count] = chunk
        return self._count

    def grow(self) -> None:
        """One more worker, forked now, handed tasks queued for any worker."""
        self.workers.append(self._fork())
        self._feed()

    def queued(self) -> int:
        """Tasks for any worker that no worker holds yet."""
        return len(self._queue)

    def pending(self) -> int:
        """Tasks submitted and not yet taken by `answer`."""
        return len(self._chunks) - len(self._internal) + len(self._answered)

    def answer(self) -> tuple[int, list[Any]]:
        """The next task answered (its number and its results), waiting for one."""
        while not self._answered:
            if not self._chunks:
                raise LookupError("no task is waiting for an answer")
            self._feed()
            self._collect()
        return self._answered.popleft()

    def map(self, function: Callable[..., Any], items: list[Any], chunk: int = 1, **keywords: Any) -> Iterator[Any]:
        """function(state, item, **keywords) for each item, computed in the workers `chunk` items at a time, in
        order."""
        numbers = [self.submit(function, items[start : start + chunk], **keywords)
                   for start in range(0, len(items), chunk)]
        kept: dict[int, list[Any]] = {}
        for number in numbers:
            while number not in kept:
                done, results = self.answer()
                kept[done] = results
            yield from kept.pop(number)

    def _feed(self) -> None:
        """Give each worker tasks up to DEPTH, in turn, and write what its pipe takes without blocking."""
        given = True
        while given:
            given = False
            for index, worker in enumerate(self.workers):
                if len(worker.held) >= DEPTH:
                    continue
                task = worker.own.popleft() if worker.own else self._take(index, idle=not worker.held)
                if task is not None:
                    number, message = task
                    worker.held.append(number)
                    worker.unsent += message
                    given = True
        for worker in self.workers:
            self._write(worker)

    def _take(self, index: int, idle: bool) -> tuple[int, bytes] | None:
        """The first queued task for worker `index` or for any; when there is none and the worker is `idle`, the
        last task queued for another worker that has more than STEAL_FROM of its own queued (taking one costs what
        the task's worker had made ready for it: it is worth it only where the wait would be long)."""
        for position, (number, message, owner) in enumerate(self._queue):
            if owner is None or owner == index:
                del self._queue[position]
                return number, message
        if idle and self._queue and sum(entry[2] == self._queue[-1][2] for entry in self._queue) > STEAL_FROM:
            number, message, _ = self._queue.pop()
            return number, message
        return None

    def _write(self, worker: _Worker) -> None:
        if not worker.unsent:
            return
        try:
            written = os.write(worker.tasks, worker.unsent)
        except BlockingIOError:
            return
        except BrokenPipeError:
            self._ended(worker)
        del worker.unsent[:written]

    def _collect(self) -> None:
        """Wait until an answer comes or a pipe takes more of a task; keep the answers, write the tasks."""
        busy = {worker.answers: worker for worker in self.workers if worker.held}
        writing = {worker.tasks: worker for worker in self.workers if worker.unsent}
        if not busy:  # nothing can come: no worker is left, or none was given a task
            raise RuntimeError("no worker process holds a task to answer")
        ready, writable, _ = select.select(list(busy), list(writing), [])
        for fd in writable:
            self._write(writing[fd])
        for fd in ready:
            worker = busy[fd]
            number = worker.held[0]
            try:
                answer_number, ok, payload = _receive(fd)
            except EOFError:
                self._ended(worker)
            assert answer_number == number
            worker.held.popleft()
            chunk = self._chunks.pop(number)
            if not ok:
                raise RuntimeError(f"a worker process failed on {_describe(chunk)}:\n{payload}")
            if number in self._internal:
                self._internal.discard(number)
            else:
                self._answered.append((number, payload))

    def _ended(self, worker: _Worker) -> NoReturn:
        """A worker died: the run stops, naming the first task it held."""
        _, status = os.waitpid(worker.pid, 0)
        self.workers.remove(worker)
        os.close(worker.tasks)
        os.close(worker.answers)
        raise RuntimeError(f"a worker process ended ({_status(status)}) while given: "
                           f"{_describe(self._chunks[worker.held[0]])}") from None

    def close(self) -> None:
        """End the workers: each is stopped. One that holds no work would end at the closed pipe, unless a process
        forked meanwhile holds the pipe open too (bot.engine.ahead): then it would wait as long as that one."""
        for worker in self.workers:
            os.close(worker.tasks)
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


__all__ = ["Forks", "can_fork", "usable_cores"]
