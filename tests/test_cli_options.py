"""Options every user meets: colour from the environment, and `bot rules test` in this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, make_repo

BOT = str(Path(sys.executable).parent / "bot")
SCRIPT = "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False\n"


@pytest.mark.parametrize(("variables", "colored"), [
    ({}, False), ({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "0"}, False),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False), ({"FORCE_COLOR": "1", "TERM": "dumb"}, True)])
def test_force_color_and_no_color_are_honoured_when_not_a_tty(variables: dict[str, str], colored: bool,
                                                                tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"run.sh": SCRIPT})
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TERM")} | variables
    out = subprocess.run([BOT, "run", "--repo", str(repo), "--dry-run", "--no-cache"], capture_output=True,
                         text=True, env=env, check=False).stdout
    assert ("\x1b[" in out) is colored


def test_rules_test_in_the_checkout_runs_the_fixtures_of_the_rules_it_loaded() -> None:
    result = subprocess.run([BOT, "rules", "test"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-2000:]
    ran = {line.split()[1].split("/")[0] for line in result.stdout.splitlines() if line.startswith(("ok", "FAIL"))}
    assert ran == {"megatron-use-mbridge", "megatron-flash-attn", "megatron-recompute-uniform"}


def test_compose_check_counts_launches_not_checked_by_reason_and_lists_them_with_verbose(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"tools/prep.py": "print('no hydra here')\n", "run.sh": (
        "python3 tools/prep.py a=1\npython3 tools/prep.py a=2\npython3 -m elsewhere.train a=3\n")})
    quiet = subprocess.run([BOT, "compose-check", "--repo", str(repo)], capture_output=True, text=True, check=True)
    assert "launch not checked" not in quiet.stderr
    assert ("compose-check: launches not (or partly) checked: 2 the entry is no Hydra app, 1 the entry is not in "
            "the repository (--verbose lists each launch)") in quiet.stderr
    loud = subprocess.run([BOT, "compose-check", "--repo", str(repo), "--verbose"], capture_output=True, text=True,
                          check=True)
    assert loud.stderr.count(": launch not checked: ") == 3


APP = ("import hydra\n\n\n@hydra.main(config_path='conf', config_name='train', version_base=None)\n"
       "def main(cfg):\n    print(cfg)\n")


def _stderr_on_a_terminal(argv: list[str]) -> bytes:
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    process.wait()
    os.close(leader)
    return seen


def test_progress_shows_on_a_terminal_for_a_long_run_and_never_in_a_pipe(tmp_path: Path) -> None:
    """Each launch its own config and a key that config lacks, so that composing takes a while: each base is
    composed by Hydra, as the config sets Hydra's node beyond its plain settings (a base that composes as plain
    data, its failures confirmed on the way to their keys, is too quick for it)."""
    files: dict[str, str | bytes] = {"train.py": APP,
                                     "conf/train.yaml": "hydra:\n  verbose: false\ntrainer:\n  epochs: 1\n  lr: 0.1\n"}
    files |= {f"conf/c_{i}.yaml": f"defaults:\n  - train\n  - _self_\ntrainer:\n  lr: 0.{i}\n" for i in range(100)}
    files |= {f"runs/run_{i}.sh": f"python3 train.py --config-name c_{i} trainer.epochs={i} trainer.absent_{i}=1\n"
              for i in range(100)}
    repo = make_repo(tmp_path / "repo", files)
    argv = [BOT, "compose-check", "--repo", str(repo)]
    on_terminal = _stderr_on_a_terminal(argv)
    assert b"\rcomposing: " in on_terminal and b" of 100 files (" in on_terminal
    piped = subprocess.run(argv, capture_output=True, check=False)
    assert piped.returncode == 0  # findings, and no --check
    assert b"\r" not in piped.stderr and b"composing:" not in piped.stderr


def test_a_report_named_inside_the_repository_is_never_written_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    repo = make_repo(tmp_path / "repo", {"run.sh": SCRIPT})
    (repo / "report.json").symlink_to(outside)
    for option in ("--output", "--sarif"):
        result = subprocess.run([BOT, "run", "--repo", str(repo), "--dry-run", "--format", "json", option,
                                 str(repo / "report.json")], capture_output=True, text=True, check=False)
        assert result.returncode == 2 and result.stderr.startswith(f"bot: error: {option} "), result.stderr
        assert "symlink" in result.stderr
    assert outside.read_text() == "keep me\n"
    written = repo / "out" / "report.json"
    written.parent.mkdir()
    subprocess.run([BOT, "run", "--repo", str(repo), "--dry-run", "--format", "json", "--output", str(written)],
                   check=True)
    assert written.read_text().startswith("{")
