"""Plain data that flows through the bot: no I/O, no parsing, no library imports."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Status(str, Enum):
    FIXABLE = "fixable"
    FIXED = "fixed"
    MANUAL = "manual"


INLINE, BASELINE = "inline", "baseline"  # how a finding was silenced
NOTE = "note"  # a finding's severity that never fails --check and is never a problem in a pull request
WRITING = "writing"  # the stage of a FileError for a verified change a --write did not write


class Reason(str, Enum):
    """Why a fix was taken back, where code (not only a person) acts on it."""

    CONFLICT = "conflict"  # two fixes overlap, or one is planned where another's goes: it is not made
    UNVERIFIED = "unverified"  # the edited file failed verification: nothing of it is made
    UNCOMPOSED = "uncomposed"  # a launch would no longer compose with the rule's fixes: none of them is made
    SILENCED = "silenced"  # the same fix would change what a silenced finding says: not made


class SkipKind(str, Enum):
    LINK = "link"  # a symlink or what lies behind one: never read through, by design
    UNREADABLE = "unreadable"  # too large, binary, not UTF-8, not what its name says, an I/O error
    LEFTOVER = "leftover"  # a temp file of the bot's own that a stopped --write left (bot.safe_write.TEMP_NAME)


@dataclass(frozen=True)
class Span:
    """A half-open byte range in one file."""

    start: int
    end: int

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class Edit:
    """Replace the bytes of `span` by `text`. An empty span is an insertion."""

    path: str
    span: Span
    text: str
    rule: str


@dataclass
class Finding:
    rule: str
    path: str
    line: int
    column: int
    key: str
    value: str | None
    status: Status
    message: str
    fix_site: tuple[str, int] | None = None
    edits: list[Edit] = field(default_factory=list)
    severity: str = "error"
    reason: Reason | None = None  # why a fix was taken back (the message says it in words)
    silenced: str | None = None  # INLINE or BASELINE: a maintainer silenced it (not reported, not fixed)
    # (first, last) lines of the launches it was read in, where a silencing comment also applies
    scope: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.rule, self.key)

    def make_manual(self, words: str, reason: Reason) -> None:
        """Take the fix back: a person must act; `words` say why, `reason` says it to code."""
        self.status = Status.MANUAL
        self.message = f"{self.message}; {words}"
        self.edits = []
        self.fix_site = None
        self.reason = reason

    @property
    def is_note(self) -> bool:
        """A note never fails --check and is never a problem in a pull request."""
        return self.severity == NOTE


@dataclass(frozen=True)
class Baseline:
    """Findings a maintainer accepted, as (rule, path, key, value): no line, so edits elsewhere keep them."""

    entries: frozenset[tuple[str, str, str, str | None]] = frozenset()
    source: str = ""  # the file it was read from

    def holds(self, finding: Finding) -> bool:
        return (finding.rule, finding.path, finding.key, finding.value) in self.entries

    def paths(self) -> set[str]:
        return {path for _, path, _, _ in self.entries}


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str
    kind: SkipKind = SkipKind.UNREADABLE


@dataclass(frozen=True)
class FileError:
    """A file the bot could not check: one line for the report, the traceback for the crash log."""

    path: str
    reason: str
    stage: str = "checking"
    detail: str = field(default="", compare=False, repr=False)
    rules: tuple[str, ...] = ()  # the rules that would have read the file (a pull request of theirs stays open)


@dataclass
class FileChange:
    path: str
    before: bytes
    after: bytes
    patch: bytes | None = field(default=None, compare=False, repr=False)  # unified diff, once made


@dataclass
class RuleInfo:
    id: str
    enabled: bool
    title: str = ""
    severity: str = "error"
    upstream: str | None = None  # the upstream change it follows (`owner/name#N`), for links


@dataclass
class ComposeSummary:
    launches: int = 0
    base_composes: int = 0
    unresolved: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, why not checked
    readings: int = 0  # ways through the launches' branches composed


@dataclass
class CacheStats:
    reused: int = 0
    checked: int = 0


@dataclass
class PublishDecision:
    """What publishing decided for one follow-up pull request, and why."""

    group: str
    branch: str
    action: str  # opened | updated | up-to-date | blocked | closed | skipped | nothing | failed ...
    detail: str = ""
    number: int | None = None
    url: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"group": self.group, "branch": self.branch, "action": self.action, "detail": self.detail,
                "number": self.number, "url": self.url}


@dataclass
class PublishSummary:
    decisions: list[PublishDecision] = field(default_factory=list)
    api_requests: int = 0


@dataclass
class Inferred:
    suggestions: list[str] = field(default_factory=list)  # inferred rules not confident enough to run
    not_understood: list[str] = field(default_factory=list)  # new validation the bot could not read


@dataclass
class Report:
    repo: str
    commit: str | None
    rules: list[RuleInfo]
    findings: list[Finding] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    partly_parsed: list[str] = field(default_factory=list)
    unsure: dict[str, tuple[str, ...]] = field(default_factory=dict)  # partly parsed path -> rules errors reach
    files_scanned: int = 0
    files_parsed: int = 0
    launches: int = 0
    written: bool = False
    files_by_kind: dict[str, int] = field(default_factory=dict)  # files scanned, by source kind
    file_kinds: dict[str, str] = field(default_factory=dict)  # path -> kind, for every file parsed
    reads: set[str] = field(default_factory=set)  # files results depend on besides their own (callees)
    errors: list[FileError] = field(default_factory=list)  # files that could not be checked, and why
    compose: ComposeSummary | None = None  # compose-check's counts, when it ran
    cache: CacheStats | None = None  # per-file results taken from the cache, when one was used
    publish: PublishSummary | None = None  # what publishing decided, when it ran
    inferred: Inferred | None = None  # rules inferred from a change but not run, checks not understood
    silenced: list[Finding] = field(default_factory=list)  # findings a maintainer silenced: counted, not fixed
    baseline: Baseline | None = None  # the baseline the scan honoured
    files_quiet: dict[str, int] = field(default_factory=dict)  # by kind: files with nothing for the rules

    def kind_counts(self) -> dict[str, dict[str, int]]:
        """Per source kind: files scanned and parsed, findings (fixable and manual) and, apart, notes."""
        counts: dict[str, dict[str, int]] = {}

        def entry(kind: str) -> dict[str, int]:
            return counts.setdefault(kind, {"files": 0, "parsed": 0, "findings": 0, "fixable": 0, "manual": 0,
                                            "notes": 0})

        for kind, files in sorted(self.files_by_kind.items()):
            entry(kind)["files"] = files
        for kind in self.file_kinds.values():
            entry(kind)["parsed"] += 1
        for finding in self.findings:
            counted = entry(self.file_kinds.get(finding.path, "shell"))
            if finding.is_note:
                counted["notes"] += 1
                continue
            counted["findings"] += 1
            counted["manual" if finding.status is Status.MANUAL else "fixable"] += 1
        return counts

    @property
    def problems(self) -> list[Finding]:
        """The findings that are not notes: what --check fails on and a person or a fix must settle."""
        return [f for f in self.findings if not f.is_note]

    @property
    def notes(self) -> int:
        """Findings of severity note: told, never counted as findings, fixable or manual."""
        return sum(1 for f in self.findings if f.is_note)

    @property
    def fixable(self) -> int:
        return sum(1 for f in self.problems if f.status in (Status.FIXABLE, Status.FIXED))

    @property
    def manual(self) -> int:
        return sum(1 for f in self.problems if f.status is Status.MANUAL)

    @property
    def fixed(self) -> int:
        return sum(1 for f in self.findings if f.status is Status.FIXED)

    def unwritten(self) -> list[str]:
        """The changed files a --write left as they were (each has an error entry of stage "writing")."""
        return [e.path for e in self.errors if e.stage == WRITING]

    def written_changes(self) -> list[FileChange]:
        """The changes a --write wrote (all of them before any write: what the report shows as changes)."""
        left = set(self.unwritten())
        return [c for c in self.changes if c.path not in left and c.before != c.after]

    @property
    def check_errors(self) -> list[FileError]:
        """The files that could not be checked (a change that could not be written is no such file)."""
        return [e for e in self.errors if e.stage != WRITING]


@dataclass
class FileResult:
    findings: list[Finding] = field(default_factory=list)
    change: FileChange | None = None
    partly_parsed: bool = False
    launches: int = 0
    kind: str = "shell"
    unreadable: str | None = None  # why the file could not be read as its kind
    reads: tuple[str, ...] = ()  # other repository files the result depends on (scripts it calls)
    unsure: tuple[str, ...] = ()  # rules the file's parse errors may hide something from
    composed: bool = False  # Hydra judged its edits: the result depends on the repository's config tree
    silenced: list[Finding] = field(default_factory=list)  # findings a maintainer silenced
    inputs: tuple[str, ...] | None = None  # a script's variables its callers can hand it (bot.lang.focus)


@dataclass
class Outcome:
    """What one file contributed, small enough to send back from a worker process."""

    path: str
    result: FileResult | None = None
    skipped: list[Skipped] = field(default_factory=list)
    error: FileError | None = None
    by_callees: bool = False  # no token: read or not by which scripts hold one (bot.lang.focus), cached on those
    holds_token: bool = False  # its bytes hold an enabled rule's literal token (or the rules have none)
    looked_up: tuple[str, ...] = ()  # unlisted paths (or a glob) whether it was read rests on (bot.lang.focus)
