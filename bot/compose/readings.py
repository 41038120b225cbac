"""The ways a launch runs, as Hydra gets them: one reading per combination of the script's branches.

Each way the launch's branches go (its front end tells them: Launch.handle, for the shell
bot.lang.shell.combinations) keeps its arms' overrides. A variable the arms
test gives its value to the overrides read from it: `backend` is `fsdp` in `if [ "$backend" =
fsdp ]`. Where the arms only say what it is not (the `else`), a config-group choice read from it
takes each option of the group that is left, and the launch fails there only if it fails with
every one of them: a finding is always one that Hydra raises for that branch.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from bot.hydra.app import HydraApp
from bot.hydra.compose import Composer
from bot.hydra.grammar import format_value
from bot.hydra.sweeps import Sweep
from bot.ir import Launch, Override, Way, Ways
from bot.lang import is_document

MAX_CHOICES = 8  # group options composed for one reading whose choice the branches leave open
ELISIONS = ("...", "\u2026")  # a doc's "and the rest of the arguments": the config they choose is unknown


def elided(kind: str, launch: Launch) -> bool:
    """A doc's launch that leaves some of its arguments out (`python -m m ... a=1`): not composed."""
    return is_document(kind) and any(text in ELISIONS for text, _ in launch.args)


def sweeps(launch: Launch) -> bool:
    """A multirun launch (`algorithm=a,b`, `seed=range(3)`): Hydra composes each of its runs, not the launch."""
    return any(isinstance(o.value, Sweep) for o in launch.overrides)


MAX_SWEEP_RUNS = 8
Run = tuple[str, dict[int, str]]  # how a sweep's run reads ("seed=2"), the sweeps' texts replaced, by id(override)


def sweep_runs(launch: Launch) -> tuple[list[Run], str | None]:
    """The runs a multirun launch is composed in, and why it is not (or only partly) checked.

    Each element of every sweep is in at least one run: run i takes each sweep's i-th element (its last
    when it has fewer), so a sweep's runs cost as many compositions as its longest list, not their
    product. An `interval(..)` is a number each trial draws: composed as a run-time value. A `glob(..)`
    of group options is not composed. A launch without sweeps has one run that replaces nothing."""
    lists: list[tuple[Override, list[str]]] = []
    for override in launch.overrides:
        value = override.value
        if not isinstance(value, Sweep) or override.key == "hydra" or override.key.startswith("hydra."):
            continue  # Hydra's own settings are not composed (bot.hydra.compose.override_text)
        if value.elements is not None and value.elements:
            lists.append((override, [format_value(e) for e in _representatives(value.elements)]))
        elif value.startswith(("interval(", "IntervalSweep(")):
            lists.append((override, ["null"]))
        else:
            return [], f"a multirun sweep over {override.key}={override.value_written}: Hydra composes each of its runs"
    if not lists:
        return [("", {})], None
    if not launch.multirun and not any(o.key == "hydra.mode" and o.value_written == "MULTIRUN"
                                       for o in launch.overrides):
        return [], "a sweep without -m: Hydra sweeps it only when the config sets hydra.mode to MULTIRUN"
    longest = max(len(texts) for _, texts in lists)
    runs: list[Run] = []
    for index in range(min(longest, MAX_SWEEP_RUNS)):
        picked = [(o, texts[min(index, len(texts) - 1)]) for o, texts in lists]
        label = ", ".join(f"{o.key}={t}" for o, t in picked)
        runs.append((f"the sweep's run {label}", {id(o): _text(o, t) for o, t in picked}))
    partly = None if longest <= MAX_SWEEP_RUNS else f"a multirun sweep of {longest} values: its first " \
                                                     f"{MAX_SWEEP_RUNS} were composed"
    return runs, partly


def _representatives(elements: tuple[Any, ...]) -> list[Any]:
    """The elements that may compose differently: every string, list or mapping (an option, an enum's
    name), but one number or bool of each type, since a config field checks those by type alone."""
    seen: set[type] = set()
    kept = []
    for element in elements:
        if isinstance(element, (bool, int, float)) or element is None:
            if type(element) in seen:
                continue
            seen.add(type(element))
        kept.append(element)
    return kept


def in_run(reading: Reading, run: Run) -> Reading:
    """The reading in one run of a sweep (its texts replace what the branches chose for the same overrides)."""
    if not run[1]:
        return reading
    label = "; ".join(p for p in (reading.choice_label, run[0]) if p)
    return Reading(reading.label, reading.overrides, [{**choice, **run[1]} for choice in reading.choices], label,
                   reading.unchecked)


