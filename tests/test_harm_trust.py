"""Nothing the repository controls is trusted (issue 37): names it plants where the bot writes, a path
inside its `.git` directory, temp files an interrupted `--write` left, and what a write that stopped
part way says.

Everything is real: temp git repositories, a bare remote, the CLI in-process or in a subprocess (where
an audit hook, the runtime's own, watches what the bot opens and renames).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.safe_write import is_temp_name
from tests.conftest import git, make_repo

MBRIDGE = "python3 -m verl.trainer.main_ppo \\\n    actor_rollout_ref.actor.megatron.use_mbridge=False \\\n    x.y=1\n"
FIXED = MBRIDGE.replace("use_mbridge=False", "use_mbridge=True")
BASELINE = ".followup-bot-baseline.json"


def run_bot(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- 1. a planted temp name ----------------------------------------------------------------------

def test_a_symlink_planted_at_the_baseline_temp_name_is_never_written_through(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE})
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    # the name the bot used to write its baseline through, and a few of the names it draws now
    for name in (f".{BASELINE}.bot-tmp", ".bot-000000000000"):
        os.symlink(outside, repo / name)
    code, _, err = run_bot(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache",
                           "--write-baseline", str(repo / BASELINE))
    assert code == 0, err
    assert outside.read_text() == "precious\n", "the baseline was written through a planted symlink"
    assert not (repo / BASELINE).is_symlink()
    entries = json.loads((repo / BASELINE).read_text())["findings"]
    assert [e["path"] for e in entries] == ["run.sh"]
    left = sorted(p.name for p in repo.iterdir() if p.name.startswith(".") and p.name not in (".git", BASELINE))
    assert left == sorted([f".{BASELINE}.bot-tmp", ".bot-000000000000"]), "a temp file was left behind"


def test_a_baseline_below_a_symlinked_directory_of_the_repository_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, repo / "conf")
    code, _, err = run_bot(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache",
                           "--write-baseline", str(repo / "conf" / BASELINE))
    assert code == 2
    assert list(elsewhere.iterdir()) == []
    assert err.count("\n") == 1 and "conf/ is a symlink" in err and "--write-baseline" in err, err


def test_a_symlink_at_the_baseline_itself_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE})
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    os.symlink(outside, repo / "other.json")
    code, _, err = run_bot(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache",
                           "--write-baseline", str(repo / "other.json"))
    assert code == 2 and "is a symlink" in err
    assert outside.read_text() == "precious\n"


# Runs the CLI (argv[2:]) and writes to argv[1] every file the process opened to create and every rename.
WATCH = r"""
import json, os, sys
from bot.cli import main

seen = []

def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes)) and isinstance(args[2], int) and args[2] & os.O_CREAT:
        seen.append(["open", os.fsdecode(args[0]), args[2]])  # (an fd handed to open() creates nothing)
    elif event == "os.rename":
        seen.append(["rename", *(os.fsdecode(a) if isinstance(a, (str, bytes)) else "" for a in args[:2])])

sys.addaudithook(hook)
code = main(sys.argv[2:])
text = json.dumps(seen)
with open(sys.argv[1], "w") as out:  # the driver's own file: after the bot's have been listed
    out.write(text)
