"""Shell variables: the definitions that may reach a point of a script.

An environment maps a name to the definitions that may reach a point of the script: one after
a plain assignment, several after branches that assign differently, a `caller` definition
where the script never assigned it (the value comes from whoever runs the script).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from bot.lang.shell.text import Definition

Env = Mapping[str, tuple[Definition, ...]]


@cache
def caller_definition(name: str) -> Definition:
    """What the caller left in a variable: one Definition per name, so the same name is the same definition."""
    return Definition(name=name, kind="caller", line=0)


def reaching(env: Env, name: str) -> tuple[Definition, ...]:
    return env.get(name) or (caller_definition(name),)


def merge(envs: list[Env]) -> Env:
    """The environment after branches: each name may hold what any branch (or the caller) left in it."""
    names: dict[str, None] = {}
    for env in envs:
        names.update(dict.fromkeys(env))
    out: dict[str, tuple[Definition, ...]] = {}
    first, others = envs[0], envs[1:]
    for name in names:
        same = first.get(name)
        if same and all(env.get(name) is same for env in others) and (
                len(same) == 1 or len({id(d) for d in same}) == len(same)):
            out[name] = same  # what no branch changed (most names): the very definitions it held before
            continue
        seen: dict[int, Definition] = {}
        for env in envs:
            for definition in env.get(name) or (caller_definition(name),):
                seen.setdefault(id(definition), definition)
        out[name] = tuple(seen.values())
    return out


__all__ = [
    "Definition",
    "Env",
    "caller_definition",
    "merge",
    "reaching",
]
