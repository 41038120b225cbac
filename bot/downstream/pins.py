"""Where a downstream pins its upstream: a reader per kind of pin (bot.downstream.spec), or, when bot.toml
lists none, the pins found in the usual places (requirements*.txt, pyproject.toml, REQUIRED_<NAME>*.txt
files and a submodule whose URL or path names the upstream)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.downstream.model import Pin, Upstream
from bot.downstream.requirement import requirement_pin, value_kind
from bot.downstream.spec import PinSpec
from bot.errors import UserError
from bot.gitfiles import list_files
from bot.rules.globs import GlobError, path_glob

TOML = re.compile(r"^\s*\[")
SUBMODULE = re.compile(r"^\s*(path|url)\s*=\s*(\S.*?)\s*$")


@dataclass
class PinReading:
    pins: list[Pin] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a file a pin names that names no version of the upstream


def read_pins(root: Path, upstream: Upstream, specs: tuple[PinSpec, ...], said_in: str) -> PinReading:
    """The pins `specs` name (`said_in`: the bot.toml, for the pins it holds itself), or those found."""
    files = list_files(root)
    out = PinReading()
    for spec in specs:
        out.pins.extend(_read(root, upstream, spec, files, said_in, out.notes, required=True))
    for spec in () if specs else _found(root, upstream, files):
        out.pins.extend(_read(root, upstream, spec, files, said_in, out.notes, required=False))
    out.pins.sort(key=lambda p: (p.covers, p.file, p.line or 0))
    return out


def pin_of(pins: list[Pin], path: str) -> Pin | None:
    """The pin of the deepest directory covering `path` (the first of its file, when one holds two)."""
    covering = [p for p in pins if p.covers_path(path)]
    return max(covering, key=lambda p: p.covers.count("/") + (p.covers != "."), default=None)


def _found(root: Path, upstream: Upstream, files: list[str]) -> Iterator[PinSpec]:
    for path in files:
        name = path.rsplit("/", 1)[-1].lower()
        if name.startswith("requirements") and name.endswith(".txt"):
            yield PinSpec("requirements", path, setting=path)
        elif name == "pyproject.toml":
            yield PinSpec("pyproject", path, setting=path)
        elif name.startswith("required_" + upstream.packages[0].lower()) and name.endswith(".txt"):
            yield PinSpec("file", path, setting=path)
    for path, url in _submodules(root):
        if _names(upstream, url) or _names(upstream, path):
            yield PinSpec("submodule", path, setting=f".gitmodules: {path}")


def _names(upstream: Upstream, where: str) -> bool:
    last = where.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git").lower()
    return last in {upstream.distribution.lower(), *(p.lower() for p in upstream.packages)}


def _read(root: Path, upstream: Upstream, spec: PinSpec, files: list[str], said_in: str, notes: list[str],
          required: bool) -> list[Pin]:
    """The pins of one spec; one bot.toml names (`required`) must be there, one found may name nothing."""
    if spec.kind == "ref":
        assert spec.ref is not None
        return [Pin("ref", said_in, None, value_kind(spec.ref), spec.ref, c) for c in spec.covers or (".",)]
    if spec.kind == "date":
        assert spec.date is not None
        return [Pin("date", said_in, None, "date", spec.date, c, spec.branch) for c in spec.covers or (".",)]
    if spec.kind == "submodule":
        return _submodule(root, spec, required)
    matched = _matching(spec, files, required)
    out: list[Pin] = []
    for path in matched:
        found = _in_file(root, upstream, spec.kind, path)
        if found is None:
            if required:
                notes.append(f"{path} names no version of {upstream.name}")
            continue
        line, what, value = found
        directory = path.rsplit("/", 1)[0] if "/" in path else "."
        out.extend(Pin(spec.kind, path, line, what, value, c) for c in spec.covers or (directory,))
    return out


def _matching(spec: PinSpec, files: list[str], required: bool) -> list[str]:
    assert spec.path is not None
    if spec.path in files:
        return [spec.path]
    try:
        glob = path_glob(spec.path)
    except GlobError as exc:
        raise UserError(f"{spec.setting}.path: {exc}") from None
    matched = [f for f in files if glob.matches(f)]
    if not matched and required:
        raise UserError(f"{spec.setting}.path: no file of the repository matches {spec.path!r}")
    return matched


def _in_file(root: Path, upstream: Upstream, kind: str, path: str) -> tuple[int, str, str] | None:
    try:
        text = (root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = text.splitlines()
    bare = kind == "file" and sum(bool(s.strip()) for s in lines) <= 3
    names = tuple({upstream.name.lower(), upstream.distribution.lower(), *(p.lower() for p in upstream.packages)})
    for number, line in enumerate(lines, 1):
        if (kind == "pyproject" and TOML.match(line)) or (not bare and not any(n in line.lower() for n in names)):
            continue  # a line that does not name it pins nothing, but the value alone in a short file
        quoted = re.findall(r"\"([^\"]+)\"|'([^']+)'", line) if kind == "pyproject" else [(line, "")]
        for first, second in quoted:
            pin = requirement_pin(first or second, upstream.distribution, upstream.packages)
            if pin is not None:
                return (number, *pin)
        if kind == "file":
            said = _said(line, upstream, bare)
            if said is not None:
                return (number, *said)
    return None


def _said(line: str, upstream: Upstream, bare: bool) -> tuple[str, str] | None:
    """A line of a pin file or a README: `verl commit ccd7d93`, `verl main as of 2026-05-01`, or, in a file of
    at most three lines, the value alone (`0.5.0`, a commit, a date)."""
    names = "|".join(re.escape(n) for n in {upstream.name, upstream.distribution, *upstream.packages})
    said = re.search(rf"\b(?:{names})\b[^\n]*?\b(?:commit|version|tag|release|at|@)\s*`?(v?[\w.+-]*\d[\w.+-]*)`?",
                     line, re.IGNORECASE)
    if said is not None:
        return value_kind(said[1].rstrip("."), bare=True), said[1].rstrip(".")
    dated = re.search(rf"\b(?:{names})\b.*?\b(\d{{4}}-\d{{2}}-\d{{2}})\b", line, re.IGNORECASE)
    if dated is not None:
        return "date", dated[1]
    token = line.strip().strip("`")
    if bare and token and not token.startswith("#") and " " not in token:
        return value_kind(token, bare=True), token
    return None


def _submodule(root: Path, spec: PinSpec, required: bool) -> list[Pin]:
    assert spec.path is not None
    path = spec.path.strip("/")
    try:
        listed = subprocess.run(["git", "ls-files", "--stage", "--", path], cwd=root, capture_output=True,
                                text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        listed = ""
    commit = next((line.split()[1] for line in listed.splitlines() if line.startswith("160000 ")), None)
    if commit is None and not required:
        return []
    if commit is None:
        raise UserError(f"{spec.setting}.path: no submodule at {path!r} in the repository's index")
    return [Pin("submodule", path, None, "commit", commit, c) for c in spec.covers or (".",)]


def _submodules(root: Path) -> list[tuple[str, str]]:
    """(path, url) of each submodule .gitmodules lists."""
    try:
        text = (root / ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out: list[tuple[str, str]] = []
    current: dict[str, str] = {}
    for line in [*text.splitlines(), "[end]"]:
        if line.strip().startswith("["):
            if "path" in current:
                out.append((current["path"], current.get("url", "")))
            current = {}
        elif (match := SUBMODULE.match(line)) is not None:
            current[match[1]] = match[2]
    return out
