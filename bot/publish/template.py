"""The repository's pull request template, read for its section headings.

A follow-up is easier to merge when it looks like the repository's other pull requests: the body
keeps the template's headings in their order, and each is filled with what the bot knows for it
(what and why, how it was tested, the changes). Sections the bot has nothing for say so in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# Where GitHub looks for a single pull request template, in its order
LOCATIONS = (".github/pull_request_template.md", ".github/PULL_REQUEST_TEMPLATE.md",
             "pull_request_template.md", "PULL_REQUEST_TEMPLATE.md",
             "docs/pull_request_template.md", "docs/PULL_REQUEST_TEMPLATE.md")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
MAX_TEMPLATE = 64 * 1024

# What a heading is for, by the words it uses; the first role whose words match wins
ROLES = (
    ("checklist", ("checklist", "check list", "before submitting", "before starting")),
    ("test", ("test", "verif", "validat", "how was this")),
    ("changes", ("design", "code change", "changes", "what changed", "implementation")),
    ("usage", ("api", "usage", "example", "breaking")),
    ("what", ("what", "summary", "description", "motivation", "why", "overview", "purpose", "context")),
)
DEFAULT = (("###", "What does this PR do?", "what"), ("###", "Test", "test"), ("###", "Changes", "changes"))


@dataclass(frozen=True)
class Section:
    marks: str  # the heading's `#`s
    title: str
    role: str  # what | test | changes | usage | checklist | other


def sections(root: Path | None) -> list[Section]:
    """The template's headings with their roles; a default set when the repository has no template."""
    text = _template_text(root) if root is not None else None
    found: list[Section] = []
    in_fence = False
    for line in (text or "").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        match = None if in_fence else HEADING.match(line)
        if match:
            found.append(Section(match.group(1), match.group(2), role_of(match.group(2))))
    if not any(s.role == "what" for s in found):
        return [Section(marks, title, role) for marks, title, role in DEFAULT]
    return found


def role_of(title: str) -> str:
    words = title.lower()
    for role, markers in ROLES:
        if any(marker in words for marker in markers):
            return role
    return "other"


def _template_text(root: Path) -> str | None:
    base = root.resolve()
    for rel in LOCATIONS:
        path = root / rel
        try:
            if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(base):
                continue
            data = path.read_bytes()[:MAX_TEMPLATE]
        except OSError:
            continue
        return data.decode("utf-8", "replace")
    return None
