"""Replaying an identical dry run: only when nothing it reads has changed, and never a stale report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import EXIT_FINDINGS, main
from bot.run_memo import RunMemo
from tests.conftest import git, make_repo

BROKEN = """\
#!/bin/bash
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=False \\
    trainer.total_epochs=1
"""
FINE = BROKEN.replace("use_mbridge=False", "use_mbridge=True")
REPLAYED = "nothing changed since an identical dry run"


class Runner:
    """`bot run --dry-run` on one repository with one cache directory; the report and whether it was replayed."""

    def __init__(self, root: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root, self.cache_dir, self.capsys = root, cache_dir, capsys
        self.out = root.parent / "report.out"

    def __call__(self, *extra: str) -> tuple[str, bool, int]:
        self.capsys.readouterr()
        code = main(["run", "--repo", str(self.root), "--dry-run", "--cache-dir", str(self.cache_dir),
                     "--output", str(self.out), *extra])
        return self.out.read_text(), REPLAYED in self.capsys.readouterr().err, code


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Runner:
    root = make_repo(tmp_path / "repo", {"run_a.sh": BROKEN, "run_b.sh": FINE, "docs/notes.md": "prose\n"})
    return Runner(root, tmp_path / "cache", capsys)


def test_identical_run_is_replayed_with_the_same_report_and_exit_code(run: Runner) -> None:
    first, replayed1, code1 = run("--format", "json", "--check")
    second, replayed2, code2 = run("--format", "json", "--check")
    assert not replayed1 and replayed2
    assert first == second and "megatron-use-mbridge" in first
    assert code1 == code2 == EXIT_FINDINGS


def test_each_format_is_remembered_on_its_own(run: Runner) -> None:
    text, _, _ = run()
    json_report, _, _ = run("--format", "json")
    assert run() == (text, True, 0)
    assert run("--format", "json") == (json_report, True, 0)
    assert text != json_report


@pytest.mark.parametrize("change", ["modify", "untracked", "stage", "commit", "delete", "gitignore", "mode",
                                    "assume-unchanged", "skip-worktree"])
def test_any_change_the_scan_can_see_means_a_fresh_run(run: Runner, change: str) -> None:
    before, _, _ = run("--format", "json")
    root = run.root
    if change == "modify":
        (root / "run_b.sh").write_text(BROKEN)
    elif change == "untracked":
        (root / "sub dir").mkdir()
        (root / "sub dir" / "new run.sh").write_text(BROKEN)
    elif change == "stage":  # same work-tree bytes as HEAD, a different index
        (root / "run_b.sh").write_text(BROKEN)
        git(root, "add", "run_b.sh")
        (root / "run_b.sh").write_text(FINE)
    elif change == "commit":  # same tree, a new HEAD the report names
        git(root, "commit", "-q", "--allow-empty", "-m", "empty")
    elif change == "delete":
        (root / "run_a.sh").unlink()
    elif change == "gitignore":  # an untracked script, then ignored: discovery stops listing it
        (root / "extra.sh").write_text(BROKEN)
        before, replayed, _ = run("--format", "json")
        assert not replayed and "extra.sh" in before
        (root / ".git" / "info" / "exclude").write_text("extra.sh\n")
    elif change == "mode":
        (root / "run_a.sh").chmod(0o755)
    elif change in ("assume-unchanged", "skip-worktree"):  # git status stops showing the edit
        git(root, "update-index", f"--{change}", "run_b.sh")
        run("--format", "json")
        assert run("--format", "json")[1]  # replayed while the file is as it was
        (root / "run_b.sh").write_text(BROKEN)
        assert git(root, "status", "--porcelain") == ""
    after, replayed, _ = run("--format", "json")
    # ignoring extra.sh brings back the very first state: replaying that run's report is right
    assert not replayed or change == "gitignore"
    command = [sys.executable, "-m", "bot", "run", "--repo", str(root), "--dry-run", "--no-cache", "--format", "json"]
    fresh = subprocess.run(command, capture_output=True, text=True, check=False).stdout
    assert after == fresh
    if change not in ("stage", "mode"):
        assert after != before


def test_a_called_script_git_ignores_is_checked_too(run: Runner) -> None:
    """The caller's finding depends on a script outside the git state: editing it must not replay."""
    root = run.root
    (root / ".git" / "info" / "exclude").write_text("local/\n")
    (root / "local").mkdir()
    (root / "local" / "inner.sh").write_text(
        "#!/bin/bash\npython3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=${MB:-True}\n")
    (root / "run_caller.sh").write_text("#!/bin/bash\nMB=False bash local/inner.sh\n")
    first, _, _ = run("--format", "json")
    assert "run_caller.sh" in first
    assert run("--format", "json")[1]
    (root / "local" / "inner.sh").write_text("#!/bin/bash\npython3 -m verl.trainer.main_ppo trainer.x=${MB:-1}\n")
    after, replayed, _ = run("--format", "json")
    assert not replayed and "run_caller.sh" not in after


