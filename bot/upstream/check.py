"""What infer reads of a Python file: a validation check (an assert, an `if ...: raise`) on a config field, and
one it could not read as a rule. Apart from the reading (bot.upstream.checks, with libcst), so that what infer
makes of them needs no libcst: the files are read on forked workers, which import it themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONFIG_WORDS = ("config", "cfg", "conf")  # a segment of a chain holding one of these names a config


@dataclass(frozen=True)
class Check:
    path: str
    line: int
    cls: str | None
    holder: str  # the attribute chain holding the field, e.g. "self.engine_config"
    field: str
    kind: str  # truthy | falsy | equals | not_equals | in | not_none | bound | relation
    values: tuple[Any, ...] = ()  # bound: (op, number); relation: (op, other field)
    text: str = ""
    message: str = ""
    guard: str = ""  # the condition under which the check runs (`if a: assert b`, an early return)
    guard_reads: tuple[tuple[str, str, tuple[Any, ...]], ...] | None = ()  # the guard as constraints
    func: str | None = None  # the enclosing function, where the holder's name is bound

    def identity(self) -> tuple[object, ...]:
        return (self.cls, self.holder, self.field, self.kind, self.values, self.guard)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def subject(self) -> tuple[object, ...]:
        return (self.cls, self.holder, self.field)


@dataclass(frozen=True)
class NotUnderstood:
    """A new check on a config field whose condition the bot cannot read as a rule."""

    path: str
    line: int
    text: str
    message: str
    reason: str

    def describe(self) -> str:
        if not self.text:  # the file as a whole: not read, or failed
            return f"{self.path}: validation not read: {self.reason}"
        said = f' ("{self.message}")' if self.message else ""
        return f"{self.path}:{self.line}: validation changed, not understood: `{self.text}`{said}: {self.reason}"
