"""Shared helpers: real git repositories in temp dirs, never the user's git config."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
RULE_DEFS = TESTS / "rule_defs"

if TYPE_CHECKING:
    from tests.upstream_repo import Upstream


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Author")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "author@example.invalid")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("BOT_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=os.environ.copy())
    return out.stdout


def make_repo(path: Path, files: dict[str, str | bytes], commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for rel, content in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
    if commit and files:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[Upstream]:
    """An upstream repository behind the loopback fake GitHub (tests.upstream_repo)."""
    from tests.upstream_repo import upstream_repository

    with upstream_repository(tmp_path) as made:
        yield made
