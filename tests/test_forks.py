"""The forked workers a scan runs on (bot.engine.forks): answers in order, large messages, failures."""

from __future__ import annotations

import os
import signal

import pytest

from bot.engine.forks import Forks, can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="this platform cannot fork")


def square_and_pid(state: object, number: int, add: int = 0) -> tuple[int, int]:
    return number * number + add, os.getpid()


def echo_large(state: object, data: bytes) -> bytes:
    return data * 3  # an answer well beyond a pipe's buffer


def refuse_seven(state: object, number: int) -> int:
    if number == 7:
        raise ValueError("seven is refused")
    return number


def die_on_three(state: object, number: int) -> int:
    if number == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return number


def test_answers_come_in_order_from_every_worker() -> None:
    with Forks(2) as forks:
        answers = list(forks.map(square_and_pid, list(range(200)), 3, add=1))
    assert [value for value, _ in answers] == [n * n + 1 for n in range(200)]
    workers = {pid for _, pid in answers}
    assert os.getpid() not in workers
    assert len(workers) == 2


def test_the_same_workers_serve_one_map_after_another() -> None:
    with Forks(2) as forks:
        first = {pid for _, pid in forks.map(square_and_pid, list(range(50)))}
        second = {pid for _, pid in forks.map(square_and_pid, list(range(50)))}
    assert second <= first


def test_messages_larger_than_a_pipe_buffer_do_not_block() -> None:
    items = [bytes([n]) * 300_000 for n in range(12)]
    with Forks(2) as forks:
        answers = list(forks.map(echo_large, items, 2))
    assert answers == [item * 3 for item in items]


def test_a_function_that_raises_stops_the_map_naming_the_item() -> None:
    with Forks(2) as forks, pytest.raises(RuntimeError, match=r"failed on 7:[\s\S]*seven is refused"):
        list(forks.map(refuse_seven, list(range(20))))


def test_a_worker_that_dies_stops_the_map_naming_the_item() -> None:
    with Forks(2) as forks, pytest.raises(RuntimeError, match=r"ended \(signal 9\) while given: 3"):
        list(forks.map(die_on_three, list(range(10))))


def test_closing_leaves_no_process_behind() -> None:
    forks = Forks(2)
    pids = [worker.pid for worker in forks.workers]
    list(forks.map(square_and_pid, list(range(10))))
    forks.close()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_an_abandoned_map_is_stopped_on_close() -> None:
    forks = Forks(2)
    answers = forks.map(square_and_pid, list(range(1000)))
    assert next(answers)[0] == 0
    forks.close()  # workers still held chunks: they are stopped, not waited for forever
    assert forks.workers == []


def echo_forty_times(state: object, data: bytes) -> bytes:
    return data * 40  # an answer far beyond the answers pipe


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_SETPIPE_SZ"), reason="pipes of a set size: Linux")
def test_pipes_smaller_than_the_messages_do_not_block_either_side() -> None:
    import fcntl

    def stuck(*_: object) -> None:
        raise TimeoutError("the main process writes a task while the worker writes an answer")

    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(20)
    try:
        with Forks(1) as forks:
            for worker in forks.workers:  # two pages: what Linux gives a user beyond pipe-user-pages-soft
                fcntl.fcntl(worker.tasks, fcntl.F_SETPIPE_SZ, 8192)
                fcntl.fcntl(worker.answers, fcntl.F_SETPIPE_SZ, 8192)
            items = [bytes([n]) * (7000 if n % 2 == 0 else 9000) for n in range(6)]
            assert list(forks.map(echo_forty_times, items)) == [item * 40 for item in items]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_waiting_with_no_worker_left_is_an_error_not_a_hang() -> None:
    with Forks(1) as forks:
        with pytest.raises(RuntimeError, match="ended"):
            list(forks.map(die_on_three, [3]))
        forks.submit(square_and_pid, [1])
        with pytest.raises(RuntimeError, match="no worker process"):
            forks.answer()


def test_workers_end_at_close_though_a_process_forked_meanwhile_holds_their_pipes() -> None:
    """A process forked while the workers live (the tree before a change, made ahead) holds their pipes open too:
    closing the workers does not wait for it to end."""
    import time

    forks = Forks(2)
    assert sorted(value for value, _ in forks.map(square_and_pid, [1, 2])) == [1, 4]
    holder = os.fork()
    if holder == 0:
        time.sleep(30)
        os._exit(0)
    try:
        start = time.monotonic()
        forks.close()
        assert time.monotonic() - start < 10
    finally:
        os.kill(holder, signal.SIGKILL)
        os.waitpid(holder, 0)
