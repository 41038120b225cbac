"""Every parse of a repository's Python goes through here: the stdlib's `ast` and libcst, guarded.

libcst's parser is native code that recurses once per level of nesting: a file with 1,300 nested
brackets, or one expression chaining 7,000 `and`s (180 KB of valid Python), overflows the C stack
and kills the whole process (SIGSEGV), not just the file. So before libcst sees a file, one linear
scan of its tokens (`too_deep`) totals what nests on the way to each point (open brackets, the
operators chained at each bracket level, calls and subscripts chained on one value, `lambda`s,
`elif` runs, indentation) and refuses the file long before that: the weights are what each costs
libcst's stack, measured, and the bound is a fraction of what an 8 MB stack takes. A file over it
raises `TooDeep` with a one-line reason (which the scan reports as the file's error entry).
CPython's own parser guards itself (it raises RecursionError, MemoryError or SyntaxError), so
`parse_ast` only turns those into the same `TooDeep`.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    import libcst

MAX_BRACKETS = 200  # CPython refuses deeper nesting itself ("too many nested parentheses")
MAX_INDENT = 100  # and more levels of indentation
BUDGET = 2000  # units of nesting, a link of an `and` chain being 1: libcst overflows 8 MB near 7,000
BRACKET, TRAILER, LAMBDA = 6, 2, 2  # units of a bracket level, a call or subscript, a lambda
INDENT = 6

_WORDS = rb"(?:lambda|and|or|not|if|else|await|in|is)"  # the words that chain an expression
_TOKEN = re.compile(  # a token the scan weighs, after the names, numbers and blanks before it (skipped in C)
    rb"(?:(?!" + _WORDS + rb"\b)[A-Za-z_]\w*|\d+|[ \t]+)*"
    rb"(?:(#[^\r\n]*)"  # 1 comment
    rb"|(\"\"\"(?:[^\"\\]|\\[\s\S]|\"(?!\"\"))*(?:\"\"\"|\Z)|'''(?:[^'\\]|\\[\s\S]|'(?!''))*(?:'''|\Z)"
    rb"|\"(?:[^\"\\\r\n]|\\[\s\S])*\"?|'(?:[^'\\\r\n]|\\[\s\S])*'?)"  # 2 string (a prefix is a name skipped)
    rb"|([(\[{])"  # 3 opening bracket
    rb"|([)\]}])"  # 4 closing bracket
    rb"|(\\\r?\n)"  # 5 line continuation
    rb"|(\r?\n(?:[ \t\f]*(?:#[^\r\n]*)?\r?\n)*([ \t\f]*)(elif\b)?)"  # 6 line break (7 indentation, 8 elif)
    rb"|([,;])"  # 9 separator
    rb"|([-+*/%@&|^~<>!.=:]+)"  # 10 operators
    rb"|(lambda\b)"  # 11
    rb"|(" + _WORDS + rb"\b)"  # 12 an operator word
    rb"|([\s\S])|(\Z))"  # 13 anything else, 14 the end: so the names skipped never give a character back
)
_BRACES = re.compile(rb"\{\{|\}\}|[{}]")  # an f-string's braces (doubled: a literal one, between fields)
_STATEMENT = {b"=", b"+=", b"-=", b"*=", b"/=", b"//=", b"%=", b"@=", b"&=", b"|=", b"^=", b">>=", b"<<=",
              b"**=", b":="}  # end what chains before them


class TooDeep(RecursionError):
    """Python nested or chained deeper than the bot parses; the message is the one-line reason."""


def too_deep(source: str | bytes) -> str | None:
    """Why libcst must not parse `source` (it could overflow the C stack), or None when it may."""
    data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
    depth = _Depth()
    previous = 0  # the group of the last token
    for match in _TOKEN.finditer(data):
        group = match.lastindex or 0
        start = match.start(group)
        problem = None
        if group == 3:  # after a value: a call or subscript
            problem = depth.open_bracket(previous in (2, 4) or bool(data[match.start():start].strip()))
        elif group == 4:
            depth.close_bracket()
        elif group == 2 and data[max(start - 2, 0):start].lower().endswith((b"f", b"fr", b"rf")):
            problem = _f_string(match.group(2), depth.chains, depth.below)  # its fields nest expressions
        elif group == 6:
            if len(depth.chains) > 1:
                continue  # inside brackets a line break is a blank
            problem = depth.line_break(match)
        elif group in (9, 10, 11, 12):
            depth.chain(group, match.group(group))
        if problem is not None:
            return _where(data, match.end() if group == 6 else start, problem)
        if group not in (1, 5):
            previous = group
            if depth.units() > BUDGET:
                return _where(data, start, "nested or chained deeper than the bot parses "
                                           f"(more than {BUDGET} levels of brackets, operators, calls, branches)")
    return None


class _Depth:
    """How deep the text read so far nests, in units: brackets, what chains inside each, indentation, elifs."""

    def __init__(self) -> None:
        self.chains = [0]  # per open bracket: the units chained at that level so far
        self.below = [0]  # per open bracket: the units of the levels outside it
        self.indents = [0]  # widths of the open indented blocks
        self.elifs: dict[int, int] = {}  # indentation width -> the `elif`s run so far at it
        self.nested = 0  # units of the indentation and the `elif` runs around the current line

    def units(self) -> int:
        return self.chains[-1] + self.below[-1] + self.nested

    def open_bracket(self, after_value: bool) -> str | None:
        if after_value:
            self.chains[-1] += TRAILER
        if len(self.chains) > MAX_BRACKETS:
            return f"brackets nested more than {MAX_BRACKETS} deep"
        self.below.append(self.below[-1] + self.chains[-1] + BRACKET)
        self.chains.append(0)
        return None

    def close_bracket(self) -> None:
        if len(self.chains) > 1:
            self.chains.pop()
            self.below.pop()

    def line_break(self, match: re.Match[bytes]) -> str | None:
        """A logical line ends (outside brackets)."""
        self.chains[0] = 0
        self.nested = _line(match, self.indents, self.elifs)
        if len(self.indents) > MAX_INDENT:
            return f"more than {MAX_INDENT} levels of indentation"
        return None

    def chain(self, group: int, text: bytes) -> None:
        """A separator or a statement's operator ends a chain; other operators, `lambda` and words add to it."""
        if group == 9 or (group == 10 and text in _STATEMENT):
            self.chains[-1] = 0
        elif group == 10 and text != b":":  # a lambda's, a slice's, a dict's or a block's colon chains nothing
            self.chains[-1] += len(text)
        elif group == 11:
            self.chains[-1] += LAMBDA
        elif group == 12:
            self.chains[-1] += 1


