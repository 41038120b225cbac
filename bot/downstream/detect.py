"""Which launches run the upstream, and at which pin: the upstream bot.toml names, or, with none named, the
registry's upstream whose package the launches run (`-m verl.trainer.main_ppo`, a search path
`pkg://verl.trainer.config`) while the repository holds no such package of its own."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.downstream.model import Pin, Upstream
from bot.downstream.pins import PinReading, pin_of, read_pins
from bot.downstream.upstream import known_upstreams, resolve_upstream
from bot.ir import SCRIPT_FILE

if TYPE_CHECKING:
    from bot.config import Config
    from bot.engine.launches import LaunchInfo

# a search path into a package: `pkg://verl.trainer.config`, or `file://verl/trainer/config` (a directory of
# the working directory, where the upstream's checkout is expected: verl's recipes say it so)
SEARCH = re.compile(r"(?:pkg://|file://(?:\./)?)(?P<package>[A-Za-z_]\w*)(?![\w-])(?:[./][\w./-]*)?")


@dataclass
class Downstream:
    upstream: Upstream
    reading: PinReading
    said_in: str  # the bot.toml that names it, or "" when found from the launches

    def runs(self, info: LaunchInfo) -> str | None:
        found = runs_package(info, set(self.upstream.packages))
        if found is None and info.entry_kind == SCRIPT_FILE and info.entry:  # a file of the upstream's submodule
            entry = os.path.normpath(info.entry).replace(os.sep, "/").removeprefix("./")
            inside = [p.file for p in self.reading.pins if p.kind == "submodule" and entry.startswith(p.file + "/")]
            found = f"file {info.entry} of the submodule {inside[0]}" if inside else None
        return found

    def pin(self, info: LaunchInfo) -> Pin | None:
        return pin_of(self.reading.pins, info.path) if self.runs(info) is not None else None

    def fields(self, info: LaunchInfo) -> dict[str, Any]:
        """A launch's `upstream` and `pin` in JSON."""
        via = self.runs(info)
        pin = self.pin(info)
        return {"upstream": None if via is None else {"name": self.upstream.name, "via": via},
                "pin": None if pin is None else pin.as_dict()}

    def as_dict(self, launches: list[LaunchInfo]) -> dict[str, Any]:
        return {**self.upstream.as_dict(), "named_in": self.said_in or None,
                "launches": sum(self.runs(info) is not None for info in launches),
                "pins": [pin.as_dict() for pin in self.reading.pins], "notes": self.reading.notes}


def runs_package(info: LaunchInfo, packages: set[str]) -> str | None:
    """How the launch runs one of `packages`: its `-m` module, or a search path into it."""
    if info.entry_kind == "module" and info.entry and info.entry.split(".", 1)[0] in packages:
        return f"module {info.entry}"
    texts = [o["text"] for o in info.overrides if o["key"] == "hydra.searchpath"]
    for text in [*texts, info.evidence]:
        for found in SEARCH.finditer(text):
            if found["package"] in packages:
                return f"search path {found[0]}"
    return None


def named_downstream(root: Path, config: Config) -> Downstream | None:
    """The upstream bot.toml names for the repository, with its pins (read before the launches: a pin that
    cannot be found stops the command before the scan)."""
    spec = config.downstream_of(root)
    if spec is None:
        return None
    upstream = resolve_upstream(config, spec.upstream, Path(spec.file).parent)
    said_in = _shown(root, Path(spec.file))
    return Downstream(upstream, read_pins(root, upstream, spec.pins, said_in), said_in)


def found_downstream(root: Path, config: Config, launches: list[LaunchInfo]) -> Downstream | None:
    """With none named: the registry's upstream the launches run, with the pins in their usual places."""
    found = _detected(root, config, launches)
    return None if found is None else Downstream(found, read_pins(root, found, (), ""), "")


def _detected(root: Path, config: Config, launches: list[LaunchInfo]) -> Upstream | None:
    candidates = {info.entry.split(".", 1)[0] for info in launches if info.entry_kind == "module" and info.entry}
    candidates |= {m["package"] for info in launches for o in info.overrides if o["key"] == "hydra.searchpath"
                   for m in SEARCH.finditer(o["text"])}
    candidates |= {m["package"] for info in launches for m in SEARCH.finditer(info.evidence)}
    if not candidates:
        return None
    known = {p: u for p, u in known_upstreams(config, root).items() if p in candidates and not _own(root, p)}
    if not known:
        return None
    counts = Counter(p for info in launches for p in known if runs_package(info, {p}) is not None)
    best = max(sorted(counts), key=lambda p: counts[p], default=None)
    return None if best is None else known[best]


def _own(root: Path, package: str) -> bool:
    """The repository holds the package itself (a fork, or the upstream's own checkout)."""
    return any((root / where).is_file() for where in (f"{package}/__init__.py", f"{package}.py",
                                                       f"src/{package}/__init__.py"))


def _shown(root: Path, file: Path) -> str:
    """The bot.toml as the output names it: relative to the repository when inside it."""
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return os.path.normpath(str(file))