sys.exit(code)
"""


def test_every_file_a_run_creates_is_made_exclusively_under_a_random_name(tmp_path: Path) -> None:
    """--write, --write-baseline and the result cache: each file is created O_EXCL | O_NOFOLLOW under a
    `.bot-` name never used before, and only such a name is renamed over the file it replaces."""
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE, "sub/b.sh": MBRIDGE})
    log = tmp_path / "seen.json"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", WATCH, str(log), "run", "--repo", str(repo), "--write",
                           "--cache-dir", str(tmp_path / "cache"), "--write-baseline", str(repo / BASELINE)],
                          cwd=tmp_path, capture_output=True, text=True, env=env, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (repo / "run.sh").read_text() == (repo / "sub/b.sh").read_text() == FIXED
    seen = json.loads(log.read_text())
    created = [s for s in seen if s[0] == "open"]
    assert len(created) >= 4, seen  # two fixes, the baseline, the cache
    for _, name, flags in created:
        assert flags & os.O_EXCL and flags & os.O_NOFOLLOW, f"{name} was not created exclusively"
        assert is_temp_name(os.path.basename(name)), f"{name}: not a fresh random name"
    for _, source, _target in (s for s in seen if s[0] == "rename"):
        assert is_temp_name(os.path.basename(source))


def test_a_crash_log_is_a_new_private_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.engine.isolation import write_crash_log
    from bot.model import FileError

    log = Path(write_crash_log([FileError("a.sh", "boom", "reading", "detail")], "header\n"))
    try:
        assert log.name.startswith("bot-crash-") and log.suffix == ".log"
        assert (log.stat().st_mode & 0o777) == 0o600
        assert "a.sh (reading)" in log.read_text()
    finally:
        log.unlink()


def test_a_publishing_checkout_is_made_in_a_directory_of_its_own(tmp_path: Path) -> None:
    """The temporary worktree publishing builds its commit in sits in a directory only the bot's user can
    enter, made for it: nobody can put a symlink at its path before git checks it out."""
    from bot.publish.vcs import NAMESPACE, Remote

    origin = make_repo(tmp_path / "origin", {"run.sh": MBRIDGE})
    local = make_repo(tmp_path / "local", {})
    remote = Remote(local, str(origin))
    remote.fetch("main", "bot/", shallow=True)
    assert git(local, "rev-parse", f"{NAMESPACE}main").strip()
    with remote.worktree("main") as tree:
        holder = tree.parent
        assert (tree / "run.sh").read_text() == MBRIDGE
        assert holder.stat().st_mode & 0o777 == 0o700 and holder.stat().st_uid == os.getuid()
        assert holder.name.startswith("followup-bot-wt-")
    assert not holder.exists()


# ---- 3. a path inside a .git directory -------------------------------------------------------------

HOOK = "#!/bin/sh\npython3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False\n"


@pytest.fixture()
def with_hook(tmp_path: Path) -> Path:
    """A checkout with two commits and a pre-commit hook that breaks a rule."""
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE})
    (repo / "run.sh").write_text(MBRIDGE + "# two\n")
    git(repo, "commit", "-q", "-am", "two")
    hook = repo / ".git/hooks/pre-commit"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    return repo


COMMANDS = {
    "run": ["run", "--dry-run", "--no-cache"],
    "run --write": ["run", "--write", "--no-cache"],
    "compose-check --write": ["compose-check", "--write"],
    "launches": ["launches"],
    "infer": ["infer", "--before", "HEAD~1", "--after", "HEAD"],
    "watch": ["watch", "--before", "HEAD~1", "--after", "HEAD", "--dry-run"],
}


@pytest.mark.parametrize("where", [".git", ".git/hooks", ".git/.."])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_repository_path_inside_a_git_directory_is_refused(
        with_hook: Path, capsys: pytest.CaptureFixture[str], command: str, where: str) -> None:
    name, *rest = COMMANDS[command]
    code, out, err = run_bot(capsys, name, "--repo", str(with_hook / where), *rest)
    if where == ".git/..":  # the checkout itself, named through its .git: resolved, it is no git directory
        assert code in (0, 1), err
    else:
        assert code == 2, out + err
        assert err.count("\n") == 1 and "inside the git directory" in err and "working tree" in err, err
    assert (with_hook / ".git/hooks/pre-commit").read_text() == HOOK


def test_a_submodule_s_git_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inner = make_repo(tmp_path / "inner", {"run.sh": MBRIDGE})
    outer = make_repo(tmp_path / "outer", {"top.sh": MBRIDGE})
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    gitdir = outer / ".git/modules/sub"
    (gitdir / "hooks/pre-commit").write_text(HOOK)
    code, _, err = run_bot(capsys, "run", "--repo", str(gitdir), "--write", "--no-cache")
    assert code == 2 and "inside the git directory" in err
    assert (gitdir / "hooks/pre-commit").read_text() == HOOK


def test_a_git_directory_kept_apart_from_its_work_tree_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`git init --separate-git-dir`: git's own files under a name that is not `.git`; git tells what it is."""
    meta = tmp_path / "meta"
    tree = tmp_path / "tree"
    tree.mkdir()
    git(tree, "init", "-q", "--separate-git-dir", str(meta))
    (meta / "hooks/pre-commit").write_text(HOOK)
    code, _, err = run_bot(capsys, "run", "--repo", str(meta), "--write", "--no-cache")
    assert code == 2 and "git directory" in err and err.count("\n") == 1, err
    assert (meta / "hooks/pre-commit").read_text() == HOOK


def test_discovery_never_lists_a_file_below_a_git_directory_in_any_case(tmp_path: Path) -> None:
    """A tree that is no git work tree is walked: no `.git` directory is entered, whatever its case (git
    itself refuses such a path: on a case-insensitive disk it is git's)."""
    from bot.discover import sources

    tree = tmp_path / "tree"
    for rel in ("run.sh", "vendor/a/.git/hooks/pre-commit", "vendor/b/.GIT/hooks/pre-commit", "c/.Git/x.sh"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(HOOK)
    assert [s.path for s in sources(tree, [])] == ["run.sh"]


def test_a_change_below_a_git_directory_is_never_written(tmp_path: Path) -> None:
    from bot.engine.write import write_changes
    from bot.model import FileChange, Report

    tree = tmp_path / "tree"
    hook = tree / "sub/.git/hooks/pre-commit"
    hook.parent.mkdir(parents=True)
    hook.write_text(HOOK)
    report = Report("tree", None, [], changes=[FileChange("sub/.git/hooks/pre-commit", HOOK.encode(), b"edited\n")])
    assert write_changes(tree, report) == []
    assert hook.read_text() == HOOK
    assert [(e.path, e.stage) for e in report.errors] == [("sub/.git/hooks/pre-commit", "writing")]
    assert "inside a .git directory" in report.errors[0].reason