def _f_string(text: bytes, chains: list[int], below: list[int]) -> str | None:
    """An f-string's braces, as brackets: the fields it opens and does not close (Python 3.12 nests
    f-strings in its fields with any quotes) stay open until a closing brace outside closes them."""
    fields = 0  # open in this string
    for brace in _BRACES.finditer(text):
        if fields == 0 and len(brace.group()) == 2:
            continue
        for char in brace.group():
            if char == ord("{"):
                if len(chains) > MAX_BRACKETS:
                    return f"brackets nested more than {MAX_BRACKETS} deep"
                fields += 1
                below.append(below[-1] + chains[-1] + BRACKET)
                chains.append(0)
            else:
                fields = max(fields - 1, 0)
                if len(chains) > 1:
                    chains.pop()
                    below.pop()
    return None


def _line(match: re.Match[bytes], indents: list[int], elifs: dict[int, int]) -> int:
    """A new logical line: the indentation and `elif` runs it is inside, in units."""
    width = len(match.group(7).expandtabs(8))
    while len(indents) > 1 and indents[-1] > width:
        indents.pop()
    if width > indents[-1]:
        indents.append(width)
    for deeper in [w for w in elifs if w > width]:
        del elifs[deeper]
    elifs[width] = elifs.get(width, 0) + 1 if match.group(8) else 0
    return INDENT * (len(indents) - 1) + sum(elifs.values())


def _where(data: bytes, offset: int, what: str) -> str:
    line = data.count(b"\n", 0, offset) + 1
    return f"Python {what} at line {line}"


def parse_cst(source: str | bytes) -> libcst.Module:
    """libcst's tree of `source`; raises TooDeep (before libcst runs) or libcst's ParserSyntaxError."""
    import libcst as cst

    problem = too_deep(source)
    if problem is not None:
        raise TooDeep(problem)
    return cst.parse_module(source)


@overload
def parse_ast(source: str | bytes, mode: Literal["exec"] = "exec") -> ast.Module: ...


@overload
def parse_ast(source: str | bytes, mode: Literal["eval"]) -> ast.Expression: ...


def parse_ast(source: str | bytes, mode: str = "exec") -> ast.AST:
    """The stdlib's tree of `source` (warnings silenced); raises SyntaxError or ValueError as `ast.parse`
    does, and TooDeep for what CPython refuses to nest."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, mode=mode)
    except (RecursionError, MemoryError) as exc:
        raise TooDeep(f"Python nested deeper than the stdlib parser takes ({type(exc).__name__})") from None
