"""A pin (or `bot upgrade --to REF`) resolved to a commit of the upstream's history.

A commit or ref resolves as git says (a tag, a branch of the checkout or of its clone's `origin`), a version by
its tag (`v0.5.0`, `0.5.0`), a date as its branch's first-parent state at the end of that day. A range, a bare
name, or a value the history lacks cannot be resolved: the caller notes it in one line.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bot.downstream.model import Pin
from bot.downstream.requirement import VERSION


@dataclass(frozen=True)
class Target:
    commit: str  # the full commit
    given: str  # as said (the pin's value, or --to)
    version: str | None  # the version its tag says, when it is one (`v0.6.0` -> `0.6.0`)
    tag: str | None  # the tag it was found as, when it was one

    def short(self) -> str:
        """How a title names it: its version, else its first 12 hex digits."""
        return self.version or (self.given if self.tag else self.commit[:12])


def resolve(history: Path, value: str) -> Target | None:
    """`value` (a commit, tag, branch or version) as a commit of the history, or None."""
    candidates = [value, f"origin/{value}"]
    if VERSION.match(value):
        candidates += [f"v{value.removeprefix('v')}", value.removeprefix("v")]
    for candidate in candidates:
        commit = _rev(history, f"{candidate}^{{commit}}")
        if commit is not None:
            tag = candidate if _rev(history, f"refs/tags/{candidate}") is not None else None
            return Target(commit, value, _version(tag or (value if VERSION.match(value) else None)), tag)
    return None


def resolve_pin(history: Path, pin: Pin) -> tuple[Target | None, str | None]:
    """The pin's commit, or (None, a one-line note saying why it has none)."""
    where = f"{pin.file}:{pin.line}" if pin.line is not None else pin.file
    if pin.what in ("range", "any"):
        said = f"the range {pin.value}" if pin.what == "range" else "no version"
        return None, f"{where}: the pin of {pin.covers} names {said}, not one commit: its files are not upgraded"
    if pin.what == "date":
        branch = pin.branch or "main"
        for name in (f"origin/{branch}", branch):
            listed = _run(history, "rev-list", "-1", "--first-parent", f"--before={pin.value}T23:59:59Z", name)
            if listed:
                return Target(listed, pin.value, None, None), None
        return None, f"{where}: {branch} of the upstream has no commit on or before {pin.value}: not upgraded"
    found = resolve(history, pin.value)
    if found is None:
        return None, f"{where}: the upstream's history has no {pin.what} {pin.value}: its files are not upgraded"
    return found, None


def _version(tag: str | None) -> str | None:
    return tag.removeprefix("v") if tag is not None and VERSION.match(tag) else None


def _rev(history: Path, revision: str) -> str | None:
    return _run(history, "rev-parse", "--verify", "--quiet", "--end-of-options", revision) or None


def _run(history: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(history), *args], capture_output=True, text=True, check=False)
    out = done.stdout.strip()
    return out if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", out) else ""
