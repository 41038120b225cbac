"""A JSON reader that keeps byte positions: where every string is, and every character in it.

The standard library decodes JSON but forgets where things were; editing a notebook cell's
source in place needs the bytes of each source line and the escape each character came from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


class JSONPositionError(ValueError):
    pass


@dataclass
class JString:
    start: int  # the opening quote
    end: int  # after the closing quote
    text: str
    spans: list[tuple[int, int]] | None = None  # host byte span of each decoded char; None: one byte each
    # the document, while the spans of a string with escapes or non-ASCII characters are not made yet
    data: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def chars(self) -> list[tuple[int, int]]:
        """The host byte span of each decoded character (made when asked: most strings of a notebook are
        outputs and metadata, which nobody asks)."""
        if self.data is not None:  # read again with each escape's bytes, once
            self.spans, self.data = _Reader(self.data).spans(self.start), None
        if self.spans is None:
            first = self.start + 1
            return list(zip(range(first, self.end - 1), range(first + 1, self.end)))
        return self.spans

    @property
    def content_start(self) -> int:
        return self.start + 1

    @property
    def content_end(self) -> int:
        return self.end - 1


@dataclass
class JArray:
    start: int
    end: int
    items: list[Any] = field(default_factory=list)


@dataclass
class JObject:
    start: int
    end: int
    members: dict[str, Any] = field(default_factory=dict)


_ESCAPES = {ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b", ord("f"): "\f", ord("n"): "\n",
            ord("r"): "\r", ord("t"): "\t"}
_BLANKS = re.compile(rb"[ \t\r\n]*")
_PLAIN = re.compile(rb'[^"\\]*')  # a string's bytes up to its next quote or backslash


def _char_spans(text: str, start: int, end: int) -> list[tuple[int, int]] | zip[tuple[int, int]]:
    """The byte span of each character of `text`, the UTF-8 decoding of bytes [start, end)."""
    if len(text) == end - start:  # ASCII: one byte each
        return zip(range(start, end), range(start + 1, end + 1))
    spans, pos = [], start
    for char in text:
        code = ord(char)
        length = 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        spans.append((pos, pos + length))
        pos += length
    return spans


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def fail(self, expected: str) -> JSONPositionError:
        line = self.data.count(b"\n", 0, self.pos) + 1
        return JSONPositionError(f"line {line}: expected {expected}")

    def skip(self) -> None:
        self.pos = _BLANKS.match(self.data, self.pos).end()  # type: ignore[union-attr]  # always matches

    def value(self) -> Any:
        self.skip()
        if self.pos >= len(self.data):
            raise self.fail("a value")
        head = self.data[self.pos]
        if head == ord("{"):
            return self.obj()
        if head == ord("["):
            return self.array()
        if head == ord('"'):
            return self.string()
        return self.scalar()

    def obj(self) -> JObject:
        node = JObject(self.pos, self.pos)
        self.pos += 1
        self.skip()
        if self.data[self.pos : self.pos + 1] == b"}":
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.skip()
            if self.data[self.pos : self.pos + 1] != b'"':
                raise self.fail("a string key")
            key = self.string()
            self.skip()
            if self.data[self.pos : self.pos + 1] != b":":
                raise self.fail("':'")
            self.pos += 1
            node.members[key.text] = self.value()
            self.skip()
            sep = self.data[self.pos : self.pos + 1]
            self.pos += 1
            if sep == b"}":
                node.end = self.pos
                return node
            if sep != b",":
                raise self.fail("',' or '}'")

    def array(self) -> JArray:
        node = JArray(self.pos, self.pos)
        self.pos += 1
        self.skip()
        if self.data[self.pos : self.pos + 1] == b"]":
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            node.items.append(self.value())
            self.skip()
            sep = self.data[self.pos : self.pos + 1]
            self.pos += 1
            if sep == b"]":
                node.end = self.pos
                return node
            if sep != b",":
                raise self.fail("',' or ']'")

    def string(self) -> JString:
        data = self.data
        start = self.pos
        pos = start + 1
        run = _PLAIN.match(data, pos).end()  # type: ignore[union-attr]  # always matches, maybe empty
        if run < len(data) and data[run] == ord('"'):  # most strings: no escape
            text = data[pos:run].decode("utf-8")
            self.pos = run + 1
            return JString(start, run + 1, text, data=None if len(text) == run - pos else data)
        out: list[str] = []
        self.pos = self._read(pos, out, None)
        return JString(start, self.pos, "".join(out), data=data)

    def spans(self, start: int) -> list[tuple[int, int]]:
        """The byte span of each character of the string whose opening quote is at `start`."""
        chars: list[tuple[int, int]] = []
        self._read(start + 1, [], chars)
        return chars

    def _read(self, pos: int, out: list[str], chars: list[tuple[int, int]] | None) -> int:
        """The characters of a string from `pos` (after its opening quote) appended to `out`, and their
        spans to `chars` (None: not asked); where the string ends, after its closing quote."""
        data = self.data
        while True:
            run = _PLAIN.match(data, pos).end()  # type: ignore[union-attr]  # always matches, maybe empty
            if run > pos:  # the bytes up to the next quote or backslash, decoded at once
                text = data[pos:run].decode("utf-8")
                out.append(text)
                if chars is not None:
                    chars.extend(_char_spans(text, pos, run))
                pos = run
            if pos >= len(data):
                raise self.fail("a closing quote")
            if data[pos] == ord('"'):
                return pos + 1
            pos = self._escape(pos, out, chars)

    def _escape(self, pos: int, out: list[str], chars: list[tuple[int, int]] | None) -> int:
        """The escape at `pos` (a backslash): its character appended; where it ends."""
        data = self.data
        code = data[pos + 1] if pos + 1 < len(data) else -1
        if code == ord("u"):
            unit = int(data[pos + 2 : pos + 6], 16)
            end = pos + 6
            if 0xD800 <= unit < 0xDC00 and data[end : end + 2] == b"\\u":
                low = int(data[end + 2 : end + 6], 16)
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                end += 6
            out.append(chr(unit))
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
            end = pos + 2
        else:
            raise self.fail("a valid escape")
        if chars is not None:
            chars.append((pos, end))
        return end

    def scalar(self) -> Any:
        start = self.pos
        while self.pos < len(self.data) and self.data[self.pos] not in b",]} \t\r\n":
            self.pos += 1
        try:
            return json.loads(self.data[start : self.pos])
        except ValueError:
            raise self.fail("a JSON value") from None


def read_json(data: bytes) -> Any:
    """The document as JObject/JArray/JString nodes (numbers, booleans and null as Python values)."""
    reader = _Reader(data)
    try:
        node = reader.value()
        reader.skip()
    except (IndexError, ValueError) as exc:
        if isinstance(exc, JSONPositionError):
            raise
        raise reader.fail("valid JSON") from None
    if reader.pos != len(data):
        raise reader.fail("the end of the document")
    return node


def plain(node: Any) -> Any:
    """The node as json.loads would give it."""
    if isinstance(node, JObject):
        return {k: plain(v) for k, v in node.members.items()}
    if isinstance(node, JArray):
        return [plain(v) for v in node.items]
    if isinstance(node, JString):
        return node.text
    return node
