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
from typing import TYPE_CHECKING, Any

from bot.context import NO_CONSOLES, Consoles
from bot.engine.edits import overlapping
from bot.errors import UserError
from bot.model import BASELINE, INLINE, Baseline, Finding, Reason, Status

if TYPE_CHECKING:
    from bot.lang.comments import Comments, ShellTexts

DEFAULT_BASELINE = ".followup-bot-baseline.json"  # at the repository root: used when present
BASELINE_VERSION = 1
ALL = "*"  # a bare `ignore`: every rule
# `ignore`, `ignore[a,b]` or `ignore [a,b]` (then any reason); `ignore a-rule` is not a directive: it silences nothing
_DIRECTIVE = re.compile(r'(?:^|(?<=[\s"]))#+[ \t]*followup-bot:[ \t]*ignore(?![\w-])'
                        r'(?:[ \t]*\[([^\]\n]*)\]|(?![ \t]*[\w\[-]))')
_COMMENT_LINE = re.compile(r'^\s*"?#')  # a line that is only a comment (a notebook's: in a JSON string)


class Directives:
    """The `followup-bot: ignore` comments of one file, by line. With the file's kind, a directive counts only
    where the file's language reads a comment (bot.lang.comments); where no code of the file shows the `#`
    (a doc's prose) and for a file of unknown kind, the text alone decides, as it always did. Each line's
    names, and the names of the comment block above each line, are found once: the lookups of all findings
    take time linear in the file."""

    def __init__(self, data: bytes, kind: str | None = None, consoles: Consoles = NO_CONSOLES,
                 shell: ShellTexts | None = None) -> None:
        self.data = data
        self.starts = [0, *(m.end() for m in re.finditer(rb"\n", data))]
        self.comments: Comments | None = None
        if kind is not None:
            from bot.lang import comment_views
            from bot.lang.comments import Comments

            self.comments = Comments(data, comment_views(kind, data, consoles, shell))
        self._named: dict[int, frozenset[str]] = {}
        self._above: dict[int, frozenset[str]] = {}

    def _line(self, line: int) -> tuple[int, str]:
        """(byte offset, text) of a 1-based line; the text keeps every byte (surrogateescape)."""
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.data)
        return start, self.data[start:end].decode("utf-8", "surrogateescape")

    def _comment(self, start: int, text: str, index: int) -> bool:
        """Whether the `#` at character `index` of the line at byte `start` may be a directive's."""
        if self.comments is None:
            return True
        offset = start + len(text[:index].encode("utf-8", "surrogateescape"))
        return self.comments.real(offset) is not False

    def named(self, line: int) -> frozenset[str]:
        """The rule ids (ALL for a bare ignore) a directive on this 1-based line names."""
        if not 0 < line <= len(self.starts):
            return frozenset()
        known = self._named.get(line)
        if known is not None:
            return known
        names: set[str] = set()
        start, text = self._line(line)
        if "followup-bot" in text:
            for match in _DIRECTIVE.finditer(text):
                if not self._comment(start, text, match.start()):
                    continue  # the text of a quoted argument, a string, a YAML scalar: no comment
                listed = match.group(1)
                names.update({ALL} if listed is None else {n.strip() for n in listed.split(",") if n.strip()})
        self._named[line] = frozenset(names)
        return self._named[line]

    def _comment_line(self, line: int) -> bool:
        start, text = self._line(line)
        match = _COMMENT_LINE.match(text)
        return match is not None and self._comment(start, text, match.end() - 1)

    def above(self, line: int) -> frozenset[str]:
        """What the block of comment-only lines directly above `line` names."""
        todo = []  # lines whose answer waits on the line above them, from `line` up
        at = line
        while at not in self._above:
            if not (1 < at <= len(self.starts) + 1 and self._comment_line(at - 1)):
                self._above[at] = frozenset()
                break
            todo.append(at)
            at -= 1
        for below in reversed(todo):  # a line's block: the comment line above it, and that line's block
            self._above[below] = self.named(below - 1) | self._above[below - 1]
        return self._above[line]

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


def silence(findings: list[Finding], data: bytes, baseline: Baseline | None = None,
            kind: str | None = None, consoles: Consoles = NO_CONSOLES,
            shell: ShellTexts | None = None) -> list[Finding]:
    """Take the silenced findings out of `findings` (in place) and return them, without their edits.

    `kind`: the file's kind, whose languages say which `#` are comments (None: the text alone decides);
    `consoles`: the repository's console scripts (a doc's bare block that runs one is shell); `shell`: the
    file's front end, whose reading of its shell says where comments are (nothing parsed again).
    A finding left whose fix is, or overlaps, a silenced one's becomes manual (Reason.SILENCED).
    """
    directives = Directives(data, kind, consoles, shell) if b"followup-bot" in data else None
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
    except RecursionError:  # arrays or objects nested deeper than the decoder follows
        raise UserError(f"{path}: expected a followup-bot baseline (JSON): nested too deeply to read") from None
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
