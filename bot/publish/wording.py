"""What a follow-up changes, in words: the title's summary, the commit type, and one row per edit.

The summary is read from the edits themselves (`set use_mbridge=True in 2 launch scripts`), so a
title says what the pull request does rather than what the rule is called.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.hydra.grammar import format_value
from bot.model import Finding, Report, Status
from bot.rules.model import Rule
from bot.rules.moves import carries

SHELL_KINDS = ("shell",)


@dataclass(frozen=True)
class Row:
    """One edit: where, which key, the text it replaces (None: an addition) and the new text."""

    path: str
    line: int
    key: str
    before: str | None
    after: str | None  # None: a removal


def change_type(rules: list[Rule]) -> str:
    """The conventional-commit type: `fix` when one of the rules fixes a failure, else `chore`."""
    return "fix" if any(r.change_type == "fix" for r in rules) else "chore"


def fixed(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status in (Status.FIXABLE, Status.FIXED) and f.edits]


def rows(report: Report, findings: list[Finding]) -> list[Row]:
    """One row per edit of the fixed findings, with the replaced bytes read from the file itself."""
    before = {c.path: c.before for c in report.changes}
    out: list[Row] = []
    seen: set[tuple[str, int, int]] = set()
    for finding in fixed(findings):
        for edit in finding.edits:
            mark = (edit.path, edit.span.start, edit.span.end)
            if mark in seen or edit.path not in before:
                continue
            seen.add(mark)
            data = before[edit.path]
            line = data.count(b"\n", 0, edit.span.start) + 1
            old = data[edit.span.start:edit.span.end].decode("utf-8", "replace")
            out.append(Row(edit.path, line, finding.key, _flat(old) or None, _flat(edit.text) or None))
    return sorted(out, key=lambda r: (r.path, r.line))


def _flat(text: str) -> str:
    """An edit's text on one line: continuation backslashes, newlines and indentation dropped."""
    return " ".join(part.strip().rstrip("\\").strip() for part in text.splitlines() if part.strip("\\ \t"))


def summary(rules: list[Rule], report: Report, findings: list[Finding]) -> str:
    """`set use_mbridge=True in 2 launch scripts`; the rule's title when the edits are of mixed kinds."""
    done = fixed(findings)
    files = sorted({e.path for f in done for e in f.edits})
    where = _where(files, report)
    order = {r.id: i for i, r in enumerate(rules)}
    verbs = [_verb(rules, f) for f in sorted(done, key=lambda f: order.get(f.rule, 0))]
    heads = {v[0] for v in verbs if v is not None}
    if files and None not in verbs and len(heads) == 1:
        (head,) = heads
        objects = list(dict.fromkeys(o for v in verbs if v is not None for o in v[1]))
        return f"{head} {_and(objects)} {'to' if head == 'add' else 'in'} {where}"
    plural = "fixes" if change_type(rules) == "fix" else "changes"
    title = rules[0].title if len(rules) == 1 else f"follow-up {plural} for {len(rules)} rules"
    title = title[:1].lower() + title[1:] if title[:2] != title[:2].upper() else title
    return f"{title} ({where})" if files else title


def _where(files: list[str], report: Report) -> str:
    kinds = {report.file_kinds.get(path, "shell") for path in files}
    noun = "launch script" if kinds <= set(SHELL_KINDS) else "file"
    return f"{len(files)} {noun}{'s' if len(files) != 1 else ''}"


def _verb(rules: list[Rule], finding: Finding) -> tuple[str, list[str]] | None:
    """(verb, what it acts on) for one fixed finding: ("set", ["use_mbridge=True"])."""
    rule = next((r for r in rules if r.id == finding.rule), None)
    leaf = finding.key.rsplit(".", 1)[-1]
    if rule is not None and rule.steps:
        rule = _step(rule, finding)
    if rule is None:
        return None
    if rule.ensure:
        leaves = list(dict.fromkeys(e.key.rsplit(".", 1)[-1] for e in rule.ensure))
        if len(leaves) == 1:
            return "add", [f"{leaves[0]}={format_value(rule.ensure[0].value)}"]
        return "add", leaves
    fix = rule.fix
    if fix is None:
        return None
    if fix.entrypoint:  # "move recipe.dapo.src to recipe.dapo in 5 launch scripts"
        value = finding.value or ""
        return "move", [next((f"{old} to {new}" for old, new in fix.entrypoint
                              if value == old or value.startswith(old + ".")), value)]
    if fix.has_set:
        return "set", [f"{leaf}={format_value(fix.set)}"]
    if fix.rename is not None and carries(fix.rename):  # "move reward_model.overlong_buffer to reward.x.y"
        glob = next((g for g in rule.match_key if g.matches(finding.key)), rule.match_key[0])
        return "move", [f"{_fixed_part(glob.pattern)} to {_fixed_part(fix.rename)}"]
    if fix.rename is not None:
        return "rename", [f"{leaf} to {fix.rename.rsplit('.', 1)[-1]}"]
    if fix.remove:
        return "remove", [leaf]
    if fix.map or fix.map_items or fix.remove_items:
        return "update", [leaf]
    if fix.prefix is not None:
        return "prefix", [f"{leaf} with {fix.prefix or 'nothing'}"]
    return None


def _step(migration: Rule, finding: Finding) -> Rule | None:
    """The step of a migration that made the finding: the one whose keys (or launches, or additions) it names."""
    for step in migration.steps:
        if any(g.matches(finding.key) for g in step.match_key) or any(e.key == finding.key for e in step.ensure):
            return step
    return next((s for s in migration.steps if s.fix is not None and s.fix.entrypoint), None)


def _fixed_part(key: str) -> str:
    """A moved key up to its first wildcard segment."""
    parts = key.split(".")
    return ".".join(parts[: next((i for i, p in enumerate(parts) if "*" in p), len(parts))])


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
