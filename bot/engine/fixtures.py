"""Rule fixtures: `<tests>/<rule-id>/<case>.before.EXT` + `.after.EXT`, `.same.EXT`, `.findings.txt`.

Every case is checked four ways, as black checks its formatting fixtures: the expected output,
a second run changes nothing, the output re-parses with no new errors, and line endings survive.
A `.findings.txt` beside a case lists the expected findings as `LINE STATUS` lines; a `.loads.txt` names,
one per line, the modules the case's launch's entry point loads (for a rule's `when.imports`: a fixture
has no repository to read them from).
The extension says the source kind (`.md`, `.rst`, `.ipynb`, `.yaml`, `.py`, shell otherwise); a
YAML case whose name starts with `workflow_` is read as a GitHub workflow.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.engine.check import check_file
from bot.ir import Launch
from bot.model import Reason, Status
from bot.rules.model import Rule

KINDS = ("before", "same")


@dataclass
class Case:
    rule_id: str
    name: str
    source: Path  # the before or same file
    expected: Path | None  # the after file; None: must not change
    findings: Path | None
    loads: Path | None = None  # the modules its launch's entry point loads (`when.imports`)

    @property
    def label(self) -> str:
        return f"{self.rule_id}/{self.name}"


@dataclass
class CaseResult:
    case: Case
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def collect_cases(tests_dir: Path, rule_ids: Iterable[str] | None = None) -> list[Case]:
    wanted = set(rule_ids) if rule_ids is not None else None
    cases = []
    for rule_dir in sorted(p for p in tests_dir.iterdir() if p.is_dir()):
        if wanted is not None and rule_dir.name not in wanted:
            continue
        for path in sorted(rule_dir.iterdir()):
            parts = path.name.split(".")
            if len(parts) < 3 or parts[1] not in KINDS:
                continue
            name = parts[0]
            suffix = "." + ".".join(parts[2:])
            expected = path.with_name(f"{name}.after{suffix}") if parts[1] == "before" else None
            findings = path.with_name(f"{name}.findings.txt")
            loads = path.with_name(f"{name}.loads.txt")
            cases.append(Case(rule_dir.name, name, path, expected, findings if findings.exists() else None,
                              loads if loads.exists() else None))
    return cases


def _line_endings(data: bytes) -> tuple[int, int]:
    crlf = data.count(b"\r\n")
    return crlf, data.count(b"\n") - crlf


def run_case(case: Case, rules: dict[str, Rule]) -> CaseResult:
    from bot.lang import front_end, kind_for_path
    from bot.lang.kinds import SHELL

    result = CaseResult(case)
    rule = rules.get(case.rule_id)
    if rule is None:
        result.problems.append(f"no rule {case.rule_id!r} is loaded")
        return result
    rule = replace(rule, enabled=True)
    before = case.source.read_bytes()
    path = case.source.name
    if case.name.startswith("workflow_") and case.source.suffix in (".yml", ".yaml"):
        path = ".github/workflows/" + path
    facts = StatedLoads(case.loads.read_text().split()) if case.loads is not None else None
    first = check_file(path, before, [rule], facts)
    after = first.change.after if first.change else before
    if case.expected is not None:
        if not case.expected.exists():
            result.problems.append(f"missing {case.expected.name}")
            return result
        expected = case.expected.read_bytes()
        if after != expected:
            result.problems.append("output differs from " + case.expected.name + ":\n" + _diff(expected, after))
    elif after != before:
        result.problems.append("a must-not-change file was changed:\n" + _diff(before, after))
    unverified = [f for f in first.findings if f.reason in (Reason.UNVERIFIED, Reason.UNCOMPOSED)]
    if unverified:
        result.problems.append("fix refused by verification: " + unverified[0].message)
    second = check_file(path, after, [rule], facts)
    if second.change is not None:
        result.problems.append("not idempotent: a second run changes it again:\n"
                               + _diff(after, second.change.after))
    reader = front_end(path, kind_for_path(path) or SHELL)
    if reader.errors(after) > reader.errors(before):
        result.problems.append("the output has new parse errors")
    if case.expected is not None and _line_endings(before)[0] and _line_endings(after)[1] > _line_endings(before)[1]:
        result.problems.append("LF line endings crept into a CRLF file")
    if case.findings is not None:
        wanted = [line.split() for line in case.findings.read_text().splitlines() if line.strip()]
        got = [[str(f.line), "manual" if f.status is Status.MANUAL else "fixable"] for f in first.findings]
        if sorted(got, key=lambda t: (int(t[0]), t[1])) != sorted(wanted, key=lambda t: (int(t[0]), t[1])):
            detail = "; ".join(f"{f.line} {f.status.value}: {f.message}" for f in first.findings) or "none"
            result.problems.append(f"findings differ: expected {wanted}, got {got} ({detail})")
    return result


class StatedLoads:
    """What a case's `.loads.txt` says every launch's entry point loads; nothing else about its config."""

    def __init__(self, modules: list[str]) -> None:
        self.modules = set(modules)

    def configs(self, launch: Launch) -> set[str] | None:
        return None

    def value(self, launch: Launch, key: str) -> tuple[bool | None, Any]:
        return None, None

    def not_hydra(self, launch: Launch) -> str | None:
        return None

    def loads(self, launch: Launch) -> set[str] | None:
        return set(self.modules)


def _diff(a: bytes, b: bytes) -> str:
    import difflib

    lines = difflib.unified_diff(
        a.decode("utf-8", "replace").splitlines(keepends=True),
        b.decode("utf-8", "replace").splitlines(keepends=True),
        "expected", "actual",
    )
    return "".join(repr(line)[1:-1] + "\n" if "\r" in line else line for line in lines)
