"""Where short-lived trees go (bot.scratch): a RAM-backed directory with room, else Python's temporary directory."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from bot import scratch
from bot.publish.vcs import Remote


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _packed_repo(path: Path) -> Path:
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    (path / "big.txt").write_bytes(os.urandom(200_000))  # random: the pack holds it at about its size
    _git(path, "add", ".")
    _git(path, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "one")
    _git(path, "gc", "-q")
    return path


def test_a_checkout_is_estimated_from_the_packed_objects_through_worktrees_and_alternates(tmp_path: Path) -> None:
    repo = _packed_repo(tmp_path / "repo")
    size = scratch.checkout_size(repo)
    assert 200_000 <= size < 400_000
    _git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "linked"), "main")
    assert scratch.checkout_size(tmp_path / "linked") == size  # its `.git` file leads to the same objects
    _git(tmp_path, "clone", "-q", "--shared", str(repo), "borrower")
    assert scratch.checkout_size(tmp_path / "borrower") == size  # its objects are the alternates' own
    assert scratch.checkout_size(tmp_path / "not-a-repo") == 0


def test_a_temporary_directory_the_user_names_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None  # tempfile reads TMPDIR again
    try:
        assert scratch.parent() is None
        made = Path(scratch.mkdtemp("bot-test-"))
        assert made.parent == tmp_path and (made.stat().st_mode & 0o777) == 0o700
    finally:
        tempfile.tempdir = None


def test_a_tree_goes_to_the_ram_backed_directory_only_with_room(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    if not scratch._ram_backed():
        pytest.skip("no writable tmpfs at /dev/shm here")
    free = os.statvfs(scratch.RAM_BACKED).f_bavail * os.statvfs(scratch.RAM_BACKED).f_frsize
    assert scratch.parent(0) == scratch.RAM_BACKED
    assert scratch.parent(free) is None  # four times a tree as large as what is free does not fit
    with scratch.temporary_directory("bot-test-") as made:
        assert Path(made).parent == Path(scratch.RAM_BACKED)
    assert not Path(made).exists()


def test_a_worktree_is_checked_out_where_scratch_puts_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    repo = _packed_repo(tmp_path / "repo")
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    _git(repo, "update-ref", "refs/followup-bot/remote/main", "main")
    expected = scratch.parent(scratch.checkout_size(repo)) or tempfile.gettempdir()
    with Remote(repo, str(repo), None).worktree("main") as tree:
        assert (tree / "big.txt").stat().st_size == 200_000
        assert tree.resolve().parent.parent == Path(expected).resolve()
    assert not tree.exists()
