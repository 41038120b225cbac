"""Globs over dotted Hydra keys and over slash-separated file paths.

Both share one syntax: `*` is one segment, `**` any number of segments (zero included), `{a,b}`
alternatives (which may hold `*` and nest), `?` one character of a segment, anything else literal
(no character classes, no escapes). Within a segment `*` also matches part of it (`use_*`), as in
ast-grep and gitignore.

Matching never backtracks and never expands braces: a glob compiles to a Thompson NFA (a few
states per pattern token) run over the set of its live states, so a match costs O(len(pattern) x
len(text)) whatever the glob (`*a*a*a*b`, `**.**.**.x`, 26 `{a,b}`). The sets met are kept as a
lazy DFA: on the hot path a character costs a dict lookup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Union

_SEGMENT_CHARS = re.compile(r"[A-Za-z0-9_\-@/$\[\]]")
_MAX_NESTING = 100  # brace depth; deeper would only exhaust the parser's recursion
_MAX_LEAVES = 256  # more literal leaves than this and the prefilter gives up (None), never expanding them
_MAX_STATES = 1024  # lazy-DFA states kept per glob before starting over
_MAX_RESULTS = 4096  # texts whose answer is remembered per glob

# Parsed tokens: a literal character, one of these codes, or a list of alternatives (token lists).
_ONE, _SEGMENT, _ANY, _DIRS, _TAIL = range(5)  # ? | * | .* | (?:seg sep)* | (?:sep seg)*
Token = Union[str, int, "list[list[Token]]"]
# NFA instructions
_CHAR, _NOT, _SPLIT, _MATCH = range(4)


class GlobError(ValueError):
    """A malformed glob; the message says what was expected."""


class _State:
    """A set of NFA positions (a lazy-DFA state) and the transitions computed from it so far."""

    __slots__ = ("accept", "positions", "row")

    def __init__(self, positions: frozenset[int], accept: bool) -> None:
        self.positions = positions
        self.accept = accept
        self.row: dict[str, _State] = {}


class _Program:
    """One glob's NFA, its lazy DFA and the answers met so far. The caches only grow by single
    assignments: a timeout (SIGALRM) raised in the middle of a match leaves them consistent."""

    def __init__(self, tokens: list[Token], sep: str) -> None:
        self.sep = sep
        self.op: list[int] = []
        self.arg: list[str] = []
        self.next: list[int] = []
        self.alt: list[int] = []
        self.final = self._add(_MATCH)
        self.entry = self._sequence(tokens, self.final)
        self._reset()

    def _reset(self) -> None:
        self.results: dict[str, bool] = {}
        self.states: dict[frozenset[int], _State] = {}
        self.start = self._intern(self._closure([self.entry]))

    def __getstate__(self) -> dict[str, object]:
        """Only the NFA: the caches are rebuilt (pickling a long chain of states would recurse deeply)."""
        return {name: getattr(self, name) for name in ("sep", "op", "arg", "next", "alt", "final", "entry")}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._reset()

    def _add(self, op: int, arg: str = "", next_: int = -1, alt: int = -1) -> int:
        self.op.append(op)
        self.arg.append(arg)
        self.next.append(next_)
        self.alt.append(alt)
        return len(self.op) - 1

    def _sequence(self, tokens: list[Token], then: int) -> int:
        for token in reversed(tokens):
            then = self._token(token, then)
        return then

    def _token(self, token: Token, then: int) -> int:
        """The entry state of `token` followed by the state `then`."""
        if isinstance(token, str):
            return self._add(_CHAR, token, then)
        if isinstance(token, list):
            entries = [self._sequence(alternative, then) for alternative in token]
            entry = entries[-1]
            for other in reversed(entries[:-1]):
                entry = self._add(_SPLIT, next_=other, alt=entry)
            return entry
        sep = self.sep
        if token == _ONE:
            return self._add(_NOT, sep, then)
        loop = self._add(_SPLIT, alt=then)
        if token in (_SEGMENT, _ANY):  # [^sep]* and .*
            self.next[loop] = self._add(_NOT, sep if token == _SEGMENT else "\n", loop)
        elif token == _DIRS:  # (?:[^sep]*sep)*
            inner = self.next[loop] = self._add(_SPLIT)
            self.next[inner] = self._add(_NOT, sep, inner)
            self.alt[inner] = self._add(_CHAR, sep, loop)
        else:  # _TAIL: (?:sep[^sep]*)*
            inner = self._add(_SPLIT, alt=loop)
            self.next[inner] = self._add(_NOT, sep, inner)
            self.next[loop] = self._add(_CHAR, sep, inner)
        return loop

    def _closure(self, positions: list[int]) -> frozenset[int]:
        """The consuming (and final) states reachable without input; each state visited once."""
        seen: set[int] = set()
        while positions:
            pc = positions.pop()
            if pc not in seen:
                seen.add(pc)
                if self.op[pc] == _SPLIT:
                    positions += (self.alt[pc], self.next[pc])
        return frozenset(pc for pc in seen if self.op[pc] != _SPLIT)

    def _intern(self, positions: frozenset[int]) -> _State:
        state = self.states.get(positions)
        if state is None:
            state = _State(positions, self.final in positions)
            self.states[positions] = state
        return state

    def _step(self, state: _State, ch: str) -> _State:
        op, arg, next_ = self.op, self.arg, self.next
        moved = [next_[pc] for pc in state.positions
                 if (op[pc] == _CHAR and arg[pc] == ch) or (op[pc] == _NOT and arg[pc] != ch)]
        target = self._intern(self._closure(moved))
        state.row[ch] = target
        return target

    def match(self, text: str) -> bool:
        known = self.results.get(text)
        if known is not None:
            return known
        if len(self.states) > _MAX_STATES or len(self.results) >= _MAX_RESULTS:
            self._reset()  # a match adds at most len(text) states: memory stays bounded
        state, step = self.start, self._step
        for ch in text:
            known_next = state.row.get(ch)
            state = step(state, ch) if known_next is None else known_next
            if not state.positions:
                break
        self.results[text] = state.accept
        return state.accept


@dataclass(frozen=True)
class Glob:
    pattern: str
    separator: str
    program: _Program = field(repr=False, compare=False)

    def matches(self, text: str) -> bool:
        return self.program.match(text)

    def literal_fragments(self) -> list[str]:
        """Literal runs that any match must contain: used to prefilter files by bytes."""
        return _fragments(self.pattern)

    def leaf_alternatives(self) -> list[str] | None:
        """The literal texts the last segment can take, or None when it is not literal (or too many)."""
        last = _split_top(self.pattern, self.separator)[-1]
        if "*" in last or "?" in last or _count_leaves(last) > _MAX_LEAVES:
            return None
        return _expand_braces(last)


def _split_top(pattern: str, sep: str) -> list[str]:
    """`pattern` split at each `sep` outside braces."""
    parts: list[str] = []
    start = depth = 0
    for i, ch in enumerate(pattern):
        depth += (ch == "{") - (ch == "}")
        if ch == sep and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    return [*parts, pattern[start:]]


def _closing(text: str, start: int) -> int:
    """The index of the `}` closing the `{` at `start` (the text is balanced)."""
    depth = 0
    for i in range(start, len(text)):
        depth += (text[i] == "{") - (text[i] == "}")
        if depth == 0:
            return i
    return len(text)


def _count_leaves(text: str) -> int:
    """How many texts `_expand_braces(text)` gives, computed without expanding (capped early)."""
    total = 1
    start = text.find("{")
    while start >= 0 and total <= _MAX_LEAVES:
        end = _closing(text, start)
        total *= sum(_count_leaves(alt) for alt in _split_top(text[start + 1 : end], ","))
        start = text.find("{", end + 1)
    return total


def _expand_braces(text: str) -> list[str]:
    start = text.find("{")
    end = _closing(text, start) if start >= 0 else len(text)
    if end == len(text):
        return [text]
    out: list[str] = []
    for alt in _split_top(text[start + 1 : end], ","):
        out.extend(_expand_braces(text[:start] + alt + text[end + 1 :]))
    return out


def _fragments(pattern: str) -> list[str]:
    if "{" in pattern:
        return []
    return [frag for frag in re.split(r"\*+|\?", pattern) if len(frag) >= 3]


def _check_balanced(pattern: str) -> None:
    depth = 0
    for ch in pattern:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            raise GlobError(f"unbalanced '}}' in {pattern!r}")
        if depth > _MAX_NESTING:
            raise GlobError(f"braces nested deeper than {_MAX_NESTING} in {pattern!r}")
    if depth:
        raise GlobError(f"unclosed '{{' in {pattern!r}")


def _parse(part: str, sep: str, glob: str) -> list[Token]:
    """Tokens of `part` (the glob, or one alternative of it); `**` segments absorb their separators."""
    out: list[Token] = []
    i, n = 0, len(part)
    while i < n:
        ch = part[i]
        if part.startswith("**", i):
            after = i + 2
            at_start = i == 0 or part[i - 1] in (sep, "{", ",")
            at_end = after == n or part[after] in (sep, "}", ",")
            if not (at_start and at_end):
                raise GlobError(f"'**' must be a whole segment in {glob!r}")
            if after < n and part[after] == sep:
                out.append(_DIRS)
                after += 1
            elif out and out[-1] == sep:
                out[-1] = _TAIL
            else:
                out.append(_ANY)
            i = after
            continue
        if ch == "{":
            end = _closing(part, i)
            alternatives = _split_top(part[i + 1 : end], ",")
            if "" in alternatives:
                raise GlobError(f"empty alternative in {glob!r}")
            out.append([_parse(alt, sep, glob) for alt in alternatives])
            i = end + 1
            continue
        out.append(_SEGMENT if ch == "*" else _ONE if ch == "?" else ch)
        i += 1
    return out


@lru_cache(maxsize=4096)
def compile_glob(pattern: str, separator: str) -> Glob:
    if not isinstance(pattern, str) or not pattern:
        raise GlobError("expected a non-empty glob string")
    _check_balanced(pattern)
    if separator == ".":
        bad = next((ch for ch in pattern if not (_SEGMENT_CHARS.match(ch) or ch in "*?{},.")), None)
        if bad is not None:
            raise GlobError(f"unexpected character {bad!r} in key glob {pattern!r}")
        if ".." in pattern or pattern.startswith(".") or pattern.endswith("."):
            raise GlobError(f"empty segment in key glob {pattern!r}")
    return Glob(pattern, separator, _Program(_parse(pattern, separator, pattern), separator))


def key_glob(pattern: str) -> Glob:
    return compile_glob(pattern, ".")


def path_glob(pattern: str) -> Glob:
    """Path globs; a pattern without a slash matches the file name anywhere, as in gitignore."""
    if "/" not in pattern.rstrip("/") and not pattern.startswith("**"):
        pattern = "**/" + pattern
    return compile_glob(pattern, "/")


def any_match(globs: list[Glob], text: str) -> bool:
    return any(g.matches(text) for g in globs)
