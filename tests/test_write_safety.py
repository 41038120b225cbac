"""Unsafe edges of `--write` and discovery (issue 18): a tree edited while the bot writes, a directory
swapped for a symlink, directories the bot cannot read.

Everything is real: temp git repositories, the engine's public API, the CLI in a subprocess. Where an
edit must land at an exact moment of a write, the subprocess runs the CLI under a Python audit hook
(`sys.addaudithook`, the runtime's own) that edits the tree on disk when the bot is about to rename
its first file into place; nothing of the bot's is replaced or mocked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.engine.scan import scan
from bot.engine.write import write_changes
from bot.model import Status
from bot.rules.loader import load_rules
from tests.conftest import make_repo

MBRIDGE = "python3 -m verl.trainer.main_ppo \\\n    actor_rollout_ref.actor.megatron.use_mbridge=False \\\n    x.y=1\n"
FIXED = MBRIDGE.replace("use_mbridge=False", "use_mbridge=True")
EDIT = "# edited by someone else meanwhile\n"
NOBODY = 65534

# Runs the CLI (argv[3:]); when the bot is about to rename its temp file over the file named argv[2],
# does argv[1] once: "append:PATH" adds a line to PATH, "swap:DIR:TARGET" moves DIR to DIR.orig and
# puts a symlink to TARGET in its place.
DRIVER = r"""
import os, sys
from bot.cli import main

action, trigger = sys.argv[1], sys.argv[2]
done = []

def hook(event, args):
    if event != "os.rename" or done:
        return
    src, dst = (os.fsdecode(a) if isinstance(a, (str, bytes)) else "" for a in args[:2])
    if os.path.basename(src).startswith(".bot-") and os.path.basename(dst) == trigger:
        done.append(True)
        kind, _, rest = action.partition(":")
        if kind == "append":
            with open(rest, "a") as handle:
                handle.write("# edited by someone else meanwhile\n")
        else:
            directory, target = rest.split(":")
            os.rename(directory, directory + ".orig")
            os.symlink(target, directory)

sys.addaudithook(hook)
sys.exit(main(sys.argv[3:]))
"""


def temp_files(*roots: Path) -> list[str]:
    """Every `.bot-` temp file below the roots (symlinks not followed)."""
    found = []
    for root in roots:
        for directory, _, files in os.walk(root, followlinks=False):
            found += [os.path.join(directory, name) for name in files if name.startswith(".bot-")]
    return found


def run_cli_during_write(tmp_path: Path, repo: Path, action: str, trigger: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", DRIVER, action, trigger, "run", "--repo", str(repo), "--write",
                           "--no-cache", "--format", "text", "--color", "never"],
                          cwd=tmp_path, capture_output=True, text=True, check=False, timeout=300)


# ---- a concurrent edit stops the write --------------------------------------------------------------

@pytest.mark.parametrize("changed", [0, 1, 2])
def test_a_file_changed_after_the_scan_stops_the_write_there(tmp_path: Path, changed: int) -> None:
    names = ["a.sh", "b.sh", "c.sh"]
    repo = make_repo(tmp_path / "r", dict.fromkeys(names, MBRIDGE))
    report = scan(repo, load_rules())
    assert [c.path for c in report.changes] == names
    (repo / names[changed]).write_text(MBRIDGE + EDIT)  # someone edits it between the scan and the write
    written = write_changes(repo, report)
    assert written == names[:changed]
    for name in names[:changed]:
        assert (repo / name).read_text() == FIXED
    assert (repo / names[changed]).read_text() == MBRIDGE + EDIT
    for name in names[changed + 1:]:
        assert (repo / name).read_text() == MBRIDGE, f"{name} was written after the write should have stopped"
    errors = {e.path: e for e in report.errors}
    assert sorted(errors) == names[changed:] and {e.stage for e in errors.values()} == {"writing"}
    stop = errors[names[changed]].reason
    assert "changed on disk" in stop and "\n" not in stop
    assert f"written: {', '.join(names[:changed]) or 'none'}" in stop
    for name in names[changed + 1:]:
        assert errors[name].reason == f"not written: the write stopped at {names[changed]}, which changed on disk " \
                                      "during the run"
    assert {f.path: f.status for f in report.findings} == {
        name: Status.FIXED if index < changed else Status.FIXABLE for index, name in enumerate(names)}
    assert temp_files(repo) == []


def test_a_file_edited_while_the_cli_writes_stops_the_write_and_exits_3(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.sh": MBRIDGE, "b.sh": MBRIDGE, "c.sh": MBRIDGE})
    # b.sh is edited just as the bot renames a.sh into place: after everything was staged
    done = run_cli_during_write(tmp_path, repo, f"append:{repo / 'b.sh'}", "a.sh")
    assert done.returncode == 3, done.stderr
    assert (repo / "a.sh").read_text() == FIXED
    assert (repo / "b.sh").read_text() == MBRIDGE + EDIT
    assert (repo / "c.sh").read_text() == MBRIDGE
    assert temp_files(repo) == []
    assert "b.sh: not written: b.sh: changed on disk during the run" in done.stdout
    assert "the write stopped here (written: a.sh)" in done.stdout
    assert "c.sh: not written: the write stopped at b.sh" in done.stdout
    assert "a.sh:2:5: [megatron-use-mbridge] fixed" in done.stdout
    assert "bot: --write wrote 1 of 3 changed files (written: a.sh); not written: b.sh, c.sh" in done.stderr


def test_a_write_that_writes_everything_exits_0(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.sh": MBRIDGE, "b.sh": MBRIDGE})
    done = run_cli_during_write(tmp_path, repo, "append:/nonexistent", "never-renamed.sh")
    assert done.returncode == 0, done.stderr
    assert (repo / "a.sh").read_text() == (repo / "b.sh").read_text() == FIXED
    assert "not written" not in done.stdout + done.stderr


# ---- a directory swapped for a symlink --------------------------------------------------------------

@pytest.fixture()
def three_places(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with a.sh, sub/run.sh and z.sh; a directory outside it with run.sh."""
    repo = make_repo(tmp_path / "r", {"a.sh": MBRIDGE, "sub/run.sh": MBRIDGE, "z.sh": MBRIDGE})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "run.sh").write_text(MBRIDGE)
    return repo, outside


