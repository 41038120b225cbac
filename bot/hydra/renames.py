"""Keys a config change renamed: same parent, same value, one removed and one added by the change."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot import confined
from bot.errors import UserError
from bot.ir import Override


@dataclass(frozen=True)
class Rename:
    """A key renamed in a config file: same parent, same value, removed and added by one change."""

    parent: tuple[str, ...]  # the parent's path inside its file
    old: str
    new: str
    source: str  # file, relative to the repository


def config_renames(root: Path, before: str) -> list[Rename]:
    """Renames in the YAML files that changed between `before` and the working tree."""
    import git

    from bot.hydra.config_files import parse_yaml

    top = confined.real(root)
    repo = git.Repo(root)
    try:
        old_commit = repo.commit(before)
    except (git.BadName, ValueError):
        raise UserError(f"--since {before}: no such commit in {root}") from None
    out: list[Rename] = []
    for diff in old_commit.diff(None):
        path = diff.a_path or ""
        if not path.endswith((".yaml", ".yml")) or diff.deleted_file or diff.new_file:
            continue
        now = confined.read(top, root / (diff.b_path or path))  # the repository's own file, no link out of it
        if now is None:
            continue
        # not YAML (either side): None, no renames read from it; compose-check reports the file
        old, new = parse_yaml(old_commit.tree[path].data_stream.read()), parse_yaml(now)
        out.extend(_renames_between(old, new, (), path))
    return out


def _renames_between(old: Any, new: Any, parent: tuple[str, ...], source: str) -> list[Rename]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return []
    found: list[Rename] = []
    removed = [k for k in old if k not in new and k != "defaults"]
    added = [k for k in new if k not in old and k != "defaults"]
    for key in removed:
        matches = [a for a in added if new[a] == old[key]]
        twins = [r for r in removed if old[r] == old[key]]
        if len(matches) == 1 and len(twins) == 1:  # unambiguous: one removed, one added, same value
            found.append(Rename(parent, str(key), str(matches[0]), source))
    for key in old:
        if key in new:
            found.extend(_renames_between(old[key], new[key], (*parent, str(key)), source))
    return found


def rename_fix(override: Override, message: str, renames: list[Rename]) -> Rename | None:
    if not message.startswith("Could not override") or override.prefix or not renames:
        return None
    *parent, leaf = override.key.split(".")
    for rename in renames:
        if rename.old == leaf and tuple(parent[len(parent) - len(rename.parent):]) == rename.parent and (
                len(parent) >= len(rename.parent)):
            return rename
    return None
