"""What a bot.toml says of a downstream: the upstream it names and where it pins it, checked as read.

`upstream` is a string (a registry name, a path, a git URL or owner/name) or a table with `source` and,
when the names cannot be read off the source, `packages` (the upstream's top-level Python packages) and
`distribution` (its name in requirements). `pins` is a list of tables, each with a `kind`:

- requirements, pyproject, file: `path`, a file or a glob of files (one pin per file, covering its
  directory); a requirement line, a project dependency, or a line that names a version, commit or date;
- submodule: `path` of the submodule (its commit, as the index records it);
- ref: `ref`, a tag, a branch or a commit; date: `date` (YYYY-MM-DD) of `branch` (default main).

Every pin may say which directories it covers (`covers`); by default its file's directory, or the whole
repository. Nothing here reads the repository: bot.downstream.pins does.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from bot.errors import UserError

PIN_KINDS = ("date", "file", "pyproject", "ref", "requirements", "submodule")
# the fields each kind takes besides `kind` and `covers`, the required ones first
KIND_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "requirements": (("path",), ()), "pyproject": ((), ("path",)), "file": (("path",), ()),
    "submodule": (("path",), ()), "ref": (("ref",), ()), "date": (("date",), ("branch",)),
}
UPSTREAM_FIELDS = ("distribution", "packages", "source")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# handed to git or shown: never an option, never a control character or a space
PLAIN = re.compile(r"^(?![-])[^\x00-\x20\x7f]+$")


@dataclass(frozen=True)
class UpstreamSpec:
    source: str
    packages: tuple[str, ...] = ()
    distribution: str | None = None
    setting: str = "upstream"  # where it was written, for messages: "bot.toml: repos.NAME.upstream"


@dataclass(frozen=True)
class PinSpec:
    kind: str
    path: str | None = None
    ref: str | None = None
    date: str | None = None
    branch: str = "main"
    covers: tuple[str, ...] = ()
    setting: str = "pins[1]"


@dataclass(frozen=True)
class DownstreamSpec:
    upstream: UpstreamSpec
    pins: tuple[PinSpec, ...] = ()
    file: str = "bot.toml"  # the bot.toml that says it: a path upstream is relative to its directory


def downstream_spec(where: str, raw: dict[str, Any], file: str) -> DownstreamSpec | None:
    """The `upstream` and `pins` of a table (a repository's entry, or a bot.toml's top level); `where` is the
    table's name in messages ("bot.toml: repos.NAME" or "bot.toml:")."""
    if "pins" in raw and "upstream" not in raw:
        raise UserError(f"{_key(where, 'pins')}: pins without an upstream; expected upstream = \"NAME\" as well")
    if "upstream" not in raw:
        return None
    pins = raw.get("pins", [])
    if not isinstance(pins, list) or not all(isinstance(p, dict) for p in pins):
        raise UserError(f"{_key(where, 'pins')}: expected a list of tables ([[pins]] or pins = [{{kind = ...}}])")
    return DownstreamSpec(_upstream(_key(where, "upstream"), raw["upstream"]),
                          tuple(_pin(f"{_key(where, 'pins')}[{n}]", p) for n, p in enumerate(pins, 1)), file)


def _key(where: str, key: str) -> str:
    return f"{where} {key}" if where.endswith(":") else f"{where}.{key}"


def _upstream(where: str, raw: Any) -> UpstreamSpec:
    if isinstance(raw, str):
        raw = {"source": raw}
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a string (a registry name, a path, a git URL or owner/name) or a table")
    _known(where, raw, UPSTREAM_FIELDS)
    source = raw.get("source")
    if not isinstance(source, str) or not PLAIN.match(source):
        raise UserError(f"{where}.source: expected a registry name, a path, a git URL or owner/name (no spaces, "
                        f"no leading '-'), got {source!r}")
    packages = raw.get("packages", [])
    if not isinstance(packages, list) or (not packages and "packages" in raw) or \
            not all(isinstance(p, str) and IDENTIFIER.match(p) for p in packages):
        raise UserError(f"{where}.packages: expected a list of Python package names, got {packages!r}")
    distribution = raw.get("distribution")
    if distribution is not None and not (isinstance(distribution, str) and re.match(r"^[A-Za-z0-9][\w.-]*$",
                                                                                   distribution)):
        raise UserError(f"{where}.distribution: expected a distribution name, got {distribution!r}")
    return UpstreamSpec(source, tuple(packages), distribution, where)


def _pin(where: str, raw: dict[str, Any]) -> PinSpec:
    kind = raw.get("kind")
    if kind not in PIN_KINDS:
        raise UserError(f"{where}.kind: expected one of {', '.join(PIN_KINDS)}, got {kind!r}")
    required, optional = KIND_FIELDS[kind]
    _known(where, raw, ("kind", "covers", *required, *optional), f" for kind {kind}")
    for key in required:
        if key not in raw:
            raise UserError(f"{where}.{key}: missing; a pin of kind {kind} needs {' and '.join(required)}")
    for key in ("path", "ref", "branch"):
        if key in raw and not (isinstance(raw[key], str) and PLAIN.match(raw[key])):
            raise UserError(f"{where}.{key}: expected a string with no spaces and no leading '-', got {raw[key]!r}")
    if "path" in raw and _escapes(raw["path"]):
        raise UserError(f"{where}.path: expected a path inside the repository, got {raw['path']!r}")
    date = raw.get("date")
    if isinstance(date, datetime.date) and not isinstance(date, datetime.datetime):
        date = date.isoformat()  # `date = 2026-05-01` unquoted: TOML's own date
    if date is not None and not (isinstance(date, str) and DATE.match(date)):
        raise UserError(f"{where}.date: expected a date as YYYY-MM-DD (a quoted string), got {date!r}")
    covers = raw.get("covers", [])
    if not isinstance(covers, list) or not all(isinstance(c, str) and not _escapes(c) for c in covers):
        raise UserError(f"{where}.covers: expected a list of directories inside the repository, got {covers!r}")
    path = raw.get("path", "pyproject.toml" if kind == "pyproject" else None)
    return PinSpec(kind, path, raw.get("ref"), date, raw.get("branch", "main"),
                   tuple(_directory(c) for c in covers), where)


def _known(where: str, raw: dict[str, Any], fields: tuple[str, ...], of: str = "") -> None:
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise UserError(f"{where}.{unknown[0]}: unknown field{of}; expected {', '.join(sorted(fields))}")


def _escapes(path: str) -> bool:
    return path.startswith("/") or ".." in path.split("/")


def _directory(path: str) -> str:
    """A directory as pins compare them: no leading `./`, no trailing `/`, the root as `.`."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/".join(parts) or "."