@pytest.mark.parametrize("where", ["outside", "inside"])
def test_a_directory_swapped_for_a_symlink_is_an_error_entry_and_nothing_goes_through_it(
        three_places: tuple[Path, Path], where: str) -> None:
    repo, outside = three_places
    report = scan(repo, load_rules())
    assert [c.path for c in report.changes] == ["a.sh", "sub/run.sh", "z.sh"]
    target = outside if where == "outside" else repo / "other"
    target.mkdir(exist_ok=True)
    (target / "run.sh").write_text(MBRIDGE)  # the bytes the scan read, behind the link
    os.rename(repo / "sub", repo / "sub.moved")
    os.symlink(target, repo / "sub")
    write_changes(repo, report)  # no exception
    assert (target / "run.sh").read_text() == MBRIDGE, "written through the symlink"
    assert (repo / "sub.moved/run.sh").read_text() == MBRIDGE
    errors = {e.path: e.reason for e in report.errors}
    assert errors == {"sub/run.sh": "not written: sub/run.sh: sub/ is a symlink; expected a directory inside "
                                    "the repository"}
    assert (repo / "a.sh").read_text() == (repo / "z.sh").read_text() == FIXED, "one bad file stops nothing else"
    assert temp_files(repo, outside) == []


def test_a_directory_swapped_for_a_symlink_while_the_cli_writes_stops_the_write(
        tmp_path: Path, three_places: tuple[Path, Path]) -> None:
    repo, outside = three_places
    done = run_cli_during_write(tmp_path, repo, f"swap:{repo / 'sub'}:{outside}", "a.sh")
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert (outside / "run.sh").read_text() == MBRIDGE
    assert (repo / "sub.orig/run.sh").read_text() == MBRIDGE
    assert (repo / "a.sh").read_text() == FIXED and (repo / "z.sh").read_text() == MBRIDGE
    assert "sub/run.sh: not written: sub/run.sh: its directory was moved or replaced during the run" in done.stdout
    assert temp_files(repo, outside) == []


def test_a_directory_swapped_at_the_rename_itself_leaves_no_temp_file_and_nothing_outside(
        tmp_path: Path, three_places: tuple[Path, Path]) -> None:
    repo, outside = three_places
    done = run_cli_during_write(tmp_path, repo, f"swap:{repo / 'sub'}:{outside}", "run.sh")
    assert "Traceback" not in done.stderr and done.returncode in (0, 3), done.stderr
    assert (outside / "run.sh").read_text() == MBRIDGE, "written through the symlink"
    assert temp_files(repo, outside) == [], "a temp file was left behind"
    # the rename landed in the directory that was checked (moved, still inside the repository)
    assert (repo / "sub.orig/run.sh").read_text() in (MBRIDGE, FIXED)


