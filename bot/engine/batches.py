"""Checking a scan's files, on forked workers when there are many, in an order that keeps them busy.

Scripts go first: which of them hold a token decides which callers must be read and which parts of
a doc are analysed (bot.lang.focus), so the other files are checked once the last script is answered,
all of them with the same knowledge. Files whose front end reads the packages (where Hydra puts
each config's keys) wait for them; one worker works them out from every config's defaults list
while the others read the rest. Then every worker is handed the packages, and later the scripts, so
a task is only a chunk of files.

When the scan composes (compose-check), a file is composed in the task that first reads it, from the
same reading (a caller held back for the scripts too: its second task, if it needs one, is the rules'
alone); the files the rules leave (a cached result, one `--files` does not name, every file for
compose-check alone) are composed in tasks of their own.

On workers, each of those files whose launches seem to compose against one base (bot.compose.affinity) goes to
the worker given that base, so that one worker composes it; the others go to whichever worker is free. So do the
files the rules read in a scan that composes as well (`watch`, `run --compose`), and the files the rules may edit
when a rule adds keys to launches: the judge composes their edited launches (bot.compose.judge).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.collector import scanning
from bot.compose.affinity import guess_keys, share_out
from bot.compose.checker import Composed, load_composing
from bot.discover import SourceFile
from bot.engine.checker import Checked, Setup, Waiting, check_one, compose_one
from bot.engine.forks import Forks, can_fork
from bot.engine.wanted import scripts_of
from bot.lang import is_callee_script, is_config, is_shell_family
from bot.lang.focus import Scripts
from bot.model import Outcome

PARALLEL_FROM = 400  # files; below this, starting workers outweighs the second core


def _scan(setup: Setup, source: SourceFile, composing: bool = True) -> Checked:
    return check_one(source, setup, composing=composing)


def _use(setup: Setup, changes: dict[str, Any]) -> Setup:
    """The setup with what the scan learnt (the packages, the scripts): each worker's, and the main process's."""
    return replace(setup, **changes)


def _layout(setup: Setup, root: Path, yaml_paths: list[str]) -> tuple[dict[str, str], set[str]]:
    """The packages of the configs, and every path looked at for them (bot.lang.yaml.packages)."""
    from bot.lang.yaml.config import yaml_packages

    reads: set[str] = set()
    return yaml_packages(root, yaml_paths, reads), reads


class _Here:
    """The workers' interface, each task done at once in this process, with the state it holds."""

    def __init__(self, state: Any) -> None:
        self._answered: deque[tuple[int, list[Any]]] = deque()
        self._count = 0
        self._state = state

    def submit(self, function: Any, chunk: list[Any], urgent: bool = False, worker: int | None = None,
               **keywords: Any) -> int:
        self._count += 1
        self._answered.append((self._count, [function(self._state, item, **keywords) for item in chunk]))
        return self._count

    def broadcast(self, function: Any, *args: Any) -> None:
        self._state = function(self._state, *args)

    def pending(self) -> int:
        return len(self._answered)

    def answer(self) -> tuple[int, list[Any]]:
        return self._answered.popleft()

    def close(self) -> None:
        pass


