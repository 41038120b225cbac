"""What one scan knows of its repository, built once before its files are read (bot.engine.context).

The context is handed, as an argument, to the front ends, to `hydra/` and to the workers a scan forks
(the engine's, bot.engine.context.EngineContext, adds what only the engine reads):
no fact of a repository is kept in the process, so two scans in one process never read each
other's (tests/test_scan_state.py). It is frozen; the caches it holds are the scan's own and are
filled as the scan goes (what `hydra.app` found of the repository's files, the composer's bases).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Consoles:
    """The repository's console scripts (bot.lang.consoles): command -> "module:function", or "./path" for a
    script file the packaging installs as a command. A command of the table is a launch."""

    table: tuple[tuple[str, str], ...] = ()
    _targets: dict[str, str] = field(init=False, repr=False, compare=False)
    words: tuple[bytes, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_targets", dict(self.table))
        object.__setattr__(self, "words", tuple(name.encode() for name, _ in self.table))

    @classmethod
    def of(cls, table: dict[str, str]) -> Consoles:
        return cls(tuple(sorted(table.items())))

    def __bool__(self) -> bool:
        return bool(self.table)

    def __contains__(self, command: object) -> bool:
        return command in self._targets

    def target(self, command: str) -> str | None:
        """The "module:function" a command runs, if the repository declares it."""
        return self._targets.get(command)

    def module(self, command: str) -> str | None:
        """The module a console script runs (`sheeprl` -> `sheeprl.cli`), if the repository declares it."""
        target = self._targets.get(command)
        return target.partition(":")[0] if target is not None else None

    def named_in(self, text: bytes) -> bool:
        """Whether the text names one of the commands (a cheap test before reading it)."""
        return any(word in text for word in self.words)


NO_CONSOLES = Consoles()  # a repository that declares none, or text read with no repository


@dataclass(frozen=True, kw_only=True)
class ScanContext:
    """One scan's repository, as the front ends and hydra/ read it: its root, console scripts and package
    roots, and the entry points and apps the scan found (bot.hydra.app). The engine's scan context
    (bot.engine.context.EngineContext) is one, with the composer, the listing and the rules besides."""

    root: Path  # resolved
    consoles: Consoles = NO_CONSOLES
    package_roots: tuple[str, ...] = ()  # directories below the root with packaging (a monorepo's packages)
    apps: dict[tuple[object, ...], Any] = field(default_factory=dict, compare=False, repr=False)  # bot.hydra.app
    consoles_digest: str = ""  # the console table and package roots, for the memo (bot.cache.reuse)
