"""Per-file results of earlier scans, so a file whose inputs have not changed is not parsed again.

An entry holds what one file contributed to a report (findings with their edits, skip reasons,
counts) under the key that decides it: the file's path, its content id and size, and the ids of
the other files its result read (the scripts it calls; for YAML configs, every config and Python
file, since Hydra packages and app config directories come from them). The whole store is only
valid for one fingerprint: this bot's own source, the versions of the parsers it uses and the
enabled rules; a different fingerprint starts an empty store.

The store is JSON, one file per repository directory, replaced whole (bot.safe_write); a file that is
missing, unreadable or from another format version is treated as empty, never as an error.
Cached edits are replayed only on bytes with the recorded id, and callers that write files
re-check those files from scratch (bot.cache.reuse).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from bot.engine.edits import apply_edits, unique_edits
from bot.errors import UserError
from bot.model import Edit, FileChange, FileResult, Finding, Outcome, Reason, SkipKind, Skipped, Span, Status
from bot.rules.model import Rule
from bot.safe_write import replace_file

FORMAT = 6
PARSERS = ("tree-sitter", "tree-sitter-bash", "hydra-core", "omegaconf", "libcst", "ruamel.yaml")


def default_directory() -> Path:
    """$BOT_CACHE_DIR, else the user's cache directory (XDG), under followup-bot."""
    explicit = os.environ.get("BOT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "followup-bot"


def fingerprint(rules: list[Rule]) -> str:
    """What every cached result depends on besides the files themselves."""
    digest = hashlib.sha256(_code_digest().encode())
    for rule in rules:
        digest.update(repr(rule).encode() + b"\n")
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """This bot's source, the Python and parser versions: read once per process."""
    digest = hashlib.sha256(f"format {FORMAT}\npython {sys.version}\n".encode())
    package = Path(__file__).resolve().parent.parent  # the whole bot package
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".toml") and path.is_file():
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for name in PARSERS:
        try:
            digest.update(f"{name}=={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name} missing\n".encode())
    return digest.hexdigest()


@dataclass
class Entry:
    """One file's cached result: valid while the file has `content` and `size` and each dep its id."""

    content: str
    size: int
    outcome: dict[str, Any]
    deps: dict[str, str] = field(default_factory=dict)  # path -> content id ("" when absent)


class ResultCache:
    def __init__(self, directory: Path, root: Path, fingerprint: str) -> None:
        scope = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:24]
        self.path = directory / f"scan-{scope}.json"
        self.fingerprint = fingerprint
        self.entries: dict[str, Entry] = {}  # recorded or looked up in this run
        self._raw: dict[str, Any] = {}  # as loaded
        self.hits = 0
        self.misses = 0
        self._dirty = False
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("fingerprint") != self.fingerprint:
            return
        entries = data.get("entries")
        if isinstance(entries, dict):
            self._raw = entries  # decoded entry by entry, on lookup

    def lookup(self, path: str, content: str, size: int, current_id: Callable[[str], str]) -> Entry | None:
        """The cached entry, if the file and everything its result read are as recorded.

        `current_id(path)` gives another file's content id now ("" when absent).
        """
        entry = self.entries.get(path)
        if entry is None and path in self._raw:
            entry = self._entry(self._raw[path])
        if (entry is None or entry.content != content or entry.size != size
                or (entry.deps and not all(current_id(dep) == known for dep, known in entry.deps.items()))):
            self.misses += 1
            return None
        self.hits += 1
        return entry

    @staticmethod
    def _entry(raw: Any) -> Entry | None:
        try:
            content, size, outcome, deps = raw
            if isinstance(content, str) and isinstance(size, int) and isinstance(outcome, dict) and isinstance(
                    deps, dict):
                return Entry(content, size, outcome, deps)
        except (TypeError, ValueError):
            pass
        return None  # a damaged entry is a miss

    def put(self, path: str, entry: Entry) -> None:
        self.entries[path] = entry
        self._dirty = True

    def keep_only(self, paths: set[str]) -> None:
        """Keep only these files' entries (the files of a complete scan)."""
        before = len(self._raw) + len(self.entries)
        self._raw = {p: raw for p, raw in self._raw.items() if p in paths and p not in self.entries}
        self.entries = {p: e for p, e in self.entries.items() if p in paths}
        self._dirty |= len(self._raw) + len(self.entries) != before

    def save(self) -> None:
        """Write the store if anything changed; a cache that cannot be written is only slower."""
        if not self._dirty:
            return
        entries = dict(self._raw)
        entries.update((p, [e.content, e.size, e.outcome, e.deps]) for p, e in self.entries.items())
        payload = {"format": FORMAT, "fingerprint": self.fingerprint, "entries": dict(sorted(entries.items()))}
        # dumps, not dump: only the one-shot encoder is the C one (several times faster)
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogateescape")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_file(self.path, data, mode=0o600)
        except (OSError, UserError):
            return
        self._dirty = False


