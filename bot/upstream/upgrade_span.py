"""The upstream commits an upgrade walks (`bot upgrade`, issue 43 item 3): first-parent P..REF in history order, and
which of them can matter to a downstream.

Running a watch step costs seconds (the tree laid, the change's apps composed before and after), so a commit is
kept only when it touches what that step reads inside the upstream's packages: config YAML (the migration read
from its composed config), a module it deletes or renames (an entry point that moves), a config dataclass (a
Python file under a `config` directory), or a line of validation (`assert`, `raise`: the rules inferred from new
checks). Given rules add the commits that touch their trigger paths or text. Everything is read with three git
calls over the whole span, whatever its length.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bot.errors import UserError
from bot.rules.globs import any_match
from bot.rules.model import Rule
from bot.upstream.laid_tree import under

# a line of validation that an inferred rule may be read from (bot.upstream.checks reads `assert` and `if: raise`)
VALIDATION = r"(assert |raise [A-Za-z_.]*(Error|Exception))"


@dataclass(frozen=True)
class Commit:
    sha: str
    parent: str
    subject: str
    paths: tuple[str, ...]  # every path it touches (both sides of a rename)
    moved: tuple[str, ...]  # the Python files it deletes or renames away

    @property
    def pull_number(self) -> int | None:
        found = re.findall(r"\(#(\d+)\)", self.subject)
        return int(found[-1]) if found else None


def span(history: Path, start: str, end: str) -> list[Commit]:
    """The first-parent commits start..end, oldest first, with the paths each touches against its first parent."""
    out = _git(history, "log", "--first-parent", "--reverse", "-M", "--name-status", "--no-color",
               "--format=%x00%H %P%x00%s", f"{start}..{end}", "--")
    commits: list[Commit] = []
    chunks = out.split("\0")
    for index in range(1, len(chunks) - 1, 2):
        head, rest = chunks[index].split(" "), chunks[index + 1]
        subject, _, listing = rest.partition("\n")
        paths: list[str] = []
        moved: list[str] = []
        for line in listing.splitlines():
            fields = line.split("\t")
            if len(fields) < 2:
                continue
            status, names = fields[0], fields[1:]
            paths.extend(n for n in names if n not in paths)
            if status[:1] in "DR" and names[0].endswith(".py"):
                moved.append(names[0])
        commits.append(Commit(head[0], head[1] if len(head) > 1 else "", subject, tuple(paths), tuple(moved)))
    return commits


def may_matter(history: Path, commits: list[Commit], packages: tuple[str, ...], rules: list[Rule]) -> list[Commit]:
    """The commits a watch step can act on (module docstring), in the same order."""
    if not commits:
        return []
    revisions = f"{commits[0].parent or commits[0].sha}..{commits[-1].sha}"
    validating = _grep(history, revisions, VALIDATION, [f"{p}/**/*.py" for p in packages])
    texts = [t for r in rules if r.enabled for t in r.trigger_text]
    triggered = _grep(history, revisions, "|".join(re.escape(t) for t in texts), []) if texts else set()
    trigger_paths = [g for r in rules if r.enabled for g in r.trigger_paths]
    kept = []
    for commit in commits:
        inside = [p for p in commit.paths if under(p, packages)]
        if (commit.sha in validating or commit.sha in triggered
                or any(p.endswith((".yaml", ".yml")) for p in inside)
                or any(under(p, packages) for p in commit.moved)
                or any(p.endswith(".py") and "/config/" in f"/{p}" for p in inside)
                or (trigger_paths and any(any_match(trigger_paths, p) for p in commit.paths))):
            kept.append(commit)
    return kept


def _grep(history: Path, revisions: str, pattern: str, paths: list[str]) -> set[str]:
    """The first-parent commits whose diff adds or removes a line matching `pattern` (in `paths`)."""
    listed = _git(history, "log", "--first-parent", "--format=%H", "-G", pattern, revisions, "--",
                  *(f":(glob){p}" for p in paths))
    return set(listed.split())


def _git(history: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(history), *args], capture_output=True, text=True, check=False,
                          errors="replace")
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise UserError(f"{history}: git {args[0]} failed: {said[-1] if said else 'unknown error'}")
    return done.stdout
