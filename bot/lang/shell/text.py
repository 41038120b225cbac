"""Shell text after quote removal, with every character mapped back to its source bytes.

A `Piece` is a run of characters from one quoting context of one place in the file (or a
run whose value is unknown until run time). A `Field` is one argv word after expansion and
word splitting: a list of pieces. Keeping the mapping lets an edit target the exact bytes of
a value even when it came through a variable, an array element or a packed string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import overload

from bot.model import Span

BARE, SINGLE, DOUBLE, ANSI = "b", "s", "d", "a"
SCRIPT_DIR = "the script's own directory"  # why `$(cd "$(dirname "$0")" && pwd)` is dynamic: resolved per file
WORK_DIR = "the working directory"  # why `$(pwd)` and `$PWD` are dynamic: where the script has `cd`ed to
SHELL_SPACE = " \t\n"


@dataclass(init=False, unsafe_hash=True, slots=True)
class Via:
    """One step of variable expansion: `$var` at `use` in some word read `definition` (never changed once made,
    not frozen: see Piece)."""

    var: str
    definition: Definition
    use: Span
    use_ctx: str

    def __init__(self, var: str, definition: Definition, use: Span, use_ctx: str) -> None:
        self.var = var
        self.definition = definition
        self.use = use
        self.use_ctx = use_ctx


@dataclass(init=False, unsafe_hash=True, slots=True)
class Piece:
    text: str
    # byte offset where each character starts and ends, ascending; empty when dynamic. A range when
    # every character is one byte (the common case), so no per-character tuple is built.
    starts: Sequence[int] = ()
    ends: Sequence[int] = ()
    ctx: str = BARE
    quote: int = -1  # start byte of the enclosing quoted string, -1 when bare
    via: tuple[Via, ...] = ()
    dynamic: str | None = None  # why the value is unknown until run time
    default_of: str | None = None  # text is the `${V:-text}` default of V
    splittable: bool = False  # unquoted expansion result: word splitting applies

    def __init__(self, text: str, starts: Sequence[int] = (), ends: Sequence[int] = (), ctx: str = BARE,
                 quote: int = -1, via: tuple[Via, ...] = (), dynamic: str | None = None,
                 default_of: str | None = None, splittable: bool = False) -> None:
        # a piece is never changed once made, but is not frozen: a frozen dataclass sets each field with
        # object.__setattr__, and pieces are made by the hundred thousand (slots: set and read faster still)
        self.text = text
        self.starts = starts
        self.ends = ends
        self.ctx = ctx
        self.quote = quote
        self.via = via
        self.dynamic = dynamic
        self.default_of = default_of
        self.splittable = splittable

    @property
    def static(self) -> bool:
        return self.dynamic is None

    def sub(self, i: int, j: int) -> Piece:
        text = self.text
        if i == 0 and j == len(text):
            return self
        if self.dynamic is not None:
            return Piece(text[i:j], self.starts, self.ends, self.ctx, self.quote, self.via, self.dynamic,
                         self.default_of, self.splittable)
        return Piece(text[i:j], self.starts[i:j], self.ends[i:j], self.ctx, self.quote, self.via,
                     None, self.default_of, self.splittable)

    def with_via(self, via: Via, splittable: bool) -> Piece:
        return Piece(self.text, self.starts, self.ends, self.ctx, self.quote, (via, *self.via), self.dynamic,
                     self.default_of, splittable)


class ScriptDirPiece(Piece):
    """The script's own directory with the path a substitution appends to it inside (`$(realpath
    "$(dirname "$0")/..")`: `after` is `/..`), kept apart from the text, which is the source's."""

    __slots__ = ("after",)

    def __init__(self, text: str, after: str, ctx: str = BARE, via: tuple[Via, ...] = (),
                 splittable: bool = False) -> None:
        super().__init__(text, ctx=ctx, via=via, dynamic=SCRIPT_DIR, splittable=splittable)
        self.after = after

    def sub(self, i: int, j: int) -> Piece:
        return self if i == 0 and j == len(self.text) else Piece.sub(self, i, j)

    def with_via(self, via: Via, splittable: bool) -> Piece:
        return ScriptDirPiece(self.text, self.after, self.ctx, (via, *self.via), splittable)


def after_script_dir(piece: Piece) -> str:
    """The path a script-directory piece appends to the directory ("" for the directory itself)."""
    return piece.after if isinstance(piece, ScriptDirPiece) else ""


BREAK = None  # between the elements of "${array[@]}": always ends a field


Items = list["Piece | None"]  # pieces, with BREAK between the elements of an array


@dataclass(eq=False)
class Definition:
    """One assignment of a shell variable (or the caller's value, where the script never assigns it)."""

    name: str
    kind: str  # scalar | array | caller | loop
    line: int  # 1-based; 0 for caller
    span: Span | None = None  # the value's node
    values: list[Items] = field(default_factory=list)  # alternatives
    uses: list[Span] = field(default_factory=list)
    conditional: bool = False
    guard: tuple[tuple[int, int], ...] = ()  # the branch arms it was assigned in (bot.lang.shell.arms)

    def describe(self) -> str:
        if self.kind == "caller":
            return f"{self.name} (from the caller)"
        return f"{self.name}, line {self.line}"


class _Joined:
    """`Field.text`: joined on first reading and kept in the field's __dict__, where later readings find it
    as they find an attribute. A field's pieces are all appended (bot.lang.shell.text.split_fields) before
    its text is first read, and never change after."""

    @overload
    def __get__(self, item: None, owner: type | None = None) -> _Joined: ...

    @overload
    def __get__(self, item: Field, owner: type | None = None) -> str: ...

    def __get__(self, item: Field | None, owner: type | None = None) -> str | _Joined:
        if item is None:  # read on the class
            return self
        text = "".join([p.text for p in item.pieces])
        item.__dict__["text"] = text
        return text


@dataclass
class Field:
    pieces: list[Piece] = field(default_factory=list)
    word: int = -1  # which word of the command it came from (alternatives of one word share it)

    text = _Joined()  # not a dataclass field: no annotation

    @property
    def static(self) -> bool:
        pieces = self.pieces
        if len(pieces) == 1:  # most words; read for every word of every launch
            return pieces[0].dynamic is None
        return all(p.dynamic is None for p in pieces)

    def chars(self, i: int, j: int) -> list[Piece]:
        """The pieces covering characters [i, j) of the field's text."""
        pieces = self.pieces
        if len(pieces) == 1:
            piece = pieces[0]
            n = len(piece.text)
            lo = i if i > 0 else 0
            hi = j if j < n else n
            return [piece.sub(lo, hi)] if lo < hi else []
        out, pos = [], 0
        for piece in pieces:
            a = pos
            pos = b = a + len(piece.text)
            lo = i if i > a else a
            hi = j if j < b else b
            if lo < hi:
                out.append(piece.sub(lo - a, hi - a))
        return out

    def first_dynamic(self, i: int = 0) -> Piece | None:
        pos = 0
        for piece in self.pieces:
            if pos + len(piece.text) > i and not piece.static:
                return piece
            pos += len(piece.text)
        return None


def source_span(pieces: Sequence[Piece]) -> Span | None:
    """The byte span that holds exactly these characters, if they are static and in one place."""
    if not pieces:
        return None
    first = pieces[0]
    ctx, quote, via = first.ctx, first.quote, first.via
    last_end = -1
    for p in pieces:
        starts = p.starts
        if p.dynamic is not None or not starts:
            return None
        if p.ctx != ctx or p.quote != quote or (p.via is not via and p.via != via):
            return None
        # offsets ascend within a piece by construction; across pieces the next must not start earlier
        if starts[0] < last_end:
            return None
        last_end = p.ends[-1]
    return Span(first.starts[0], pieces[-1].ends[-1])


def split_fields(items: list[Piece | None]) -> list[Field]:
    """Join pieces into fields, splitting unquoted expansion results on blanks."""
    if len(items) == 1:  # most words: one piece that is not split
        only = items[0]
        if only is not None and (not only.splittable or only.dynamic is not None):
            return [Field([only])] if only.text or not only.splittable else []
    fields: list[Field] = []
    current: Field | None = None
    for item in items:
        if item is BREAK:
            if current is not None:
                fields.append(current)
            current = None
            continue
        if not item.splittable or not item.static:
            if item.text or current is None:
                current = current or Field()
                if item.text or not item.splittable:
                    current.pieces.append(item)
            continue
        i, n = 0, len(item.text)
        while i < n:
            if item.text[i] in SHELL_SPACE:
                while i < n and item.text[i] in SHELL_SPACE:
                    i += 1
                if current is not None:
                    fields.append(current)
                current = None
                continue
            j = i
            while j < n and item.text[j] not in SHELL_SPACE:
                j += 1
            current = current or Field()
            current.pieces.append(item.sub(i, j))
            i = j
    if current is not None:
        fields.append(current)
    return [f for f in fields if f.pieces]
