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


# ---- 4. what a stopped --write leaves, and what it says ---------------------------------------------

SCRIPT = "#!/bin/bash\n" + MBRIDGE  # a shebang: a leftover copy of it would read as a shell script
# Runs the CLI (argv[1:]) and kills the process (SIGKILL: nothing of its own runs after) when it is about to
# rename its first temp file into place: every file is staged, none is written.
KILL = r"""
import os, signal, sys
from bot.cli import main

def hook(event, args):
    if event == "os.rename":
        os.kill(os.getpid(), signal.SIGKILL)

sys.addaudithook(hook)
sys.exit(main(sys.argv[1:]))
"""


def leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(".bot-*") if ".git" not in p.parts)


def test_temp_files_a_killed_write_left_are_reported_and_the_next_write_removes_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"a.sh": SCRIPT, "sub/b.sh": SCRIPT})
    killed = subprocess.run([sys.executable, "-c", KILL, "run", "--repo", str(repo), "--write", "--no-cache"],
                            capture_output=True, text=True, check=False, timeout=300)
    assert killed.returncode == -9, killed.stderr
    left = leftovers(repo)
    assert len(left) == 2 and {os.path.dirname(p) for p in left} == {"", "sub"}, left
    assert (repo / "a.sh").read_text() == SCRIPT

    code, out, err = run_bot(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--format", "json")
    report = json.loads(out)
    assert report["summary"]["files_scanned"] == 2, "a leftover copy of a script was read as one"
    assert sorted(s["path"] for s in report["skipped"]) == left
    for entry in report["skipped"]:
        assert "temp file of the bot's" in entry["reason"] and "the next --write removes it" in entry["reason"]
    assert leftovers(repo) == left, "a dry run removed something"

    code, out, err = run_bot(capsys, "run", "--repo", str(repo), "--write", "--no-cache")
    assert code == 0, err
    assert leftovers(repo) == []
    assert (repo / "a.sh").read_text() == (repo / "sub/b.sh").read_text() == "#!/bin/bash\n" + FIXED
    for path in left:
        assert f"{path}: a temp file of the bot's" in out and "removed by this --write" in out


def test_only_the_bot_s_own_temp_files_are_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    repo = make_repo(tmp_path / "r", {"a.sh": SCRIPT, ".bot-bbbbbbbbbbbb": "tracked: the project's own\n"})
    near_misses = [".bot-0123456789abc", ".bot-0123456789AB", ".bot-0123456789ab.sh", "bot-0123456789ab",
                   "x.bot-0123456789ab"]
    for name in near_misses:
        (repo / name).write_text("not the bot's\n")
    os.symlink(outside, repo / ".bot-aaaaaaaaaaaa")
    (repo / ".bot-cccccccccccc").mkdir()
    (repo / ".bot-cccccccccccc/keep.txt").write_text("a directory is never the bot's\n")
    (repo / "sub").mkdir()
    (repo / "sub/.bot-dddddddddddd").write_text("left by a stopped write\n")
    code, out, err = run_bot(capsys, "run", "--repo", str(repo), "--write", "--no-cache")
    assert code == 0, err
    assert not (repo / "sub/.bot-dddddddddddd").exists()
    assert "sub/.bot-dddddddddddd: a temp file of the bot's" in out
    for name in near_misses:
        assert (repo / name).read_text() == "not the bot's\n"
    assert (repo / ".bot-aaaaaaaaaaaa").is_symlink() and outside.read_text() == "precious\n"
    assert (repo / ".bot-bbbbbbbbbbbb").read_text() == "tracked: the project's own\n"
    assert (repo / ".bot-cccccccccccc/keep.txt").exists()
    assert out.count("temp file of the bot's") == 1


def run_format_during_write(tmp_path: Path, fmt: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A --write in which b.sh is edited as a.sh is renamed into place: a.sh written, b.sh and c.sh not."""
    from tests.test_write_safety import DRIVER

    repo = make_repo(tmp_path / fmt, {"a.sh": MBRIDGE, "b.sh": MBRIDGE, "c.sh": MBRIDGE})
    done = subprocess.run([sys.executable, "-c", DRIVER, f"append:{repo / 'b.sh'}", "a.sh", "run", "--repo",
                           str(repo), "--write", "--no-cache", "--format", fmt, "--color", "never"],
                          cwd=tmp_path, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 3, done.stderr
    assert (repo / "a.sh").read_text() == FIXED and (repo / "c.sh").read_text() == MBRIDGE
    return repo, done


def test_a_write_that_stopped_part_way_says_what_it_wrote_as_text(tmp_path: Path) -> None:
    _, done = run_format_during_write(tmp_path, "text")
    assert "3 findings, 1 fixed, 2 fixable (not written), 0 manual; 1 file changed, 2 not written" in done.stdout
    assert "not checked" not in done.stdout and "could not be checked" not in done.stdout
    assert "not written (their fixes were verified; the files are as they were):\n  b.sh: not written" in done.stdout
    assert "0 errors" in done.stdout
    assert "could not be checked" not in done.stderr, "an unwritten change is no file that could not be checked"
    assert "bot: --write wrote 1 of 3 changed files (written: a.sh); not written: b.sh, c.sh" in done.stderr


def test_a_write_that_stopped_part_way_says_what_it_wrote_in_json(tmp_path: Path) -> None:
    _, done = run_format_during_write(tmp_path, "json")
    report = json.loads(done.stdout)
    summary = report["summary"]
    assert (summary["written"], summary["fixed"], summary["files_written"], summary["files_not_written"]) == (
        True, 1, 1, 2)
    assert {f["path"]: f["written"] for f in report["files"]} == {"a.sh": True, "b.sh": False, "c.sh": False}
    assert {e["path"]: e["stage"] for e in report["errors"]} == {"b.sh": "writing", "c.sh": "writing"}


def test_a_write_that_stopped_part_way_says_what_it_wrote_in_markdown(tmp_path: Path) -> None:
    _, done = run_format_during_write(tmp_path, "markdown")
    assert ": 1 file changed, 2 not written." in done.stdout
    assert "| Fixed | 1 |\n| Fixable, not written | 2 |" in done.stdout
    assert "| Files not written | 2 |" in done.stdout and "Not checked" not in done.stdout
    assert "### Files not written" in done.stdout and "could not be checked" not in done.stdout


def test_a_write_that_stopped_part_way_says_what_it_wrote_as_annotations(tmp_path: Path) -> None:
    _, done = run_format_during_write(tmp_path, "github")
    notice = done.stdout.splitlines()[-1]
    assert notice.startswith("::notice") and "1 fixed, 2 fixable (not written)" in notice
    assert "1 file changed, 2 not written" in notice and "not checked" not in notice


def test_a_write_that_stopped_part_way_says_what_it_wrote_in_sarif(tmp_path: Path) -> None:
    _, done = run_format_during_write(tmp_path, "sarif")
    run = json.loads(done.stdout)["runs"][0]
    statuses = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["properties"]["status"]
                for r in run["results"]}
    assert statuses == {"a.sh": "fixed", "b.sh": "fixable", "c.sh": "fixable"}
    notes = {n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: n["message"]["text"]
             for n in run["invocations"][0]["toolExecutionNotifications"]}
    assert sorted(notes) == ["b.sh", "c.sh"] and all(t.startswith("not written") for t in notes.values())


def test_a_write_that_stopped_part_way_gives_the_patch_of_what_it_wrote(tmp_path: Path) -> None:
    repo, done = run_format_during_write(tmp_path, "diff")
    assert "a/a.sh" in done.stdout and "a/b.sh" not in done.stdout and "a/c.sh" not in done.stdout
    assert "\n# b.sh: not written: " in done.stdout and "\n# c.sh: not written: " in done.stdout
    patch = tmp_path / "written.diff"
    patch.write_text(done.stdout)
    git(repo, "apply", "--check", "-R", str(patch))  # exactly what the working tree got; the notes pass over
