"""Key moves that carry a subtree: `reward_model.overlong_buffer.* -> reward.reward_kwargs.overlong_buffer_cfg.*`.

A move's old key is a key glob; its new key may hold the same wildcards, whole segments (`*`: one segment,
`**`: one or more), in the same order: each takes the segments its counterpart matched in the old key. A new
key without wildcards is a key of its own (dotted) or the old key's new last segment (one name), as for
`fix.rename` in format 1.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WILD = ("*", "**")


def carries(target: str) -> bool:
    """Whether a move's new key takes segments from the old one."""
    return any(part in _WILD for part in target.split("."))


def move_problem(source: str, target: str) -> str | None:
    """What is wrong with moving `source` (a key glob) to `target`, or None."""
    if not carries(target):
        return None
    wild_target = [part for part in target.split(".") if part in _WILD]
    parts = source.split(".")
    if any(part not in _WILD and re.search(r"[*?{}]", part) for part in parts):
        return ("expected an old key whose wildcards are whole segments (* or **) when the new key takes them "
                f"over, got {source!r}")
    if [part for part in parts if part in _WILD] != wild_target:
        return (f"expected the new key's wildcards ({' '.join(wild_target)}) to be the old key's, in the same order, "
                f"got {source!r}")
    return None


_SEGMENTS = r"[^.]+(?:\.[^.]+)*"


@lru_cache(maxsize=256)
def _pattern(source: str) -> re.Pattern[str]:
    """The old key as a regular expression, a group per wildcard; `**` may match no segment at all (with the dot
    beside it), as in the key globs."""
    parts = source.split(".")
    last = len(parts) - 1
    text = ""
    for index, part in enumerate(parts):
        if part == "**" and index == last and index:  # `a.**`: the dot before goes with the segments
            text = text.removesuffix(r"\.") + rf"(?:\.({_SEGMENTS}))?"
        elif part == "**":
            text += rf"(?:({_SEGMENTS})\.)?" if index < last else rf"({_SEGMENTS})"
        else:
            text += (r"([^.]+)" if part == "*" else re.escape(part)) + (r"\." if index < last else "")
    return re.compile(text)


def moved_key(source: str, target: str, key: str) -> str | None:
    """`key` (which `source` matches) moved to `target`, its wildcards filled with what they matched there (a `**`
    that matched no segment leaves none); None when `key` is not a key of `source`'s shape."""
    found = _pattern(source).fullmatch(key)
    if found is None:
        return None
    taken = iter(found.groups())
    parts = [next(taken) if part in _WILD else part for part in target.split(".")]
    return ".".join(part for part in parts if part) or None
