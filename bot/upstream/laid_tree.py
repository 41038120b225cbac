"""A downstream's files with its upstream's packages laid beside them, for `bot watch --upstream`.

The bot resolves a launch's `-m pkg.main` and a search path `pkg://pkg.config` only inside the repository it
scans; a downstream that runs its upstream's entry points holds neither. The laid tree is a scratch git repository
with the downstream's files (tracked, and untracked ones not ignored) and the upstream's packages as git holds
them (never imported) at their place in the upstream: committed at the change's first commit (`before`), then at
its last (the tree as scanned, committed too). So compose-check's drift (bot.engine.drift, since `before`) is what
the upstream's change broke in the downstream, a moved entry point's target is in the tree, and a config of the
downstream that extends the upstream's composes against the upstream at the change's end.

Its commits are the same for the same inputs (fixed names and dates): two trees laid from one worktree agree.
A report of the laid tree is kept to the downstream's files (own_only): their bytes are the downstream's own,
so its fixes apply to the downstream as they are.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot import scratch
from bot.errors import UserError
from bot.gitfiles import git_files

if TYPE_CHECKING:
    from bot.model import Report

_FIXED = {"GIT_AUTHOR_NAME": "followup-bot", "GIT_AUTHOR_EMAIL": "bot@localhost",
          "GIT_COMMITTER_NAME": "followup-bot", "GIT_COMMITTER_EMAIL": "bot@localhost",
          "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000"}


@dataclass(frozen=True)
class Laid:
    root: Path
    before: str  # the commit with the upstream's packages at the change's first commit
    own: frozenset[str]  # the downstream's files, relative
    packages: tuple[str, ...]  # where the upstream's packages are laid, relative directories

    def own_only(self, report: Report) -> Report:
        """The report kept to the downstream's files (what the upstream's own files hold is the upstream's)."""
        return replace(report, findings=[f for f in report.findings if f.path in self.own],
                       changes=[c for c in report.changes if c.path in self.own],
                       errors=[e for e in report.errors if e.path in self.own],
                       silenced=[f for f in report.silenced if f.path in self.own],
                       skipped=[s for s in report.skipped if not under(s.path.rstrip("/"), self.packages)],
                       partly_parsed=[p for p in report.partly_parsed if p in self.own])


@contextmanager
def laid_tree(downstream: Path, history: Path, before: str, after: str, packages: tuple[str, ...]) -> Iterator[Laid]:
    """The downstream at `downstream` with the packages of the upstream's `history` laid beside it (removed after)."""
    room = scratch.checkout_size(downstream) + scratch.checkout_size(history)  # its files and the packages laid
    made = Path(scratch.mkdtemp("bot-downstream-", room))
    root = made / "tree"
    try:
        root.mkdir()
        own = [f for f in git_files(downstream) if not under(f, packages)]
        for rel in own:
            _copy(downstream / rel, root / rel)
        _git(root, "init", "--quiet")
        _unpack(history, before, packages, root)
        _git(root, "add", "--all", "--force")
        _git(root, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "the upstream before the change")
        first = _git(root, "rev-parse", "HEAD").strip()
        for package in packages:
            shutil.rmtree(root / package, ignore_errors=True)
        _unpack(history, after, packages, root)
        _git(root, "add", "--all", "--force")
        _git(root, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "the upstream after the change")
        yield Laid(root, first, frozenset(f for f in own if (root / f).is_file() or (root / f).is_symlink()),
                   packages)
    finally:
        shutil.rmtree(made, ignore_errors=True)


def under(path: str, dirs: tuple[str, ...]) -> bool:
    return any(path == d or path.startswith(d + "/") for d in dirs)


def _copy(source: Path, target: Path) -> None:
    if not (source.is_symlink() or source.is_file()):
        return  # a submodule's directory, a file gone since git listed it
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        os.symlink(os.readlink(source), target)  # as it is: the scan refuses a link out of the tree itself
    else:
        shutil.copyfile(source, target)


def has_dir(history: Path, commit: str, path: str) -> bool:
    """Whether `path` is a directory of the commit."""
    listed = subprocess.run(["git", "-C", str(history), "cat-file", "-t", f"{commit}:{path}"], capture_output=True,
                            text=True, check=False)
    return listed.returncode == 0 and listed.stdout.strip() == "tree"


def _unpack(history: Path, commit: str, packages: tuple[str, ...], into: Path) -> None:
    """The packages' files at `commit`, from git (those it has: a package may be new, or the commit none)."""
    present = [p for p in packages if commit and has_dir(history, commit, p)]
    if not present:
        return
    archive = subprocess.run(["git", "-C", str(history), "archive", "--format=tar", commit, "--", *present],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        said = archive.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UserError(f"{history}: git archive {commit[:12]} failed: {said[-1] if said else 'unknown error'}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false",
                           "-c", "core.autocrlf=false", *args], capture_output=True, text=True, check=False,
                          env={**os.environ, **_FIXED})
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise UserError(f"{root}: git {args[0]} failed laying the upstream beside the downstream: "
                        f"{said[-1] if said else 'unknown error'}")
    return done.stdout
