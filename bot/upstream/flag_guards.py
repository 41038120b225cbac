"""New config flags, off by default, that an upstream change put in front of code that ran before (read from its
own lines; nothing imported).

`if self.filter_overlong_prompts:` added above the lines that filtered every dataset, now indented under it, with
`filter_overlong_prompts: False` new in the config: a launch that set nothing no longer runs that code. The
migration that keeps what launches did is to turn the flag on where they leave it unset. The guard is read from
the change's Python (its body is the removed code, re-indented, so the old behaviour is exactly the flag on); the
new key and its default from the apps' composed configs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.upstream.value_renames import Hunk

GUARD = re.compile(r"^(\s*)if\s+(not\s+)?([A-Za-z_][\w.]*)\s*:\s*$")
MIN_LINES = 2  # a guarded block of fewer lines of old code is not read as the old behaviour


@dataclass(frozen=True)
class GuardedFlag:
    key: str  # the new config key
    keep: bool  # the value that runs the old code again
    where: str  # the Python file of the guard


def _same(line: str) -> str:
    return " ".join(line.split())


def guarded_blocks(hunk: Hunk) -> list[tuple[str, bool]]:
    """(the flag's name, whether the guard is negated) for each guard the hunk adds above old code: the lines
    under it, dedented, are lines the hunk removed, in order (at least MIN_LINES of them)."""
    removed = [_same(line) for line in hunk.removed if line.strip()]
    out = []
    for index, line in enumerate(hunk.added):
        match = GUARD.match(line)
        if match is None:
            continue
        indent = len(match.group(1))
        body = []
        for inner in hunk.added[index + 1:]:
            if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                break
            if inner.strip():
                body.append(_same(inner))
        if len(body) >= MIN_LINES and _in_order(body, removed):
            out.append((match.group(3).rpartition(".")[2], bool(match.group(2))))
    return out


def _in_order(body: list[str], removed: list[str]) -> bool:
    position = 0
    for line in body:
        try:
            position = removed.index(line, position) + 1
        except ValueError:
            return False
    return True


def guarded_flags(hunks: list[Hunk], added: dict[str, object]) -> list[GuardedFlag]:
    """The keys of `added` (keys new in the composed configs after the change, with their defaults) that a guard
    the change adds reads, where the default skips the old code."""
    out: dict[str, GuardedFlag] = {}
    for hunk in hunks:
        for name, negated in guarded_blocks(hunk):
            for key, default in added.items():
                if key.rpartition(".")[2] != name or not isinstance(default, bool):
                    continue
                runs_old = default if not negated else not default
                if not runs_old:  # the default already runs the old code: nothing to keep
                    out.setdefault(key, GuardedFlag(key, not negated, hunk.path))
    return [out[key] for key in sorted(out)]
