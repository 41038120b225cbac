"""What an upstream change's own lines say, beside its configs: read once from git for the migration the change
calls for (bot.upstream.config_migration).

The YAML lines it adds (keys it calls deprecated), whether a YAML file of it lost or reshaped a key (only then are
the apps composed), and its hunks of Python, YAML and launch files (scripts, docs, notebooks) as removed and added
lines, for the value renames, the guards and the launch edits read from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.upstream.value_renames import Hunk

MISSING = "???"
DEPRECATION = re.compile(r"deprecat", re.IGNORECASE)
YAML_KEY = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:")
LAUNCH_FILES = (".sh", ".bash", ".md", ".rst", ".ipynb", ".txt")


@dataclass
class ChangeText:
    """What the change's own lines say: YAML keys it calls deprecated, Python lines it removed and added."""

    deprecated: set[str] = field(default_factory=set)
    reshaped: bool = False  # a YAML file of the change lost a key, reshaped one, made one `???` or changed defaults
    added_yaml: list[str] = field(default_factory=list)  # the YAML lines it adds
    removed_python: list[str] = field(default_factory=list)
    added_python: list[str] = field(default_factory=list)
    python_hunks: list[Hunk] = field(default_factory=list)
    yaml_hunks: list[Hunk] = field(default_factory=list)
    launch_hunks: list[Hunk] = field(default_factory=list)  # the change's edits of scripts, docs, notebooks


def hunks(path: str, lines: list[str], after_text: str = "", added_only: bool = False) -> list[Hunk]:
    """A patch's hunks: the lines each removes and adds (those that do both, or also those that only add)."""
    out: list[Hunk] = []
    for line in lines:
        if line.startswith("@@") or not out:
            out.append(Hunk(path, [], [], after_text))
        if line.startswith("-"):
            out[-1].removed.append(line[1:])
        elif line.startswith("+"):
            out[-1].added.append(line[1:])
        elif line.startswith(" "):
            out[-1].context.append(line[1:])
    return [h for h in out if h.added and (h.removed or added_only)]


def change_text(history: Path, before: str, after: str) -> ChangeText:
    import git

    out = ChangeText()
    with git.Repo(history) as repo:  # closed here: its git processes hold pipes until then
        for diff in repo.commit(before).diff(repo.commit(after), create_patch=True):
            path = diff.b_path or diff.a_path or ""
            patch = diff.diff.decode("utf-8", "replace") if isinstance(diff.diff, bytes) else str(diff.diff or "")
            lines = patch.splitlines()
            if path.endswith((".yaml", ".yml")):
                out.deprecated |= _deprecated_keys([line[1:] for line in lines if line.startswith("+")])
                out.added_yaml.extend(line[1:] for line in lines if line.startswith("+"))
                after_data = diff.b_blob.data_stream.read() if diff.b_blob is not None else None
                if after_data is not None and not is_test(path):
                    out.yaml_hunks.extend(hunks(path, lines, after_data.decode("utf-8", "replace")))
                if not out.reshaped and not is_test(path):
                    out.reshaped = _reshaped(diff.a_blob.data_stream.read() if diff.a_blob is not None else None,
                                             after_data)
            elif path.endswith(".py") and not is_test(path):
                out.removed_python.extend(line[1:] for line in lines if line.startswith("-"))
                out.added_python.extend(line[1:] for line in lines if line.startswith("+"))
                out.python_hunks.extend(hunks(path, lines))
            elif path.endswith(LAUNCH_FILES):
                out.launch_hunks.extend(hunks(path, lines, added_only=True))
    return out


def _reshaped(before: bytes | None, after: bytes | None) -> bool:
    """Whether a YAML file's change can be a migration: it is gone, or lost a key, made a value a mapping or `???`
    or null, or changed its defaults list. Keys added and values changed otherwise are not (by themselves)."""
    from bot.hydra.config_files import parse_yaml

    if before is None:
        return False
    if after is None:
        return True
    old, new = parse_yaml(before), parse_yaml(after)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return bool(old != new)
    return _lost(old, new) or old.get("defaults") != new.get("defaults")


def _lost(old: dict[Any, Any], new: dict[Any, Any]) -> bool:
    for key, value in old.items():
        if key == "defaults":
            continue
        if key not in new:
            return True
        now = new[key]
        if isinstance(value, dict) and isinstance(now, dict):
            if _lost(value, now):
                return True
        elif isinstance(now, dict) or (now != value and (now == MISSING or now is None)):
            return True
    return False


def is_test(path: str) -> bool:
    parts = path.split("/")
    return "tests" in parts or "test" in parts or parts[-1].startswith("test_")


def _deprecated_keys(added: list[str]) -> set[str]:
    """Keys an added YAML line marks deprecated: on its own line's comment, or a comment line just above it."""
    out: set[str] = set()
    marked = False
    for line in added:
        stripped = line.strip()
        if stripped.startswith("#"):
            marked = marked or bool(DEPRECATION.search(stripped))
            continue
        match = YAML_KEY.match(line)
        if match and (marked or ("#" in line and DEPRECATION.search(line.split("#", 1)[1]))):
            out.add(match.group(1))
        marked = False
    return out