class Batches:
    """Checks the files of one scan (see the module docstring); ends its workers on leaving."""

    def __init__(self, setup: Setup, jobs: int, progress: Callable[[int, int], None] | None = None) -> None:
        self.setup = setup
        self.jobs = jobs
        self.progress = progress  # told (files done, files to do) as answers come
        self.packages = setup.packages
        self.layout_reads: set[str] = set()  # paths the packages were worked out from, when done here
        self._pool: Forks | _Here | None = None

    def run(self, todo: list[SourceFile], known: dict[str, Outcome], listed: list[SourceFile], root: Path,
            composing: Sequence[SourceFile] = ()) -> tuple[dict[str, Outcome], Scripts | None, dict[str, Composed]]:
        """The outcomes of `todo` (checked) and of `known` (from the memo), the scripts, when known, and what
        composing gave (`setup.compose`: each shell-family file of `todo` and of `composing`, which the rules
        do not check). The packages are worked out here when they are not given and a YAML config is checked.

        Every other file is checked once the scripts are answered, so which of its parts are analysed
        (bot.lang.focus) never rests on how far the workers had got: a run reports the same launches
        with any number of workers, and with or without a memo. Only a run that lists scripts it does
        not check (`--files`) and that no caller waits in leaves the scripts unknown, reading other files as
        if any might hold a token.
        """
        with scanning():  # millions of small objects made and dropped (bot.collector); forked workers inherit it
            return self._run(todo, known, listed, root, composing)

    def _run(self, todo: list[SourceFile], known: dict[str, Outcome], listed: list[SourceFile], root: Path,
             composing: Sequence[SourceFile]) -> tuple[dict[str, Outcome], Scripts | None, dict[str, Composed]]:
        pool = self._pool = self._start(len(todo) + len(composing))
        run = _Run(self, pool, todo, known, listed, root, composing)
        while True:
            if not run.released and not run.scripts_left:
                run.release()
            run.settle_waiting()
            if not pool.pending():
                break
            if run.take(*pool.answer()) and self.progress is not None:
                self.progress(len(run.outcomes) - len(known) + run.composed_apart, len(todo) + len(composing))
        return run.outcomes, run.scripts, run.composed

    def _scripts(self, listed: list[SourceFile], outcomes: dict[str, Outcome], needed: bool) -> Scripts | None:
        """Which listed scripts hold a token: when every one of them was answered, or a caller waits for them
        (the others are then read here); else None (a `--files` run)."""
        if not needed and not all(s.path in outcomes for s in listed if _is_script(s)):
            return None
        return scripts_of(listed, outcomes, self.setup.context.focus)

    def _start(self, count: int) -> Forks | _Here:
        if self.jobs <= 1 or self.setup.facts is not None or count < PARALLEL_FROM or not can_fork():
            return _Here(self.setup)
        if self.setup.compose is not None:
            load_composing()  # each worker inherits it
            self.setup.context.stored.registered()  # and the configs the repository stores (one walk of its Python)
        return Forks(self.jobs, self.setup)

    def _chunks(self, files: list[SourceFile], of: int | None = None) -> Iterator[list[SourceFile]]:
        """`files` in chunks sized for `of` files (all of `files` unless given): small, as a few files hold most of
        the work."""
        size = max(1, min(32, (len(files) if of is None else of) // (self.jobs * 16)))
        for start in range(0, len(files), size):
            yield files[start : start + size]

    def _places(self, pool: Forks | _Here, files: Sequence[SourceFile], tokens: tuple[bytes, ...] | None = None
                ) -> dict[str, int]:
        """The worker each of `files` whose launches seem to compose against one base goes to (bot.compose.affinity),
        by path; `tokens`: only those that hold one of them (the files the rules may edit, whose edited launches
        the judge composes). None in this process."""
        if not isinstance(pool, Forks):
            return {}
        keys = guess_keys(files, tokens)
        shared = files if tokens is None else [s for s in files if s.path in keys]  # the others cost the rules little
        return {s.path: index for index, own in enumerate(share_out(shared, keys, len(pool.workers))) for s in own}

    def judged_places(self, pool: Forks | _Here, todo: list[SourceFile]) -> dict[str, int]:
        """The places of the shell-family files the scan composes as it checks them (`watch`, `run --compose`: each
        is composed in the task that reads it), else of those the rules may edit (they hold a token) when a rule
        adds keys to the launches it reaches (`ensure`): the judge then composes the base of most of them. Rules
        that only change what a launch sets edit few launches (none on verl's tip), and reading every file first
        would cost the plain scan more than the bases it saves."""
        context = self.setup.context
        if not isinstance(pool, Forks):
            return {}
        if self.setup.compose is not None:  # each file is composed where it is read
            return self._places(pool, [s for s in todo if is_shell_family(s.kind)])
        if not any(rule.ensure for rule in context.rules):
            return {}
        tokens = context.focus.tokens if context.focus is not None else None
        return self._places(pool, [s for s in todo if is_shell_family(s.kind)], tokens)

    def _submit(self, pool: Forks | _Here, function: Any, files: list[SourceFile], places: Mapping[str, int],
                of: int, urgent: bool = False, **keywords: Any) -> dict[int, list[SourceFile]]:
        """function over `files` (the largest first) in chunks sized for `of` files, by task: each chunk of one
        worker's files (`places`) or of files for any worker, the chunks in the order of their largest file."""
        groups: dict[int | None, list[SourceFile]] = {}
        for source in files:
            groups.setdefault(places.get(source.path), []).append(source)
        parts = [(worker, part) for worker, group in groups.items() for part in self._chunks(group, of)]
        parts.sort(key=lambda item: -item[1][0].size)  # stable: equals keep their order
        return {pool.submit(function, part, urgent=urgent, worker=worker, **keywords): part for worker, part in parts}

    def __enter__(self) -> Batches:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.close()


class _Run:
    """One run of the batches: what is submitted, what is answered, and what waits for the scripts."""

    def __init__(self, batches: Batches, pool: Forks | _Here, todo: list[SourceFile], known: dict[str, Outcome],
                 listed: list[SourceFile], root: Path, composing: Sequence[SourceFile]) -> None:
        self.batches, self.pool, self.listed = batches, pool, listed
        self.outcomes = dict(known)
        self.composed: dict[str, Composed] = {}
        self.waiting: list[tuple[SourceFile, Waiting | None]] = []
        self.scripts: Scripts | None = None
        first = sorted((s for s in todo if _is_script(s)), key=lambda s: -s.size)
        self.scripts_left = {s.path for s in first}
        self.held: list[SourceFile] = []  # kept back until the packages are known
        self.layout_task = None
        if batches.packages is None and any(is_config(s.kind) for s in todo):
            self.layout_task = pool.submit(_layout, [root], yaml_paths=[s.path for s in listed if is_config(s.kind)])
            self.held = [s for s in todo if is_config(s.kind)]  # their front ends read the layout
        kept_back = {s.path for s in self.held}
        # the large first: a small file ends the scan
        self.rest = sorted((s for s in todo if not _is_script(s) and s.path not in kept_back), key=lambda s: -s.size)
        self.places = batches.judged_places(pool, todo)
        self.chunks = batches._submit(pool, _scan, first, self.places, len(first))
        by_size = sorted(composing, key=lambda s: -s.size)  # composed only: their places are their own
        self.alone = batches._submit(pool, compose_one, by_size, batches._places(pool, by_size), len(by_size))
        self.released = False  # the files after the scripts were submitted
        self.apart = {s.path for s in composing}
        self.composed_apart = 0  # files of `composing` answered (for the progress)

    def release(self) -> None:
        """Every script is answered: the scripts are handed to every worker and the other files submitted."""
        self.released = True
        quiet = {source.path: found.outcome for source, found in self.waiting if found is not None}
        self.scripts = self.batches._scripts(self.listed, {**self.outcomes, **quiet}, bool(self.waiting))
        if self.scripts is not None:
            self.pool.broadcast(_use, {"scripts": self.scripts})
        self.chunks.update(self.batches._submit(self.pool, _scan, self.rest, self.places, len(self.rest)))
        if self.batches.packages is not None:
            self.submit_held()

    def submit_held(self) -> None:
        self.chunks.update({self.pool.submit(_scan, part, urgent=True): part
                            for part in self.batches._chunks(self.held)})
        self.held = []

    def settle_waiting(self) -> None:
        """The files that wait for the scripts, once they are known: settled, or checked whole."""
        if self.released and self.scripts is None and self.waiting:  # a caller waits: the scripts are read now
            quiet = {source.path: found.outcome for source, found in self.waiting if found is not None}
            self.scripts = self.batches._scripts(self.listed, {**self.outcomes, **quiet}, True)
            self.pool.broadcast(_use, {"scripts": self.scripts})
        if self.scripts is None or not self.waiting:
            return
        for source, found in self.waiting:
            if found is not None and not found.calls.run_hot(self.scripts):
                self.outcomes[source.path] = found.outcome
            else:  # it may run a script that holds a token: checked whole, the scripts known (and composed)
                self.chunks[self.pool.submit(_scan, [source], urgent=True, worker=self.places.get(source.path),
                                             composing=False)] = [source]
        self.waiting = []

    def take(self, number: int, results: list[Any]) -> bool:
        """An answer of the workers; False for the packages (no file answered)."""
        if number == self.layout_task:
            self.batches.packages, self.batches.layout_reads = results[0]
            self.pool.broadcast(_use, {"packages": self.batches.packages})
            if self.released:
                self.submit_held()
            return False
        if number in self.alone:
            for source, part in zip(self.alone.pop(number), results, strict=True):
                self.composed[source.path] = part
                self.composed_apart += source.path in self.apart
            return True
        for source, (found, part) in zip(self.chunks.pop(number), results, strict=True):
            self.scripts_left.discard(source.path)
            if part is not None:
                self.composed[source.path] = part
            if isinstance(found, Outcome):
                self.outcomes[source.path] = found
            else:
                self.waiting.append((source, found))
        return True


def _is_script(source: SourceFile) -> bool:
    """A file whose outcome tells whether callers that name it must be read (bot.engine.wanted.scripts_of)."""
    return is_callee_script(source.kind, source.path)


__all__ = ["Batches", "Setup"]
