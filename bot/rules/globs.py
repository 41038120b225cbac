"""Globs over dotted Hydra keys and over slash-separated file paths.

Both share one syntax: `*` is one segment, `**` any number of segments (zero included), `{a,b}`
alternatives (which may hold `*` and nest), anything else literal. Within a segment `*` also
matches part of it (`use_*`), as in ast-grep and gitignore.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_SEGMENT_CHARS = re.compile(r"[A-Za-z0-9_\-@/$\[\]]")


class GlobError(ValueError):
    """A malformed glob; the message says what was expected."""


@dataclass(frozen=True)
class Glob:
    pattern: str
    separator: str
    regex: re.Pattern[str]

    def matches(self, text: str) -> bool:
        return self.regex.fullmatch(text) is not None

    def literal_fragments(self) -> list[str]:
        """Literal runs that any match must contain: used to prefilter files by bytes."""
        return _fragments(self.pattern)

    def leaf_alternatives(self) -> list[str] | None:
        """The literal texts the last segment can take, or None when it is not literal."""
        last = _split_top(self.pattern, self.separator)[-1]
        options = _expand_braces(last)
        if any(ch in opt for opt in options for ch in "*?"):
            return None
        return options


def _split_top(pattern: str, sep: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in pattern:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _expand_braces(text: str) -> list[str]:
    start = text.find("{")
    if start < 0:
        return [text]
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : i]
                out: list[str] = []
                for alt in _split_top(inner, ","):
                    out.extend(_expand_braces(text[:start] + alt + text[i + 1 :]))
                return out
    return [text]


def _fragments(pattern: str) -> list[str]:
    if "{" in pattern:
        return []
    return [frag for frag in re.split(r"\*+|\?", pattern) if len(frag) >= 3]


def _check_balanced(pattern: str) -> None:
    depth = 0
    for ch in pattern:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise GlobError(f"unbalanced '}}' in {pattern!r}")
    if depth:
        raise GlobError(f"unclosed '{{' in {pattern!r}")


def _translate(pattern: str, sep: str) -> str:
    """Regex source for a glob; `**` segments absorb their separators."""
    esc_sep = re.escape(sep)
    one_segment = f"[^{esc_sep}]*"
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith("**", i):
            at_start = i == 0 or pattern[i - 1] in (sep, "{", ",")
            after = i + 2
            at_end = after == n or pattern[after] in (sep, "}", ",")
            if not (at_start and at_end):
                raise GlobError(f"'**' must be a whole segment in {pattern!r}")
            if after < n and pattern[after] == sep:
                out.append(f"(?:{one_segment}{esc_sep})*")
                i = after + 1
            elif out and out[-1] == esc_sep:
                out[-1] = f"(?:{esc_sep}{one_segment})*"
                i = after
            else:
                out.append(".*")
                i = after
            continue
        if ch == "*":
            out.append(one_segment)
        elif ch == "?":
            out.append(f"[^{esc_sep}]")
        elif ch == "{":
            depth = 0
            for j in range(i, n):
                if pattern[j] == "{":
                    depth += 1
                elif pattern[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
            inner = pattern[i + 1 : j]
            alts = _split_top(inner, ",")
            if any(alt == "" for alt in alts):
                raise GlobError(f"empty alternative in {pattern!r}")
            out.append("(?:" + "|".join(_translate(alt, sep) for alt in alts) + ")")
            i = j + 1
            continue
        elif ch == sep:
            out.append(esc_sep)
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


@lru_cache(maxsize=4096)
def compile_glob(pattern: str, separator: str) -> Glob:
    if not isinstance(pattern, str) or not pattern:
        raise GlobError("expected a non-empty glob string")
    _check_balanced(pattern)
    if separator == "." and any(
        not (_SEGMENT_CHARS.match(ch) or ch in "*?{},.") for ch in pattern
    ):
        bad = next(ch for ch in pattern if not (_SEGMENT_CHARS.match(ch) or ch in "*?{},."))
        raise GlobError(f"unexpected character {bad!r} in key glob {pattern!r}")
    if separator == "." and (".." in pattern or pattern.startswith(".") or pattern.endswith(".")):
        raise GlobError(f"empty segment in key glob {pattern!r}")
    return Glob(pattern, separator, re.compile(_translate(pattern, separator)))


def key_glob(pattern: str) -> Glob:
    return compile_glob(pattern, ".")


def path_glob(pattern: str) -> Glob:
    """Path globs; a pattern without a slash matches the file name anywhere, as in gitignore."""
    if "/" not in pattern.rstrip("/") and not pattern.startswith("**"):
        pattern = "**/" + pattern
    return compile_glob(pattern, "/")


def any_match(globs: list[Glob], text: str) -> bool:
    return any(g.matches(text) for g in globs)
