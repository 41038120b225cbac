"""Which paths a repository has: git's view of a work tree (tracked files and untracked ones not
ignored), or a walk that never follows a symlinked directory; and the commit checked out."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from bot.errors import UserError
from bot.model import Skipped

GIT_CLOSED_DIRECTORY = re.compile(r"^warning: could not open directory '(?P<path>.*)': (?P<why>.*)$")
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox", ".mypy_cache"}
# a `.git` path part, in any case (git itself refuses to track one: on a case-insensitive disk it is git's)
GIT_PART = re.compile(r"(?:^|/)\.git(?:/|$)", re.IGNORECASE)


def git_directory_of(root: Path) -> str | None:
    """The `.git` directory `root` lies in (as given, or once its links are resolved), if it lies in one.

    git's own files (hooks, config, a submodule's repository under .git/modules) are never a working tree.
    """
    for path in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
        match = GIT_PART.search(path.replace(os.sep, "/"))
        if match is not None:
            return path[:match.end()].rstrip("/")
    return None


def refuse_git_directory(root: Path, given: str | None = None) -> None:
    """A UserError (one line) for a root inside a `.git` directory."""
    where = git_directory_of(root)
    if where is not None:
        raise UserError(f"{given or root}: inside the git directory {where}; expected the repository's working tree")


def head_commit(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                             capture_output=True, text=True, check=False)
    except OSError:
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def resolve_commit(root: Path, ref: str) -> str | None:
    """The commit `ref` names in the repository at `root` (never read as an option), or None."""
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", "--end-of-options",
                              f"{ref}^{{commit}}"], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def is_git_worktree(root: Path) -> bool:
    return _git_state(root) == ("false", "true")


def _git_state(root: Path) -> tuple[str, str]:
    """git's answers for `root`: inside a git directory (its own files), inside a work tree ("" for neither)."""
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-inside-git-dir", "--is-inside-work-tree"],
                             capture_output=True, text=True, check=False)
    except OSError:
        return "", ""
    answers = out.stdout.split()
    return (answers[0], answers[1]) if out.returncode == 0 and len(answers) == 2 else ("", "")


def git_files(root: Path, skipped: list[Skipped] | None = None) -> list[str]:
    """Tracked files and untracked ones not ignored; a directory git could not open is put in `skipped`."""
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, check=False, env={**os.environ, "LC_ALL": "C", "LANGUAGE": "C"},
    )
    if out.returncode != 0:
        message = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UserError(f"{root}: git ls-files failed: {message[-1] if message else 'unknown error'}")
    for line in out.stderr.decode("utf-8", "surrogateescape").splitlines():
        closed = GIT_CLOSED_DIRECTORY.match(line)
        if closed is not None and skipped is not None:
            skipped.append(Skipped(closed["path"].rstrip("/") + "/", f"directory not readable ({closed['why']}): "
                                   "files in it that git does not track were not listed"))
    seen: dict[str, None] = {}
    for raw in out.stdout.split(b"\0"):
        if raw:
            seen[os.fsdecode(raw)] = None
    return list(seen)


def tracked_paths(root: Path, paths: list[str]) -> set[str]:
    """Those of `paths` (literal, not patterns) git tracks in the work tree at `root`; none elsewhere."""
    try:
        out = subprocess.run(["git", "--literal-pathspecs", "-C", str(root), "ls-files", "-z", "--cached", "--",
                              *paths], capture_output=True, check=False)
    except OSError:
        return set()
    return {os.fsdecode(p) for p in out.stdout.split(b"\0") if p} if out.returncode == 0 else set()


def walk_files(root: Path, skipped: list[Skipped] | None = None) -> list[str]:
    """Every file below `root`, not through symlinks; a directory it could not open is put in `skipped`."""
    def closed(exc: OSError) -> None:
        if skipped is not None and exc.filename is not None:
            rel = os.path.relpath(os.fsdecode(exc.filename), root).replace(os.sep, "/")
            skipped.append(Skipped(rel.rstrip("/") + "/", f"directory not readable ({exc.strerror or exc}): "
                                   "the files in it were not listed"))

    paths = []
    for directory, dirs, files in os.walk(root, onerror=closed, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and d.lower() != ".git")
        rel_dir = os.path.relpath(directory, root)
        for name in sorted(files):
            rel = name if rel_dir == "." else os.path.join(rel_dir, name)
            paths.append(rel.replace(os.sep, "/"))
    return paths


def is_bare_repository(root: Path) -> bool:
    """A git repository without a working tree (`X.git`): its files are git's, not the project's."""
    if (root / ".git").exists() or not ((root / "HEAD").is_file() and (root / "objects").is_dir()):
        return False
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-bare-repository"],
                             capture_output=True, text=True, check=False)
    except OSError:
        return False
    return out.returncode == 0 and out.stdout.strip() == "true"


def list_files(root: Path, skipped: list[Skipped] | None = None) -> list[str]:
    """The repository's paths; never one inside a `.git` directory, at any depth, and no root inside one."""
    refuse_git_directory(root)
    if is_bare_repository(root):
        raise UserError(f"{root}: a bare git repository (no working tree); expected a checkout of the repository")
    in_git_directory, in_work_tree = _git_state(root)
    if in_git_directory == "true":
        raise UserError(f"{root}: a git directory (git's own files); expected the repository's working tree")
    files = git_files(root, skipped) if in_work_tree == "true" else walk_files(root, skipped)
    return sorted(f for f in files if not (".git" in f.lower() and GIT_PART.search(f)))


__all__ = ["git_directory_of", "git_files", "head_commit", "is_bare_repository", "is_git_worktree", "list_files",
           "refuse_git_directory", "tracked_paths", "walk_files"]