@dataclass
class Reading:
    label: str  # the arms taken, as written
    overrides: list[Override]
    choices: list[dict[int, str]] = field(default_factory=lambda: [{}])  # replaced texts, by id(override);
    # the reading fails where every one of them fails (group options the branches leave open)
    choice_label: str = ""  # the values chosen, when the branches decide them
    unchecked: str | None = None  # why this reading is not composed


def readings(launch: Launch, app: HydraApp, composer: Composer) -> list[Reading]:
    """The readings of each way the launch's branches go (its front end tells them; one way without a handle)."""
    found = launch.handle.ways() if launch.handle is not None else Ways([Way("", launch.overrides)], 1)
    out = [reading for way in found.items for reading in _readings(way, app, composer)]
    if found.total > len(found.items):
        out.append(Reading("", [], [], unchecked=f"{found.total} ways through the script's branches; the "
                                                 f"first {len(found.items)} were composed"))
    return out


def _text(override: Override, value: str) -> str:
    key = override.key + (f"@{override.package}" if override.package is not None else "")
    return f"{override.prefix}{key}={value}"


Choice = tuple[str, dict[int, str]]  # how it reads ("backend=fsdp"), the replaced texts by id(override)


def _readings(combination: Way, app: HydraApp, composer: Composer) -> list[Reading]:
    """A reading per value the script's tests name for its variables (each a way it is run); where
    the tests only rule values out, one reading composed with every group option left."""
    by_variable: dict[str, list[Override]] = {}
    for override in combination.overrides:
        name = combination.variable_of.get(id(override))
        if name is not None and override.value_written is not None:
            by_variable.setdefault(name, []).append(override)
    named: list[list[Choice]] = []
    open_ended: list[list[Choice]] = []
    for name, overrides in by_variable.items():
        narrowed = combination.variables[name]
        values = narrowed.values
        if values is not None:
            named.append([(f"{name}={v}", {id(o): _text(o, v) for o in overrides}) for v in values])
            continue
        written = _written(overrides)
        if written is not None and written not in narrowed.excluded:
            continue  # the value as written (a default) is one the branch allows
        groups = [o for o in overrides if composer.is_group(app, o.key) and o.prefix != "~"]
        if not groups:
            open_ended.append([("", {id(o): _text(o, "null") for o in overrides})])
            continue
        left = set.intersection(*(composer.options(app, o.key) for o in groups)) - narrowed.excluded
        if not left or len(left) > MAX_CHOICES:
            what = "no option" if not left else f"{len(left)} options"
            why = f"{name} is chosen at run time ({combination.label}): {what} of {groups[0].key} left"
            return [Reading(combination.label, combination.overrides, [], unchecked=why)]
        open_ended.append([(f"{name}={v}", {id(o): _text(o, v) for o in overrides}) for v in sorted(left)])
    choices = list(itertools.product(*open_ended))[:MAX_CHOICES]
    out = []
    for picked in list(itertools.product(*named))[:MAX_CHOICES]:
        reading = Reading(combination.label, combination.overrides)
        reading.choices = [_merge([*picked, *choice]) for choice in choices]
        fixed = ", ".join(label for label, _ in picked if label)
        ranging = [", ".join(label for label, _ in choice if label) for choice in choices]
        ranging = [r for r in ranging if r]
        reading.choice_label = ", ".join(p for p in (fixed, ("each of " + " | ".join(ranging)) if len(ranging) > 1
                                                  else "".join(ranging)) if p)
        out.append(reading)
    return out


def _merge(parts: list[Choice]) -> dict[int, str]:
    return {k: v for _, part in parts for k, v in part.items()}


def _written(overrides: list[Override]) -> str | None:
    """The value the overrides are written with, when it is known before run time and they agree."""
    values = set()
    for override in overrides:
        if not override.value_written or not override.literal:
            return None
        values.add(override.value_written)
    return values.pop() if len(values) == 1 else None


def failures(reading: Reading, launch: Launch, app: HydraApp,
             composer: Composer) -> list[tuple[Override | None, str]]:
    """What Hydra raises for the reading with every choice it leaves open (a site failing in all)."""
    results = [composer.failures(app, launch, replaced=choice, overrides=reading.overrides)
               for choice in reading.choices]
    if not results:
        return []
    common = set.intersection(*({_site(o) for o, _ in result} for result in results))
    return [(o, message) for o, message in results[0] if _site(o) in common]


def _site(override: Override | None) -> object:
    return override.key_span if override is not None else "launch"


def describe(reading: Reading) -> str:
    """How the finding's message names the reading: the arms taken and the values chosen."""
    parts = [p for p in (reading.label, reading.choice_label) if p]
    return f" (when {'; '.join(parts)})" if parts else ""
