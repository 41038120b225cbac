"""Key globs matched by their last segments, for config a docs block shows in part.

A block that starts at `optim:` holds `optim.warmup_style`; the rule's `**.optim.warmup_style` or
`actor_rollout_ref.actor.optim.warmup_style` matches it when the key is one of the glob's suffixes
(whole segments, ending at the leaf). Braces are expanded first (a glob with too many alternatives
matches by suffix only through its `**` segments). A suffix names at least one segment in letters: the
`**` that ends `reward_model.overlong_buffer.**` (or a lone `*`) is no suffix of it, since it would
reach every key of any block.
"""

from __future__ import annotations

from functools import lru_cache

from bot.rules.globs import _MAX_LEAVES, Glob, _count_leaves, _expand_braces, _split_top, key_glob


@lru_cache(maxsize=1024)
def _suffixes(pattern: str) -> tuple[Glob, ...]:
    texts = _expand_braces(pattern) if _count_leaves(pattern) <= _MAX_LEAVES else [pattern]
    out: dict[str, None] = {}
    for text in texts:
        parts = _split_top(text, ".")
        for i in range(1, len(parts)):
            if any(_named(part) for part in parts[i:]):
                out.setdefault(".".join(parts[i:]), None)
    return tuple(key_glob(p) for p in out)


def _named(segment: str) -> bool:
    """Whether a glob segment holds a literal character (`optim`, `use_*`), not only wildcards."""
    return any(ch not in "*?{}," for ch in segment)


def suffix_match(globs: tuple[Glob, ...] | list[Glob], key: str) -> bool:
    """Whether `key` is the last segments of a key one of `globs` matches."""
    return any(g.matches(key) or any(s.matches(key) for s in _suffixes(g.pattern)) for g in globs)


def full_key(globs: tuple[Glob, ...] | list[Glob], key: str) -> str | None:
    """The one literal key of `globs` that ends with `key` (segment-wise), or None (none, or several)."""
    found: set[str] = set()
    for glob in globs:
        if _count_leaves(glob.pattern) > _MAX_LEAVES:
            continue
        for text in _expand_braces(glob.pattern):
            if "*" not in text and "?" not in text and (text == key or text.endswith("." + key)):
                found.add(text)
    return found.pop() if len(found) == 1 else None
