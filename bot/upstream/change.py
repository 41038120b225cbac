"""An upstream change (before..after) -> which rules it triggers, and which PR it came from.

A rule is triggered when the change touches one of its `trigger.paths` or adds or removes a
line containing one of its `trigger.text`. Independently of triggers, every enabled rule also
looks at the files the change adds or edits, so a merge that re-introduces an old form is caught.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.rules.globs import any_match
from bot.rules.model import Rule

PR_IN_SUBJECT = re.compile(r"\(#(\d+)\)\s*$")
MERGE_SUBJECT = re.compile(r"^Merge pull request #(\d+) ")


@dataclass
class Change:
    before: str
    after: str
    paths: list[str] = field(default_factory=list)  # every path the change touches
    edited: list[str] = field(default_factory=list)  # added or modified (still present after)
    lines: list[str] = field(default_factory=list)  # added and removed lines
    subject: str = ""

    @property
    def pull_number(self) -> int | None:
        for pattern in (PR_IN_SUBJECT, MERGE_SUBJECT):
            match = pattern.search(self.subject)
            if match:
                return int(match.group(1))
        return None


def read_change(repo_path: Path, before: str, after: str) -> Change:
    """The diff between two commits, read with GitPython."""
    import git

    try:
        repo = git.Repo(repo_path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise _unreadable(repo_path, before, after, exc) from None
    with repo:  # closed here: its git processes hold pipes until then
        return _read(repo, before, after, repo_path)


def _unreadable(repo_path: Path, before: str, after: str, exc: Exception) -> UserError:
    return UserError(f"{repo_path}: cannot read the change {before[:12] or '(none)'}..{after[:12]}: {exc}; "
                     "expected both commits in the local history (fetch-depth: 0)")


def _read(repo: Any, before: str, after: str, repo_path: Path) -> Change:
    import git

    try:
        after_commit = repo.commit(after)
        zero = not before or set(before) == {"0"}
        if not zero:
            try:
                repo.commit(before)
            except (git.BadName, ValueError):
                zero = True  # a force-push: the old tip is gone; take the new tip's own change
        before_commit = after_commit.parents[0] if zero and after_commit.parents else (
            None if zero else repo.commit(before))
    except (git.BadName, ValueError, git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise _unreadable(repo_path, before, after, exc) from None
    change = Change(before=before_commit.hexsha if before_commit else "", after=after_commit.hexsha,
                    subject=str(after_commit.summary))
    diffs = before_commit.diff(after_commit, create_patch=True) if before_commit else after_commit.diff(
        git.NULL_TREE, create_patch=True, R=True)
    for diff in diffs:
        for path in {diff.a_path, diff.b_path} - {None}:
            if path not in change.paths:
                change.paths.append(str(path))
        if not diff.deleted_file and diff.b_path:
            change.edited.append(diff.b_path)
        patch = diff.diff.decode("utf-8", "replace") if isinstance(diff.diff, bytes) else str(diff.diff or "")
        for line in patch.splitlines():
            if line[:1] in "+-":  # GitPython's patch has no file headers: every +/- line is content
                change.lines.append(line[1:])
    return change


def triggered(rules: list[Rule], change: Change) -> list[Rule]:
    out = []
    for rule in rules:
        if not rule.enabled:
            continue
        by_path = bool(rule.trigger_paths) and any(any_match(list(rule.trigger_paths), p) for p in change.paths)
        by_text = any(text in line for text in rule.trigger_text for line in change.lines)
        if by_path or by_text:
            out.append(rule)
    return out
