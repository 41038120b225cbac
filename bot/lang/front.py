"""What a language front end is: bytes in, groups of settings out, and a writer for planned fixes.

One front end per file kind, registered in one table (bot.lang.FRONT_ENDS). The engine evaluates
every unit a front end reads with the one evaluator, lets the unit's writer realise the fixes,
and verifies the result with the front end's own error count and problem check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from bot.ir import ErrorRegion, Launch, Realise, SettingGroup
from bot.model import Finding

if TYPE_CHECKING:
    from tree_sitter import Tree

    from bot.context import Consoles
    from bot.lang.embedded.views import ShellView

UNREADABLE = 10**6  # as many parse errors as a file that no longer reads as its kind can have


class SourceUnreadable(ValueError):
    """The file is not what its name says (a notebook that is not JSON, a workflow that is not YAML)."""


@dataclass
class Unit:
    """Groups read from one place of a file (a whole script, one doc's shell, one YAML document set)."""

    groups: list[SettingGroup]
    realise: Realise
    to_host: Callable[[Finding], Finding] | None = None  # a view's finding in the file's lines and bytes


@dataclass
class Reading:
    units: list[Unit] = field(default_factory=list)
    partly_parsed: bool = False
    regions: list[ErrorRegion] = field(default_factory=list)  # what the parse errors might hide
    launches: int = 0
    reads: set[str] = field(default_factory=set)  # other repository files the result depends on
    inputs: set[str] | None = None  # a script's: the variables its callers can hand its overrides (None: not told)


class FrontEnd(Protocol):
    def read(self, data: bytes) -> Reading: ...  # raises SourceUnreadable
    def errors(self, data: bytes) -> int: ...
    def problem(self, before: bytes, after: bytes) -> str | None: ...


@dataclass(frozen=True)
class ShellFamily:
    """How a kind of the shell family is read (its registration in bot.lang.FRONT_ENDS): the views its shell is
    in, and what that shell's reading means for the file."""

    # (file, the repository's console scripts, where a view's parse comes from) -> its views; raises ValueError
    views: Callable[[bytes, Consoles, Callable[[bytes], Tree] | None], list[ShellView]]
    all_exported: bool = False  # every variable reaches the commands' environment (a workflow's `env:`)
    whole_file: bool = False  # the shell is what the file is (a script, workflow steps, recipes): a parse error
    # there leaves the file partly parsed (a doc's block that does not parse is only masked)
    hands_inputs: bool = False  # callers run it: which of their values reach its keys (Reading.inputs)
    host_errors: Callable[[bytes], int] | None = None  # parse errors of the format around the shell (YAML)
    host_problem: Callable[[bytes, bytes], str | None] | None = None  # what an edit broke around it (JSON)


@dataclass
class LaunchView:
    """One part of a file read as a script (the whole script, a doc's shell blocks, a notebook's cells): the
    launches it reports, as bot.ir.Launch (lines and bytes the view's), and the view, which says them in the
    file's terms."""

    view: ShellView
    launches: list[Launch]
    partly_parsed: bool
    near_errors: Callable[[], set[int]]  # the view's lines in or next to a part its parser could not read
    regions: Callable[[], list[ErrorRegion]]  # those parts (bot.rules.parse_reach: what they may hide)


class LaunchReader(Protocol):
    """What reads a file's launches for composing them (bot.lang.launch_reader): the file's shell front end,
    which parses each text once, whoever asks (its views, their trees, their launches)."""

    kind: str

    def views(self, data: bytes) -> list[ShellView]: ...  # raises ValueError
    def tree(self, text: bytes) -> Any: ...  # tree-sitter's tree of a view's text
    def launch_views(self, data: bytes) -> list[LaunchView]: ...  # raises ValueError
    def errors(self, data: bytes) -> int: ...
    def problem(self, before: bytes, after: bytes) -> str | None: ...
