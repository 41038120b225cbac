"""`json.dumps(value, indent=n, ensure_ascii=False)`, the same text, written faster.

With an indent the standard library encodes in pure Python, through a chain of generators one level
per nesting (its C encoder serves only compact output); `bot launches --format json` writes megabytes
of it. This writes the same text by appending to one list, with the C string encoder for every string.
Anything but JSON's plain types (a key that is not a string, a float that is not finite, a type json
does not know) is handed to `json.dumps` itself, so the text, or the error, is always the standard library's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from json.encoder import encode_basestring  # the C one where there is one
from typing import Any

_INFINITY = float("inf")


class _Unusual(Exception):
    """A value this writer leaves to json.dumps."""


def dumps(value: Any, indent: int) -> str:
    """The text `json.dumps(value, indent=indent, ensure_ascii=False)` gives."""
    out: list[str] = []
    try:
        _write(value, out, "\n", " " * indent)
    except (_Unusual, RecursionError):
        return json.dumps(value, indent=indent, ensure_ascii=False)
    return "".join(out)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and value == value and value not in (_INFINITY, -_INFINITY):
        return float.__repr__(value)
    raise _Unusual


def _write(value: Any, out: list[str], newline: str, step: str) -> None:
    """Append the text of `value`, whose first line is already indented; `newline` starts its next line.
    The common leaves of a container (strings, null, integers) are written in its loop, without a call each."""
    if isinstance(value, str):
        out.append(encode_basestring(value))
        return
    if isinstance(value, dict):
        items: Iterable[tuple[Any, Any]] = value.items()
        close = "}"
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
        close = "]"
    else:
        out.append(_scalar(value))
        return
    if not value:
        out.append("{}" if close == "}" else "[]")
        return
    inner = newline + step
    append = out.append
    lead = ("{" if close == "}" else "[") + inner
    between = "," + inner
    for key, item in items:
        append(lead)
        lead = between
        if close == "}":
            if not isinstance(key, str):
                raise _Unusual
            append(encode_basestring(key))
            append(": ")
        kind = type(item)
        if kind is str:
            append(encode_basestring(item))
        elif item is None:
            append("null")
        elif kind is int:
            append(int.__repr__(item))
        else:
            _write(item, out, inner, step)
    append(newline + close)
