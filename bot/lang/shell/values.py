"""What an override's value is, as far as the script itself says, and where it came from."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bot.hydra.grammar import HydraSyntaxError, Parsed, parse_override
from bot.ir import State
from bot.lang.shell.launches import Override
from bot.lang.shell.text import Piece, Via


@dataclass(init=False, unsafe_hash=True, slots=True)
class ValueInfo:
    state: State
    value: Any = None
    text: str | None = None  # the value as Hydra reads it, before parsing
    reason: str = ""
    extra: tuple[Via, ...] = ()  # expansions the value came through, beyond the key's own
    default_of: str | None = None

    def __init__(self, state: State, value: Any = None, text: str | None = None, reason: str = "",
                 extra: tuple[Via, ...] = (), default_of: str | None = None) -> None:
        # never changed once made, not frozen: a frozen dataclass sets each field with object.__setattr__, and
        # one is made per override (as bot.lang.shell.text.Piece)
        self.state = state
        self.value = value
        self.text = text
        self.reason = reason
        self.extra = extra
        self.default_of = default_of

    def origin(self) -> str:
        """`from USE_MBRIDGE (line 12)` and the like; empty for a literal in the override."""
        if self.state == "dynamic":
            return self.reason
        if self.extra:
            source = " via ".join(f"{v.var} (line {v.definition.line})" for v in self.extra)
            if self.default_of:
                return f"from the default of {source}, which the caller may override"
            return f"from {source}"
        if self.default_of:
            return f"the default of {self.default_of}, which the caller may override"
        return ""

    def identity(self) -> tuple[object, ...]:
        return (self.state, self.text, tuple([id(v.definition) for v in self.extra]) if self.extra else ())


def value_chain(override: Override, piece: Piece) -> tuple[Via, ...] | None:
    """The piece's expansions beyond those that brought the override itself, or None if unrelated."""
    chain = override.key_chain
    via = piece.via
    if not chain:
        return via
    if len(via) < len(chain):
        return None
    for mine, key in zip(via, chain):  # mostly the very same step: the key and the value came through it
        if mine is not key and mine.use != key.use:
            return None
    return via[len(chain) :]


def read_value(override: Override) -> ValueInfo:
    if override.value_start is None:
        return ValueInfo(State.NONE)
    pieces = override.value_run
    chain = value_chain(override, pieces[0]) if pieces else None  # only the first piece's chain is kept
    extra: tuple[Via, ...] = chain if chain is not None else ()
    default_of = dynamic = None
    for piece in pieces:  # the first default and the first dynamic piece
        if default_of is None and piece.default_of:
            default_of = piece.default_of
        if dynamic is None and piece.dynamic is not None:
            dynamic = piece
    if dynamic is not None:
        return ValueInfo(State.DYNAMIC, reason=dynamic.dynamic or "unknown until run time", extra=extra,
                         default_of=default_of)
    text = override.value_text or ""
    parsed = hydra_reading(f"{override.key}={text}")
    if isinstance(parsed, str):
        return ValueInfo(State.INVALID, text=text, reason=parsed, extra=extra)
    return ValueInfo(State.STATIC, value=parsed.value, text=text, extra=extra, default_of=default_of)


@lru_cache(maxsize=16384)
def hydra_reading(text: str) -> Parsed | str:
    """Hydra's reading of the override `text`, or why it cannot read it; once per text, as launches repeat
    most overrides (12,499 on verl's tip, 2,094 distinct). The value is shared: it is never changed."""
    try:
        return parse_override(text)
    except HydraSyntaxError as exc:
        return f"Hydra cannot parse it: {exc}"