# ---- directories and files the bot cannot read --------------------------------------------------------

def _drop_to_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _unprivileged() -> tuple[str, dict[str, Any], dict[str, str]]:
    """An interpreter, subprocess options and environment that run the bot as a user chmod 000 stops.

    As root: uid/gid 65534, with this interpreter if that user can run it, else the same Python version
    installed for everyone, seeing the packages this one sees. Skips the test when there is neither.
    """
    if os.geteuid() != 0:
        return sys.executable, {}, {}
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    packages = [p for p in sys.path if p and os.path.isdir(p) and not p.startswith(sys.base_prefix)]
    env = {"PYTHONPATH": os.pathsep.join(packages)}
    options: dict[str, Any] = {"preexec_fn": _drop_to_nobody}
    tried = []
    for python in dict.fromkeys([sys.executable, f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"]):
        try:
            probe = subprocess.run([python, "-m", "bot", "rules", "list"], capture_output=True, cwd="/",
                                   env={**os.environ, **env}, check=False, timeout=120, **options)
        except PermissionError as exc:
            tried.append(f"{python}: {exc.strerror}")
            continue
        except (OSError, subprocess.SubprocessError) as exc:
            pytest.skip(f"running as root and cannot run anything as uid {NOBODY} ({exc}); chmod 000 does not "
                        "stop root")
        if probe.returncode == 0:
            return python, options, env
        tried.append(f"{python}: {probe.stderr.decode(errors='replace').strip().splitlines()[-1:]}")
    pytest.skip(f"running as root and no Python {version} runs the bot as uid {NOBODY} ({'; '.join(tried)}); "
                "chmod 000 does not stop root")


@pytest.fixture()
def shared_dir() -> Iterator[Path]:
    """A temp directory another user can reach (pytest's tmp_path is private to its user)."""
    base = Path(tempfile.mkdtemp(prefix="bot-unreadable-"))
    try:
        yield base
    finally:
        for directory, dirs, files in os.walk(base):
            for name in dirs + files:
                os.chmod(os.path.join(directory, name), 0o755, follow_symlinks=False)
        shutil.rmtree(base)


@pytest.mark.parametrize("layout", ["git", "plain"])
def test_files_in_an_unreadable_directory_are_skipped_naming_it(shared_dir: Path, layout: str) -> None:
    python, options, extra_env = _unprivileged()
    repo = shared_dir / "r"
    files = {"top.sh": MBRIDGE, "sub/a.sh": MBRIDGE, "sub/deeper/b.sh": MBRIDGE, "locked.sh": MBRIDGE,
             "tool": "#!/bin/bash\n" + MBRIDGE}
    if layout == "git":
        make_repo(repo, files)
        (repo / "sub/untracked.sh").write_text(MBRIDGE)
    else:
        for rel, text in files.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text)
    if options:
        os.chmod(shared_dir, 0o755)
        for directory, dirs, names in os.walk(shared_dir):
            for name in [*dirs, *names, "."]:
                os.chown(os.path.join(directory, name), NOBODY, NOBODY, follow_symlinks=False)
    for rel in ("locked.sh", "tool"):
        os.chmod(repo / rel, 0)
    os.chmod(repo / "sub", 0)
    env = {**os.environ, **extra_env, "HOME": str(shared_dir)}
    done = subprocess.run([python, "-m", "bot", "run", "--repo", str(repo), "--dry-run", "--no-cache",
                           "--format", "json"], cwd=shared_dir, env=env, capture_output=True, text=True,
                          check=False, timeout=300, **options)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    skipped = {s["path"]: s["reason"] for s in out["skipped"]}
    assert [f["path"] for f in out["findings"]] == ["top.sh"], "the readable file is still checked"
    if layout == "git":  # git lists the tracked files; each is skipped naming the directory
        for rel in ("sub/a.sh", "sub/deeper/b.sh"):
            assert skipped[rel] == "in a directory the bot cannot read: sub/ (Permission denied)"
        assert skipped["sub/"] == ("directory not readable (Permission denied): files in it that git does not "
                                   "track were not listed")
    else:
        assert skipped["sub/"] == "directory not readable (Permission denied): the files in it were not listed"
    # a single unreadable file: skipped as unreadable whether its name says shell or its shebang would
    assert skipped["locked.sh"] == "cannot read: Permission denied"
    assert skipped["tool"] == "cannot read to look for a shell shebang: Permission denied"
    assert all("\n" not in reason for reason in skipped.values())
