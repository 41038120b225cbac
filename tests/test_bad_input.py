"""Bad input: a one-line error or a skip with a reason, and nothing written that was not verified."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.scan import scan
from bot.rules.loader import load_rules
from tests.conftest import git, make_repo

BAD = "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("text", "expected"),
    [("[repos.verl\n", "expected TOML"), ("[repos.verl]\ngithub = 3\n", "repos.verl.github: expected a string"),
     ("[repos.verl]\ncolour = 1\n", "repos.verl.colour: unknown field"),
     ("[repos.verl]\ngithub = \"no-slash\"\n", "expected owner/name"), ("[other]\n", "other: unknown table"),
     ("[repos.verl]\ntitle = \"{nope}\"\n", "repos.verl.title: expected a template"),
     ("[repos.verl]\nclone_url = \"--upload-pack=touch pwned\"\n", "repos.verl.clone_url: expected a URL or path"),
     *[(f"[repos.verl]\ngithub = \"o/n\"\n{field} = \"{value}\"\n", f"repos.verl.{field}: expected a git branch")
       for field, value in (("branch_prefix", "--force"), ("branch_prefix", "a..b/"), ("branch_prefix", "bot fix/"),
                            ("default_branch", "-main"))]],
)
def test_bad_config_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str) -> None:
    config = tmp_path / "bot.toml"
    config.write_text(text)
    code, _, err = run(capsys, "run", "--repo", "verl", "--config", str(config), "--dry-run")
    assert code == 2 and expected in err and err.count("\n") == 1 and str(config) in err


@pytest.mark.parametrize("command", ["run", "compose-check", "launches"])
def test_a_bare_repository_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    source = make_repo(tmp_path / "src", {"run.sh": BAD})
    bare = tmp_path / "src.git"
    git(tmp_path, "clone", "-q", "--bare", str(source), str(bare))
    extra = ["--dry-run"] if command == "run" else []
    code, _, err = run(capsys, command, "--repo", str(bare), *extra)
    assert code == 2 and "a bare git repository" in err and str(bare) in err and err.count("\n") == 1


def test_a_url_is_never_an_option_to_git(tmp_path: Path) -> None:
    """Even past the config's check, the remote's URL reaches git after `--`: nothing is run."""
    from bot.publish.vcs import GitError, Remote

    local = make_repo(tmp_path / "local", {"a.txt": "x\n"})
    marker = tmp_path / "pwned"
    remote = Remote(local, f"--upload-pack=touch {marker}")
    with pytest.raises(GitError):
        remote.default_branch()
    with pytest.raises(GitError):
        remote.fetch("main", "bot/")
    assert not marker.exists()


def test_empty_and_shallow_repositories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = make_repo(tmp_path / "empty", {})
    code, out, _ = run(capsys, "run", "--repo", str(empty), "--dry-run", "--format", "json")
    assert code == 0 and '"commit": null' in out
    full = make_repo(tmp_path / "full", {"a.sh": BAD})
    git(full, "commit", "-q", "--allow-empty", "-m", "two")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{full}", str(shallow)], check=True)
    code, out, _ = run(capsys, "run", "--repo", str(shallow), "--dry-run")
    assert code == 0 and "1 finding" in out


def test_huge_and_oddly_named_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = {"with space.sh": BAD, "new\nline.sh": BAD, "zero\u200bwidth.sh": BAD, "tab\tname.sh": BAD}
    repo = make_repo(tmp_path / "r", odd)
    with open(repo / "huge.sh", "wb") as handle:
        handle.write(b"# filler\n" * (50 * 1024 * 1024 // 9) + BAD.encode())
    report = scan(repo, load_rules())
    assert sorted(f.path for f in report.findings) == sorted(odd)
    assert any(s.path == "huge.sh" and "larger than" in s.reason for s in report.skipped)
    code, _, _ = run(capsys, "run", "--repo", str(repo), "--write")
    assert code == 0
    for name in odd:
        assert (repo / name).read_text().endswith("use_mbridge=True\n")
    assert (repo / "huge.sh").read_bytes().endswith(BAD.encode())  # skipped, so untouched


def test_nothing_is_written_through_a_symlinked_directory(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "run.sh").write_text(BAD)
    root = tmp_path / "plain"
    root.mkdir()
    os.symlink(outside, root / "linked")
    (root / "own.sh").write_text(BAD)
    report = scan(root, load_rules())
    assert [f.path for f in report.findings] == ["own.sh"]
    assert (outside / "run.sh").read_text() == BAD


def test_a_repository_that_is_a_file_or_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    assert run(capsys, "run", "--repo", str(afile), "--dry-run")[0] == 2
    assert run(capsys, "compose-check", "--repo", str(tmp_path / "missing"))[0] == 2