def test_rewritten_bytes_git_calls_clean_are_seen(run: Runner) -> None:
    """CRLF written over LF under `text=auto`: the blob and `git status` stay the same, the bytes do not."""
    root = run.root
    (root / ".gitattributes").write_text("* text=auto\n")
    git(root, "add", ".gitattributes")
    git(root, "commit", "-qm", "attributes")
    run("--format", "json")
    (root / "run_a.sh").write_bytes(BROKEN.replace("\n", "\r\n").encode())
    git(root, "add", "run_a.sh")
    assert git(root, "status", "--porcelain") == ""
    after, replayed, _ = run("--format", "json")
    assert not replayed and "\\r" in after


def test_same_size_edit_with_the_old_mtime_is_seen(run: Runner) -> None:
    """With core.checkStat=minimal git trusts size and mtime; the bot also looks at ctime and inode."""
    root, target = run.root, run.root / "run_a.sh"
    git(root, "config", "core.checkStat", "minimal")
    git(root, "config", "core.trustctime", "false")
    os.utime(target, (1_000_000_000, 1_000_000_000))  # long before the index: not racily clean for git
    git(root, "update-index", "--refresh")
    stamp = target.stat()
    before, _, _ = run("--format", "json")
    target.write_text(BROKEN.replace("total_epochs=1", "total_epochs=2"))  # the same size; in the diff
    os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert target.stat().st_size == stamp.st_size and git(root, "status", "--porcelain") == ""
    after, replayed, _ = run("--format", "json")
    assert not replayed and after != before


def test_rules_that_read_the_composed_config_are_never_replayed(run: Runner, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "megatron-needs-y.yaml").write_text(
        "id: megatron-needs-y\ntitle: megatron launches set y\nseverity: error\n"
        "when:\n  value: {actor_rollout_ref.actor.strategy: megatron}\n"
        "ensure:\n  - key: trainer.y\n    value: 3\n    prefix: \"+\"\n")
    assert not run("--rules", str(rules))[1]
    assert not run("--rules", str(rules))[1]


def test_an_included_config_git_ignores_is_checked_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"conf/ppo.yaml": "defaults:\n  - actor@actor_rollout_ref.actor: dp\n  - _self_\n",
             "conf/actor/megatron/m1.yaml": "use_mbridge: false\n", ".gitignore": "conf/actor/dp.yaml\n"}
    root = make_repo(tmp_path / "repo", files)
    (root / "conf" / "actor" / "dp.yaml").write_text("defaults:\n  - megatron: m1\n  - _self_\n")
    run = Runner(root, tmp_path / "cache", capsys)
    before, _, _ = run("--format", "json")
    assert "actor_rollout_ref.actor.megatron.use_mbridge" in before
    (root / "conf" / "actor" / "dp.yaml").write_text("defaults:\n  - megatron@engine_x: m1\n  - _self_\n")
    for cache in (["--cache-dir", str(tmp_path / "cache")], ["--cache-dir", str(tmp_path / "cache2")]):
        after, replayed, _ = run("--format", "json", *cache)
        assert not replayed and "actor_rollout_ref.actor.megatron.use_mbridge" not in after


def test_rules_and_options_are_part_of_the_key(run: Runner) -> None:
    run("--format", "json")
    assert not run("--format", "json", "--rule", "megatron-use-mbridge")[1]
    assert run("--format", "json", "--rule", "megatron-use-mbridge")[1]


def test_damaged_store_is_a_normal_run(run: Runner) -> None:
    first, _, _ = run()
    stored = list(run.cache_dir.glob("runs-*/*.report"))
    assert stored
    for store in stored:
        store.write_bytes(store.read_bytes()[:20])
    again, replayed, _ = run()
    assert (again, replayed) == (first, False)
    assert run()[1]  # and the store is written afresh


def test_no_cache_neither_replays_nor_remembers(run: Runner) -> None:
    run()
    assert not run("--no-cache")[1]
    assert not run("--no-cache")[1]


def test_files_and_write_are_never_replayed(run: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    run()
    assert not run("--files", str(run.root / "run_a.sh"))[1]
    capsys.readouterr()
    main(["run", "--repo", str(run.root), "--write", "--cache-dir", str(run.cache_dir)])
    assert REPLAYED not in capsys.readouterr().err
    assert "use_mbridge=True" in (run.root / "run_a.sh").read_text()


def test_outside_git_nothing_is_replayed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "run.sh").write_text(BROKEN)
    runner = Runner(root, tmp_path / "cache", capsys)
    assert not runner()[1] and not runner()[1]
    assert not list((tmp_path / "cache").glob("runs-*/*"))


def test_checking_the_state_leaves_the_index_alone(run: Runner) -> None:
    run()
    index = run.root / ".git" / "index"
    stamp = index.stat().st_mtime_ns, index.read_bytes()
    os.utime(run.root / "run_b.sh", ns=(1, 1))  # stat data differs from the index: git would refresh it
    run()
    run()
    assert (index.stat().st_mtime_ns, index.read_bytes()) == stamp


def test_only_the_last_few_runs_are_kept(run: Runner) -> None:
    for fmt in ("text", "json", "markdown", "sarif", "diff"):
        run("--format", fmt)
    assert len(RunMemo(run.cache_dir, run.root).runs()) == 4
    assert not run("--format", "text")[1]  # the oldest went
    assert run("--format", "diff")[1]
