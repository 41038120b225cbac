"""Silencing: findings a maintainer accepted, by a comment in the file or by an entry in a baseline.

A comment `# followup-bot: ignore[rule-a,rule-b]` (bare `# followup-bot: ignore`: every rule)
silences a finding of those rules when it stands on the finding's line, on the first or the last
line of the launch the finding was read in, or in the block of comment lines directly above the
finding's line or above the launch. Every file kind the bot reads has `#` comments (a notebook's
cell lines are JSON strings, so there the `#` follows the string's opening quote).

A baseline (bot.model.Baseline) holds (rule, path, key, value) entries, never a line, so an edit
elsewhere in the file does not bring a finding back.

A silenced finding is counted in the report but is neither reported as a finding nor fixed; a
finding whose fix is also a silenced finding's (one definition feeding both) becomes manual, so
no edit ever changes what a silenced finding says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.engine.edits import overlapping
from bot.errors import UserError
from bot.model import BASELINE, INLINE, Baseline, Finding, Reason, Status

DEFAULT_BASELINE = ".followup-bot-baseline.json"  # at the repository root: used when present
BASELINE_VERSION = 1
ALL = "*"  # a bare `ignore`: every rule
# `ignore`, `ignore[a,b]` or `ignore [a,b]` (then any reason); `ignore a-rule` is not a directive: it silences nothing
_DIRECTIVE = re.compile(r'(?:^|(?<=[\s"]))#+[ \t]*followup-bot:[ \t]*ignore(?![\w-])'
                        r'(?:[ \t]*\[([^\]\n]*)\]|(?![ \t]*[\w\[-]))')
_COMMENT_LINE = re.compile(r'^\s*"?#')  # a line that is only a comment (a notebook's: in a JSON string)


class Directives:
    """The `followup-bot: ignore` comments of one file, by line."""

    def __init__(self, data: bytes) -> None:
        self.lines = data.decode("utf-8", "replace").split("\n")

    def named(self, line: int) -> set[str]:
        """The rule ids (ALL for a bare ignore) a directive on this 1-based line names."""
        if not 0 < line <= len(self.lines) or "followup-bot" not in self.lines[line - 1]:
            return set()
        names: set[str] = set()
        for match in _DIRECTIVE.finditer(self.lines[line - 1]):
            listed = match.group(1)
            names.update({ALL} if listed is None else {n.strip() for n in listed.split(",") if n.strip()})
        return names

    def above(self, line: int) -> set[str]:
        """What the block of comment-only lines directly above `line` names."""
        names: set[str] = set()
        line -= 1
        while 0 < line <= len(self.lines) and _COMMENT_LINE.match(self.lines[line - 1]):
            names |= self.named(line)
            line -= 1
        return names

    def cover(self, finding: Finding) -> bool:
        on = {finding.line}
        tops = {finding.line}
        for first, last in finding.scope:
            on |= {first, last}
            tops.add(first)
        names: set[str] = set()
        for line in on:
            names |= self.named(line)
        for line in tops:
            names |= self.above(line)
        return ALL in names or finding.rule in names


def silence(findings: list[Finding], data: bytes, baseline: Baseline | None = None) -> list[Finding]:
    """Take the silenced findings out of `findings` (in place) and return them, without their edits.

    A finding left whose fix is, or overlaps, a silenced one's becomes manual (Reason.SILENCED).
    """
    directives = Directives(data) if b"followup-bot" in data else None
    kept: list[Finding] = []
    quiet: list[Finding] = []
    for finding in findings:
        if directives is not None and directives.cover(finding):
            finding.silenced = INLINE
        elif baseline is not None and baseline.holds(finding):
            finding.silenced = BASELINE
        (kept if finding.silenced is None else quiet).append(finding)
    if not quiet:
        return []
    findings[:] = kept
    blocked = [e for f in quiet for e in f.edits]
    for finding in kept:
        if finding.status is Status.FIXABLE and blocked and overlapping(finding.edits, blocked):
            lines = sorted({q.line for q in quiet if overlapping(finding.edits, q.edits)})
            finding.make_manual(f"not edited: the same fix would change line {', '.join(map(str, lines))}, "
                                "whose finding is silenced", Reason.SILENCED)
    for finding in quiet:
        finding.edits, finding.fix_site = [], None
    return quiet


def identity(finding: Finding) -> tuple[str, str, str | None]:
    """What stays the same when an edit elsewhere moves a finding: for telling whether one was fixed."""
    return (finding.rule, finding.key, finding.value)


# ---- baseline files ----------------------------------------------------------------

def default_baseline(root: Path) -> Baseline | None:
    """The repository's own baseline (DEFAULT_BASELINE at its root), if it has one."""
    path = root / DEFAULT_BASELINE
    if path.is_symlink():
        raise UserError(f"{path}: a symlink; expected the baseline itself")
    if not path.is_file():
        return None
    return replace(read_baseline(path), source=DEFAULT_BASELINE)  # the same in every report, wherever it ran


