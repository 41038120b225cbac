"""Which upstream change a rule follows up, checked against the repository's own history.

A rule may cite its upstream change (`upstream: owner/name#N`). People get that wrong (verl's
use_mbridge check came with #4528, while the fix PRs cite #4530), so the citation is checked: the
cited pull request must be in the history and its diff must touch the rule's trigger text in the
trigger paths. When it is not, or there is no citation, the change is found from the check
itself: the lines of the trigger paths that check the trigger text now (`assert`, `if`, `raise`)
are traced back with `git log -S` to the commit that added them.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bot.rules.globs import any_match
from bot.rules.model import Rule

CITATION = re.compile(r"^(?:(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+))?#(?P<number>\d+)$|"
                      r"^https?://[^/]+/(?P<urlrepo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pull/(?P<urlnumber>\d+)/?$")
CHECK_LINE = re.compile(r"^\s*(?:assert|if|elif|raise)\b")
PR_SUBJECT = re.compile(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)\b")
MAX_CHECK_LINES = 8
MAX_TRACED = 4096  # characters of a check line `git log -S` looks for (an argument holds 128 KB at most)


@dataclass(frozen=True)
class Origin:
    """The change a rule follows up; `commit` is None when the history does not say."""

    cited: str | None  # the rule's own `upstream`, as written
    commit: str | None = None
    subject: str = ""
    number: int | None = None  # the pull request, read from the commit's subject
    check_path: str | None = None  # where the check is now
    check_line: str | None = None
    cited_checked: bool = False  # the citation is in the history and its diff touches the check

    def reference(self, same_repo: bool = True) -> str | None:
        """`#4528 (d7c82bde)`, or the citation as written when the history did not confirm a change."""
        if self.commit is None:
            return self.cited
        short = self.commit[:8]
        return f"#{self.number} ({short})" if self.number is not None and same_repo else short


def find_origin(root: Path, rule: Rule, github: str | None) -> Origin:
    """The upstream change of `rule` in the history of the checkout at `root`; never raises."""
    cited = rule.upstream
    if not rule.trigger_paths or not rule.trigger_text:
        return Origin(cited)
    try:
        paths = _trigger_files(root, rule)
        check = _current_check(root, rule, paths)
        cited_commit = _cited_commit(root, cited, github, rule, paths)
        if cited_commit is not None:
            sha, subject = cited_commit
            path, line = check if check is not None else (None, None)
            return Origin(cited, sha, subject, _number(subject), path, line, cited_checked=True)
        if check is None:
            return Origin(cited)
        introduced = _introduced(root, check[1], paths)
        if introduced is None:
            return Origin(cited, check_path=check[0], check_line=check[1])
        sha, subject = introduced
        return Origin(cited, sha, subject, _number(subject), check[0], check[1])
    except (OSError, ValueError, subprocess.SubprocessError):
        return Origin(cited)


def _git(root: Path, *args: str) -> str:
    """git's output (empty on failure); paths are literal (a file named `*.py` is not a glob)."""
    done = subprocess.run(["git", "--literal-pathspecs", "-C", str(root), *args], capture_output=True, text=True,
                          errors="surrogateescape", timeout=120, check=False)
    return done.stdout if done.returncode == 0 else ""


def _trigger_files(root: Path, rule: Rule) -> list[str]:
    listed = _git(root, "ls-files", "-z").split("\0")
    return [path for path in listed if path and any_match(list(rule.trigger_paths), path)]


def _current_check(root: Path, rule: Rule, paths: list[str]) -> tuple[str, str] | None:
    """The first line of the trigger files that checks a trigger text: (path, stripped line)."""
    for path in paths:
        try:
            if not stat.S_ISREG(os.lstat(root / path).st_mode):
                continue  # a symlink (maybe out of the repository), a FIFO: never read
            text = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if CHECK_LINE.match(line) and any(t in line for t in rule.trigger_text):
                return path, line.strip()
    return None


def _introduced(root: Path, line: str, paths: list[str]) -> tuple[str, str] | None:
    """The oldest commit that added `line` to one of `paths` (git log -S counts occurrences)."""
    if not paths or len(line) > MAX_TRACED:
        return None
    out = _git(root, "log", "--reverse", "--format=%H%x1f%s", f"-S{line}", "--", *paths)
    first = out.splitlines()[0] if out.strip() else ""
    sha, _, subject = first.partition("\x1f")
    return (sha, subject) if sha else None


def _cited_commit(root: Path, cited: str | None, github: str | None, rule: Rule,
                  paths: list[str]) -> tuple[str, str] | None:
    """The commit of the cited pull request, when it is in this history and touches the check."""
    match = CITATION.match(cited.strip()) if cited else None
    if match is None:
        return None
    repo = match.group("repo") or match.group("urlrepo")
    if repo is not None and github is not None and repo.lower() != github.lower():
        return None  # another repository's change: nothing here to check it against
    number = match.group("number") or match.group("urlnumber")
    out = _git(root, "log", "--format=%H%x1f%s", "-E", f"--grep=(\\(#{number}\\)$|^Merge pull request #{number}\\b)")
    for row in out.splitlines():
        sha, _, subject = row.partition("\x1f")
        if _number(subject) != int(number):
            continue
        diff = _git(root, "show", "--format=", "--unified=0", sha, "--", *paths) if paths else ""
        changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        if any(text in line for line in changed for text in rule.trigger_text):
            return sha, subject
    return None


def _number(subject: str) -> int | None:
    match = PR_SUBJECT.search(subject)
    if match is None:
        return None
    return int(match.group(1) or match.group(2))
