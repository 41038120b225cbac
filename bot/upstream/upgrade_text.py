"""What `bot upgrade` says: text, JSON and a patch (bot.upstream.upgrade's result)."""

from __future__ import annotations

import json
from typing import Any

from bot.model import FileChange, Finding
from bot.report.diff import unified_diff
from bot.upstream.upgrade import Step, Upgrade


def title(result: Upgrade) -> str:
    """`Upgrade verl from 0.5.0 to 0.6.0` (versions when known, else short commits)."""
    starts = ", ".join(t.short() for t in result.starts) or "its pins"
    return f"Upgrade {result.upstream.distribution} from {starts} to {result.target.short()}"


def change_ref(result: Upgrade, step: Step) -> str:
    """How an upstream commit is named: `owner/name#N` on GitHub, else the name and number, else its commit."""
    pull = step.commit.pull_number
    if pull is not None:
        upstream = result.upstream
        return f"{upstream.source}#{pull}" if upstream.source_kind == "github" else f"{upstream.distribution} #{pull}"
    return f"{result.upstream.distribution} {step.commit.sha[:12]}"


def edited_lines(changes: list[FileChange]) -> list[dict[str, Any]]:
    """Each file's removed and added lines (a patch's `-` and `+` lines, without the headers)."""
    out = []
    for change in changes:
        patch = unified_diff(change).splitlines()
        lines = [line for line in patch if line[:1] in "+-" and not line.startswith(("+++", "---"))]
        out.append({"path": change.path, "lines": lines})
    return out


def as_json(result: Upgrade) -> str:
    data = {
        "upstream": result.upstream.as_dict(),
        "title": title(result),
        "from": [{"commit": t.commit, "given": t.given, "version": t.version} for t in result.starts],
        "to": {"commit": result.target.commit, "given": result.target.given, "version": result.target.version},
        "commits": result.walked, "checked": result.checked,
        "steps": [{"commit": s.commit.sha, "subject": s.commit.subject, "pr": s.commit.pull_number,
                   "rules": s.reasons, "edits": edited_lines(s.changes), "composed": s.composed,
                   "manual": [_said(f) for f in s.manual], "notes": s.notes,
                   "seconds": s.seconds} for s in result.steps],
        "pins": result.bumped.moved,
        "failing_at_target": None if result.failing is None else [_said(f) for f in result.failing],
        "files": [c.path for c in result.changes],
        "notes": [*result.notes, *result.bumped.notes],
        "seconds": result.seconds,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _said(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}: [{finding.rule}] {finding.message}"


def as_diff(result: Upgrade) -> str:
    return "".join(unified_diff(c) for c in result.changes)


def as_text(result: Upgrade) -> str:
    out = [f"{title(result)}: {result.walked} upstream commits, {result.checked} read, {len(result.steps)} "
           "acted on"]
    for step in result.steps:
        out.append(f"{step.commit.sha[:12]} {step.commit.subject} ({change_ref(result, step)})")
        out += [f"  rule {rule}: {why}" for rule, why in step.reasons.items()]
        for edit in edited_lines(step.changes):
            out.append(f"  {edit['path']}:")
            out += [f"    {line}" for line in edit["lines"]]
        out += [f"  composes again: {launch}" for launch in step.composed]
        out += [f"  left to a person: {f.path}:{f.line}: [{f.rule}] {f.message.splitlines()[0]}" for f in step.manual]
    out += [f"pin {moved}" for moved in result.bumped.moved]
    if result.failing is not None:
        out.append(f"at {result.target.short()}: every launch of the edited files composes" if not result.failing
                   else f"at {result.target.short()}: {len(result.failing)} launches of the edited files fail")
        out += [f"  {f.path}:{f.line}: {f.message.splitlines()[0]}" for f in result.failing]
    out += [f"note: {note}" for note in [*result.notes, *result.bumped.notes]]
    out.append(f"{len(result.changes)} files would change" if result.changes else "nothing to change")
    return "\n".join(out) + "\n"


def render(result: Upgrade, form: str) -> str:
    return {"json": as_json, "diff": as_diff}.get(form, as_text)(result)