def read_baseline(path: Path) -> Baseline:
    """A baseline file; a missing or malformed one is a usage error naming the file and what was expected."""
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise UserError(f"{path}: cannot read the baseline: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UserError(f"{path}: expected a followup-bot baseline (JSON): {exc}") from None
    entries = set()
    for index, item in enumerate(_items(path, data)):
        where = f"{path}: findings[{index}]"
        if not isinstance(item, dict):
            raise UserError(f"{where}: expected an object with rule, path, key and value")
        for name in ("rule", "path", "key"):
            if not isinstance(item.get(name), str):
                raise UserError(f"{where}.{name}: expected a string")
        if "value" not in item or not isinstance(item["value"], (str, type(None))):
            raise UserError(f"{where}.value: expected a string or null")
        entries.add((item["rule"], item["path"], item["key"], item["value"]))
    return Baseline(frozenset(entries), str(path))


def _items(path: Path, data: Any) -> list[Any]:
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or not isinstance(
            data.get("findings"), list):
        raise UserError(f"{path}: expected a followup-bot baseline: {{\"version\": {BASELINE_VERSION}, "
                        "\"findings\": [...]}")
    items: list[Any] = data["findings"]
    return items


def write_baseline(path: Path, findings: list[Finding],
                   outside: Callable[[str, str], bool] = lambda rule, where: False, root: Path | None = None) -> int:
    """Write `findings` as a baseline (one entry per line, sorted); a `reason` written by hand is kept, and
    so is every old entry for which `outside(rule, path)` says the run could not have seen it.

    The file is replaced whole (bot.safe_write): never written through a symlink, and below the
    repository's `root` never through a symlinked directory. Returns the number of entries.
    """
    reasons: dict[tuple[Any, ...], str] = {}
    carried: set[tuple[Any, ...]] = set()
    if path.is_file() and not path.is_symlink():
        try:
            for item in json.loads(path.read_bytes()).get("findings", []):
                if not isinstance(item, dict):
                    continue
                old = (item.get("rule"), item.get("path"), item.get("key"), item.get("value"))
                if isinstance(item.get("reason"), str):
                    reasons[old] = item["reason"]
                if (isinstance(old[0], str) and isinstance(old[1], str) and isinstance(old[2], str)
                        and isinstance(old[3], (str, type(None))) and outside(old[0], old[1])):
                    carried.add(old)
        except (OSError, ValueError, AttributeError):
            pass  # an old file that does not read is replaced
    keys = sorted({(f.rule, f.path, f.key, f.value) for f in findings} | carried,
                  key=lambda e: (e[1], e[0], e[2], e[3] is None, e[3] or ""))
    rows = []
    for rule, where, key, value in keys:
        entry: dict[str, Any] = {"rule": rule, "path": where, "key": key, "value": value}
        if (rule, where, key, value) in reasons:
            entry["reason"] = reasons[(rule, where, key, value)]
        rows.append("    " + json.dumps(entry, ensure_ascii=False))
    text = (f'{{\n  "version": {BASELINE_VERSION},\n  "tool": "followup-bot",\n  "findings": ['
            + ("\n" + ",\n".join(rows) + "\n  " if rows else "") + "]\n}\n")
    from bot.safe_write import replace_file

    try:
        replace_file(path, text.encode("utf-8"), root)
    except UserError as exc:
        raise UserError(f"--write-baseline {exc}") from None
    except OSError as exc:
        raise UserError(f"--write-baseline {path}: cannot write: {exc.strerror or exc}") from None
    return len(rows)
