"""A launch read once per way its own branches can go.

After `if [ "$backend" = fsdp ]; then CFG="engine=fsdp ..."; else CFG="engine=megatron ..."; fi`
a launch `python -m app $CFG` holds both arms' overrides, but any one run passes one arm's. A
combination picks one arm of each statement the launch's overrides were assigned in (or that
tests a variable its values come from): the overrides of that arm, and what the arm says of the
tested variables (`backend` is `fsdp` there; in the `else` it is none of the values tested
before). A definition that a later one surely replaces in that combination is left out.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from bot.lang.shell.arms import Guard, Statement, Test
from bot.lang.shell.launches import Launch, Override
from bot.lang.shell.text import Definition, Via

_CALLER = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")
MAX_COMBINATIONS = 16
MAX_TRIED = 4096  # arm choices looked at before giving up on telling combinations apart


@dataclass(frozen=True)
class Narrowed:
    """What a combination knows of a variable: one of `allowed` (None: anything) and none of `excluded`."""

    allowed: frozenset[str] | None = None
    excluded: frozenset[str] = frozenset()

    def add(self, test: Test) -> Narrowed:
        if test.inside:
            allowed = test.values if self.allowed is None else self.allowed & test.values
            return Narrowed(allowed, self.excluded)
        return Narrowed(self.allowed, self.excluded | test.values)

    @property
    def impossible(self) -> bool:
        return self.allowed is not None and not (self.allowed - self.excluded)

    def values(self) -> list[str] | None:
        """The values left when the tests name them; None when only exclusions are known."""
        return None if self.allowed is None else sorted(self.allowed - self.excluded)


@dataclass
class Combination:
    label: str  # the arms taken, as written; "" for a launch whose branches do not matter
    overrides: list[Override]
    variables: dict[str, Narrowed] = field(default_factory=dict)  # tested variables the launch's values read

    def variable_of(self, override: Override) -> str | None:
        """The narrowed variable the override's whole value comes from, if any."""
        names = value_names(override)
        return next((n for n in names if n in self.variables), None)


@dataclass
class Combinations:
    items: list[Combination]
    total: int  # distinct combinations found (more than composed when past MAX_COMBINATIONS)


def value_names(override: Override) -> list[str]:
    """The variables an override's whole value comes through (`${V}`, `${V:-x}`, `$V` where V=${W:-x}).

    Read once per override (its field never changes once read): every way of every launch asks again."""
    known = override.__dict__.get("_value_names")
    if known is None:
        known = override.__dict__["_value_names"] = tuple(_value_names(override))
    return list(known)


def _value_names(override: Override) -> list[str]:
    pieces = override.value_pieces
    if not pieces:
        return []
    depth = len(override.key_chain)
    names: list[str] = []
    for piece in pieces:
        own = [v.var for v in piece.via[depth:]] + ([piece.default_of.lstrip("$")] if piece.default_of else [])
        caller = _CALLER.match(piece.text) if not piece.static else None
        if caller is not None:  # `$V` of a variable the script never assigns
            own.append(caller.group(1))
        if not own:
            return []  # part of the value is written out: not one variable's
        names = own if not names else [n for n in names if n in own]
    return names


def _definitions(override: Override) -> list[tuple[Via, Definition]]:
    seen: dict[int, tuple[Via, Definition]] = {}
    for piece in override.field.pieces:
        for via in piece.via:
            seen.setdefault(id(via), (via, via.definition))
    return list(seen.values())


def _consistent(guard: Guard, chosen: dict[int, int]) -> bool:
    return all(chosen.get(statement, arm) == arm for statement, arm in guard)


def _entailed(guard: Guard, chosen: dict[int, int]) -> bool:
    return all(chosen.get(statement) == arm for statement, arm in guard)


Needs = list[tuple[Guard, list[Guard]]]  # per definition an override reads: its arms, and those of later ones


def _needs(override: Override, reaching: dict[tuple[int, int], tuple[Definition, ...]]) -> Needs:
    """What the override's presence in a combination depends on: for each definition it reads, the arms it is
    assigned in, and the arms of each later definition reaching the same use (which would replace it)."""
    out = []
    for via, definition in _definitions(override):
        order = _order(definition)
        later = [d.guard for d in reaching.get((via.use.start, via.use.end), ())
                 if d is not definition and _order(d) > order]
        if definition.guard or later:  # else present in every combination
            out.append((definition.guard, later))
    return out


def _present(needs: Needs, chosen: dict[int, int]) -> bool:
    """Each definition is assigned in the chosen arms and no surely later assignment replaces it."""
    return all(_consistent(guard, chosen) and not any(_entailed(other, chosen) for other in later)
               for guard, later in needs)


def _order(definition: Definition) -> tuple[int, int]:
    if definition.kind == "caller":
        return (-1, -1)
    return (definition.line, definition.span.start if definition.span is not None else 0)


def combinations(launch: Launch, statements: dict[int, Statement],
                 reaching: dict[tuple[int, int], tuple[Definition, ...]]) -> Combinations:
    """The launch once per distinct way its branches go (at most MAX_COMBINATIONS of them)."""
    site = dict(launch.site.guard)
    site.update((s, a) for s, a in launch.head_guard if s in statements and site.get(s, a) == a)
    involved: set[int] = set()
    for override in launch.overrides:
        for via, definition in _definitions(override):
            involved.update(s for s, _ in definition.guard)
            for other in reaching.get((via.use.start, via.use.end), ()):
                involved.update(s for s, _ in other.guard)
    defining = set(involved)  # statements whose arms assign what the launch reads: named in the label
    names = {n for o in launch.overrides for n in value_names(o)}
    for ident, statement in statements.items():
        if any(t.variable in names for arm in statement.arms for t in arm.tests):
            involved.add(ident)
    order = sorted(s for s in involved if s in statements and s not in site)
    needs = [(o, _needs(o, reaching)) for o in launch.overrides]  # the same for every choice of arms
    if not order:
        only = _combination(needs, site, statements, "")
        return Combinations([only] if only is not None else [], 1)
    seen: dict[tuple[object, ...], Combination] = {}
    for tried, arms in enumerate(itertools.product(*(range(len(statements[s].arms)) for s in order))):
        if tried >= MAX_TRIED:
            break
        chosen = {**site, **dict(zip(order, arms, strict=True))}
        live = [s for s in order if _consistent(statements[s].guard, chosen)]  # nested in an arm taken
        chosen = {**site, **{s: chosen[s] for s in live}}
        label = "; ".join(statements[s].arms[chosen[s]].label for s in live if s in defining)
        combination = _combination(needs, chosen, statements, label)
        if combination is None:
            continue
        key = (tuple(id(o) for o in combination.overrides), tuple(sorted(combination.variables.items())))
        seen.setdefault(key, combination)
    items = list(seen.values())
    return Combinations(items[:MAX_COMBINATIONS], len(items))


def _combination(needs: list[tuple[Override, Needs]], chosen: dict[int, int], statements: dict[int, Statement],
                 label: str) -> Combination | None:
    variables: dict[str, Narrowed] = {}
    for statement, arm in chosen.items():
        if statement not in statements:
            continue  # a loop's body
        for test in statements[statement].arms[arm].tests:
            variables[test.variable] = variables.get(test.variable, Narrowed()).add(test)
    if any(n.impossible for n in variables.values()):
        return None
    overrides = [o for o, need in needs if not need or _present(need, chosen)]
    used = {n for o in overrides for n in value_names(o)}
    return Combination(label, overrides, {k: v for k, v in variables.items() if k in used})
