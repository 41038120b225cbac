"""A pin moved to an upgrade's target, in the file that says it (`bot upgrade`, issue 43 item 3).

Only the pin's value changes, on its own line: a requirement's commit or ref (`verl @ git+...@SHA`), a
REQUIRED_* file's value, a bot.toml's `ref`, a version when the target is a tagged version, a date when the pin
is a rolling one. A commit keeps its length (a 7-digit commit becomes the target's first 7). What cannot be
edited so (a submodule's commit is git's index, a range, a version when the target is no version) is a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bot.downstream.model import Pin
from bot.downstream.pin_target import Target


@dataclass
class Bumped:
    files: list[str] = field(default_factory=list)  # the files edited
    moved: list[str] = field(default_factory=list)  # `file:line: commit abc -> def`, one per pin
    notes: list[str] = field(default_factory=list)


def bump_pins(root: Path, pins: list[Pin], target: Target, date: str | None) -> Bumped:
    """Each pin's value in the working copy at `root` set to the target's (`date`: the target's commit date)."""
    out = Bumped()
    for pin in pins:
        where = f"{pin.file}:{pin.line}" if pin.line is not None else pin.file
        new = _new_value(pin, target, date)
        if isinstance(new, _Note):
            out.notes.append(f"{where}: {new.text}")
            continue
        if new == pin.value:
            continue
        if _replace(root / pin.file, pin, new):
            out.moved.append(f"{where}: {pin.what} {pin.value} -> {new}")
            if pin.file not in out.files:
                out.files.append(pin.file)
        else:
            out.notes.append(f"{where}: {pin.value!r} was not found where it was read; the pin is left as it is")
    return out


@dataclass(frozen=True)
class _Note:
    text: str


def _new_value(pin: Pin, target: Target, date: str | None) -> str | _Note:
    if pin.kind == "submodule":
        return _Note(f"the submodule's commit is git's index: run `git -C {pin.file} checkout {target.commit[:12]}` "
                     f"and commit it")
    if pin.what == "commit":
        return target.commit[:max(len(pin.value), 7)] if len(pin.value) < 40 else target.commit
    if pin.what == "version":
        if target.version is None:
            return _Note(f"the version {pin.value} is left: {target.given} is no tagged version")
        return ("v" if pin.value.startswith("v") else "") + target.version
    if pin.what == "ref":
        return target.tag or target.commit
    if pin.what == "date" and date is not None:
        return date
    return _Note(f"the {pin.what} pin is left as it is ({pin.value or 'no version'})")


def _replace(path: Path, pin: Pin, new: str) -> bool:
    """The pin's value replaced on its line (a bot.toml's `ref = "..."` when it has no line)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    lines = raw.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    token = re.compile(rf"(?<![\w.-]){re.escape(pin.value)}(?![\w-]|\.\w)")
    if pin.line is None:  # bot.toml: the `ref` (or `date`) of its [[pins]]
        token = re.compile(rf"(?<=[\"']){re.escape(pin.value)}(?=[\"'])")
        index = next((i for i, line in enumerate(lines) if token.search(line)), None)
    else:
        index = pin.line - 1 if 0 < pin.line <= len(lines) and token.search(lines[pin.line - 1]) else None
    if index is None:
        return False
    lines[index] = token.sub(new, lines[index], count=1)
    path.write_bytes("".join(lines).encode("utf-8", "surrogateescape"))
    return True
