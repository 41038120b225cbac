"""Local use: run and watch on a checkout with no bot.toml, no token and no network are dry runs.

A real git repository with history in a temp dir, the real command line, from a directory with no
bot.toml; the API URL points at a closed port, so any request would fail the run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import git, make_repo
from tests.upstream_repo import ENGINE, ENGINE_AFTER, ENGINE_BEFORE, SCRIPT

LOCAL = "is a local repository with no GitHub repository configured"


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No token, no bot.toml where the command runs, and an API nobody answers."""
    for name in ("GITHUB_TOKEN", "BOT_GITHUB_TOKEN", "BOT_GITHUB_APP_ID", "GITHUB_ACTIONS", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return tmp_path


def history(root: Path) -> tuple[Path, str]:
    """A repository whose last commit adds the assert the bundled rule follows; the commit before it."""
    repo = make_repo(root, {ENGINE: ENGINE_BEFORE, "examples/run_megatron.sh": SCRIPT})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / ENGINE).write_text(ENGINE_AFTER)
    git(repo, "commit", "-q", "-am", "[megatron] fix: assert use_mbridge (#4528)")
    return repo, before


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_without_a_mode_is_a_dry_run(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = history(offline / "verl")
    code, out, err = run(capsys, "run", "--repo", str(repo))
    assert code == 0
    assert LOCAL in err and "dry run" in err and err.count("\n") == 1
    assert "examples/run_megatron.sh:3:5: [megatron-use-mbridge] fixable" in out
    assert (repo / "examples/run_megatron.sh").read_text() == SCRIPT  # a dry run changes nothing


def test_watch_reads_the_local_history(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, before = history(offline / "verl")
    code, out, err = run(capsys, "watch", "--repo", str(repo), "--format", "json")
    assert code == 0
    assert LOCAL in err and "the change is the last commit" in err
    assert "megatron-use-mbridge: triggered by the change" in err
    report = json.loads(out)
    assert [(f["path"], f["line"]) for f in report["findings"]] == [("examples/run_megatron.sh", 3)]
    assert "publish" not in report
    code, out, err = run(capsys, "run", "--repo", str(repo), "--since", before)
    assert code == 0 and LOCAL in err and "examples/run_megatron.sh:3:5" in out
    # the change before the assert triggers nothing
    code, out, _ = run(capsys, "watch", "--repo", str(repo), "--before", before, "--after", before)
    assert code == 0 and "no rule triggered" in out


def test_run_help_says_it_publishes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Without --dry-run or --write it PUBLISHES" in text
    for option, words in (("--dry-run", "publish nothing"), ("--write", "local working tree"),
                          ("--check", "exit 1 while findings"), ("--since", "the rules the change triggers")):
        assert option in text and words in text