def encode_outcome(outcome: Outcome, *, with_patch: bool = False) -> dict[str, Any]:
    """An outcome as JSON data; a change is kept as the edits that make it, not as bytes.

    `with_patch` also keeps a change's unified diff (for dry runs, whose reports show it).
    """
    data: dict[str, Any] = {"skipped": [[s.reason, s.kind.value] for s in outcome.skipped]}
    if outcome.by_callees:
        data["by_callees"] = True
    if outcome.holds_token:
        data["holds_token"] = True
    result = outcome.result
    if result is not None:
        data["result"] = {"kind": result.kind, "findings": _encode_findings(result.findings),
                          "partly_parsed": result.partly_parsed, "unsure": list(result.unsure),
                          "launches": result.launches,
                          "unreadable": result.unreadable, "changed": result.change is not None,
                          "silenced": _encode_findings(result.silenced)}
        if result.inputs is not None:
            data["result"]["inputs"] = list(result.inputs)
        if with_patch and result.change is not None:
            from bot.report.diff import unified_diff

            data["result"]["patch"] = unified_diff(result.change)
    return data


def decode_outcome(path: str, data: dict[str, Any], current: bytes | None) -> Outcome:
    """The outcome back; `current` (the file's bytes, for one that was changed) rebuilds the change.

    Raises ValueError (or TypeError, KeyError) on data this version did not write.
    """
    raw = data.get("result")
    skipped = data["skipped"]
    outcome = Outcome(path, skipped=[Skipped(path, str(reason), SkipKind(kind)) for reason, kind in skipped],
                      by_callees=bool(data.get("by_callees")), holds_token=bool(data.get("holds_token")))
    if raw is None:
        return outcome
    findings = _decode_findings(raw["findings"])
    change = None
    if raw["changed"]:
        if current is None:
            raise ValueError("a changed file needs its bytes")
        change = FileChange(path, current, apply_edits(current, unique_edits(findings)))
        patch = raw.get("patch")
        if isinstance(patch, str):  # made from these very bytes (checked by the caller) and edits
            change.patch = patch.encode("utf-8", "surrogateescape")
    outcome.result = FileResult(findings, change, bool(raw["partly_parsed"]), int(raw["launches"]), str(raw["kind"]),
                                raw["unreadable"], unsure=tuple(str(r) for r in raw.get("unsure", ())),
                                silenced=_decode_findings(raw["silenced"]),
                                inputs=tuple(str(v) for v in raw["inputs"]) if "inputs" in raw else None)
    return outcome


def changed(data: dict[str, Any]) -> bool:
    raw = data.get("result")
    return bool(raw and raw.get("changed"))


def _encode_findings(findings: list[Finding]) -> list[list[Any]]:
    return [[f.rule, f.path, f.line, f.column, f.key, f.value, f.status.value, f.message,
             list(f.fix_site) if f.fix_site else None,
             [[e.path, e.span.start, e.span.end, e.text, e.rule] for e in f.edits], f.severity,
             f.reason.value if f.reason else None, f.silenced]
            for f in findings]


def _decode_findings(raw: list[list[Any]]) -> list[Finding]:
    findings = []
    for rule, path, line, column, key, value, status, message, site, edits, severity, reason, silenced in raw:
        findings.append(Finding(rule, path, line, column, key, value, Status(status), message,
                                (site[0], site[1]) if site else None,
                                [Edit(p, Span(start, end), text, r) for p, start, end, text, r in edits], severity,
                                Reason(reason) if reason else None, silenced))
    return findings
