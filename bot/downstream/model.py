"""An upstream as a downstream names it, and a pin: where a version of it is fixed, and what it covers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# what a pin fixes: an exact version, a version range, a commit, a branch or tag, a branch's state on a
# date, or nothing (the upstream named without a version)
WHAT = ("version", "range", "commit", "ref", "date", "any")


@dataclass(frozen=True)
class Upstream:
    name: str  # as the downstream names it ("verl"), or the package its launches run
    source: str  # owner/name, a git URL, or a directory
    source_kind: str  # "github", "git" or "path"
    packages: tuple[str, ...]  # its top-level Python packages: what a launch's `-m` or `pkg://` names
    distribution: str  # its name in requirements
    detected: bool = False  # found from the launches, not named in bot.toml

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "source_kind": self.source_kind,
                "packages": list(self.packages), "distribution": self.distribution, "detected": self.detected}


@dataclass(frozen=True)
class Pin:
    kind: str  # requirements, pyproject, file, submodule, ref, date (bot.downstream.spec.PIN_KINDS)
    file: str  # the repository's file that pins (its path), or the bot.toml that says it
    line: int | None  # the line in that file, where there is one
    what: str  # one of WHAT
    value: str  # the version, range, commit, ref or date
    covers: str  # the directory it covers, "." for the whole repository
    branch: str | None = None  # a date's branch

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "file": self.file, "line": self.line, "what": self.what, "value": self.value,
                "covers": self.covers, **({"branch": self.branch} if self.branch is not None else {})}

    def says(self) -> str:
        """`commit ccd7d93 (recipes/a/requirements.txt:1)`, for the text output."""
        value = f"{self.branch or 'its branch'} as of {self.value}" if self.what == "date" else self.value
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{self.what} {value} ({where})" if self.what != "any" else f"no version ({where})"

    def covers_path(self, path: str) -> bool:
        return self.covers == "." or path == self.covers or path.startswith(self.covers + "/")
