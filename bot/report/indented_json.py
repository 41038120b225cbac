"""`json.dumps(value, indent=n, ensure_ascii=False)`, the same text, written faster.

With an indent the standard library encodes in pure Python, through a chain of generators one level
per nesting (its C encoder serves only compact output); `bot launches --format json` writes megabytes
of it. This writes the same text by appending to one list, with the C string encoder for every string.
Anything but JSON's plain types (a key that is not a string, a float that is not finite, a type json
does not know) is handed to `json.dumps` itself, so the text, or the error, is always the standard library's.
"""

from __future__ import annotations

import json
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
    """Append the text of `value`, whose first line is already indented; `newline` starts its next line."""
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + step
        lead = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unusual
            out.append(lead)
            out.append(encode_basestring(key))
            out.append(": ")
            _write(item, out, inner, step)
            lead = "," + inner
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + step
        lead = "[" + inner
        for item in value:
            out.append(lead)
            _write(item, out, inner, step)
            lead = "," + inner
        out.append(newline + "]")
    else:
        out.append(_scalar(value))
