"""The command line end to end, on real git repositories and the bundled demo."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import ROOT, RULE_DEFS, git, make_repo

DEMO = ROOT / "examples" / "demo-repo"
SCRIPT = """\
#!/bin/bash
USE_MBRIDGE=${USE_MBRIDGE:-False}
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=$USE_MBRIDGE \\
    critic.megatron.use_mbridge=False \\
    trainer.total_epochs=1 $@
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def demo_copy(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    git(target, "init", "-q", "-b", "main")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "demo")
    return target


def test_demo_dry_run_matches_expected_totals(capsys: pytest.CaptureFixture[str]) -> None:
    before = {p: p.read_bytes() for p in DEMO.rglob("*") if p.is_file()}
    code, out, _ = run(capsys, "run", "--repo", str(DEMO), "--dry-run", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["summary"]["findings"] == 38  # and two notes, counted apart
    assert report["summary"]["fixable"] == 33
    assert report["summary"]["manual"] == 5
    assert report["summary"]["notes"] == 2
    assert len(report["files"]) == 16
    kinds = report["summary"]["kinds"]
    assert {k: kinds[k]["findings"] for k in ("shell", "markdown", "notebook", "workflow", "yaml", "python")} == {
        "shell": 25, "markdown": 3, "notebook": 2, "workflow": 3, "yaml": 3, "python": 2}
    assert kinds["markdown"]["notes"] == 2
    assert report["partly_parsed"] == ["examples/ppo_trainer/run_partial_parse.sh"]
    by_file: dict[str, list[tuple[int, str]]] = {}
    for finding in report["findings"]:
        by_file.setdefault(finding["path"], []).append((finding["line"], finding["status"]))
    defaults_at = by_file["examples/grpo_trainer/run_mbridge_default.sh"]
    assert defaults_at == [(10, "fixable"), (12, "fixable"), (13, "fixable")]
    assert by_file["recipe/spin/run_spin_megatron.sh"] == [(12, "manual")]
    assert by_file["examples/tuning/run_caller_value.sh"] == [(8, "manual"), (9, "manual")]
    for trap in ("tests/special_sanity/check_mindspeed_keys.sh", "examples/grpo_trainer/run_already_true.sh"):
        assert trap not in by_file
    defaults = [f for f in report["findings"] if f["path"].endswith("run_mbridge_default.sh")]
    assert {f["fix_site"]["line"] for f in defaults} == {4}
    assert before == {p: p.read_bytes() for p in DEMO.rglob("*") if p.is_file()}, "dry-run changed a file"


def test_diff_applies_with_git_and_equals_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    applied, written = demo_copy(tmp_path / "a"), demo_copy(tmp_path / "b")
    code, patch, _ = run(capsys, "run", "--repo", str(applied), "--dry-run", "--format", "diff")
    assert code == 0 and patch.startswith("diff --git a/")
    subprocess.run(["git", "apply", "-"], cwd=applied, input=patch.encode(), check=True)
    code, _, _ = run(capsys, "run", "--repo", str(written), "--write")
    assert code == 0
    for path in applied.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert path.read_bytes() == (written / path.relative_to(applied)).read_bytes(), path
    code, again, _ = run(capsys, "run", "--repo", str(written), "--dry-run", "--format", "diff")
    assert code == 0 and again == ""


def test_check_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": SCRIPT})
    assert run(capsys, "run", "--repo", str(repo), "--dry-run", "--check")[0] == 1
    assert run(capsys, "run", "--repo", str(repo), "--write", "--check")[0] == 0  # all fixed
    assert run(capsys, "run", "--repo", str(repo), "--dry-run", "--check")[0] == 0
    text = (repo / "run.sh").read_text()
    assert "USE_MBRIDGE=${USE_MBRIDGE:-True}" in text and "critic.megatron.use_mbridge=True" in text


def test_manual_findings_keep_check_failing_after_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": "python3 -m m critic.megatron.use_mbridge=$1\n"})
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--write", "--check", "--format", "json")
    assert code == 1
    assert json.loads(out)["findings"][0]["status"] == "manual"


def test_output_file_and_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": SCRIPT})
    target = tmp_path / "report.sarif"
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--format", "sarif", "--output", str(target))
    assert code == 0 and out == ""
    sarif = json.loads(target.read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"]
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--format", "github")
    assert out.startswith("::error file=run.sh,line=4")
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--color", "always")
    assert "\x1b[" in out
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run")
    assert "\x1b[" not in out and "2 findings" in out


def test_optional_rules_only_with_enable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": SCRIPT})
    _, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--format", "json")
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"megatron-use-mbridge"}
    _, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--format", "json",
                    "--enable", "megatron-flash-attn")  # not an NPU script: the NPU-only rule adds nothing
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"megatron-use-mbridge"}
    npu = make_repo(tmp_path / "npu", {"examples/run_npu.sh": SCRIPT})
    _, out, _ = run(capsys, "run", "--repo", str(npu), "--dry-run", "--format", "json",
                    "--enable", "megatron-flash-attn")
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"megatron-use-mbridge", "megatron-flash-attn"}
    _, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--format", "json",
                    "--rule", "megatron-recompute-uniform")
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"megatron-recompute-uniform"}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run", "--repo", "/nonexistent/repo", "--dry-run"], "not a directory, not owner/name"),
        (["run", "--repo", "acme/widgets", "--baseline", "b.json"], "publishing uses the baseline committed"),
        (["run", "--repo", "verl", "--write"], "--write edits a local working tree"),
        (["run", "--repo", ".", "--dry-run", "--rule", "nope"], "no such rule"),
        (["run", "--repo", ".", "--dry-run", "--format", "xml"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                               expected: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert expected in err and err.count("\n") == 1


def test_rules_list_and_rules_test(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "rules", "list")
    assert code == 0 and "megatron-use-mbridge" in out and "optional" in out
    code, out, _ = run(capsys, "rules", "test", "--rules", str(RULE_DEFS), "--tests", str(ROOT / "tests" / "rules"))
    assert code == 0 and " 0 failed" in out
    broken = tmp_path / "cases" / "megatron-use-mbridge"
    broken.mkdir(parents=True)
    (broken / "x.before.sh").write_text("python3 -m m critic.megatron.use_mbridge=False\n")
    (broken / "x.after.sh").write_text("python3 -m m critic.megatron.use_mbridge=False\n")
    code, out, _ = run(capsys, "rules", "test", "--tests", str(tmp_path / "cases"))
    assert code == 1 and "FAIL  megatron-use-mbridge/x" in out and "0 passed, 1 failed" in out


def test_python_dash_m_bot_works() -> None:
    out = subprocess.run([sys.executable, "-m", "bot", "rules", "list"], capture_output=True, text=True, check=True)
    assert "megatron-use-mbridge" in out.stdout


def test_pre_commit_hook_checks_only_the_files_it_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    import shlex

    from ruamel.yaml import YAML

    hooks = {h["id"]: h for h in YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    hook = hooks["followup-bot"]
    bad = "python3 -m m critic.megatron.use_mbridge=False\n"
    repo = make_repo(tmp_path / "r", {"old.sh": bad, "new.sh": "python3 -m m x=1\n"})
    monkeypatch.chdir(repo)
    argv = shlex.split(hook["entry"])[1:]
    assert run(capsys, *argv, "new.sh")[0] == 0
    code, out, _ = run(capsys, *argv, "old.sh")
    assert code == 1 and "old.sh:1" in out


def test_files_of_another_repository_are_read_relative_to_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"scripts/old.sh": "python3 -m m critic.megatron.use_mbridge=False\n"})
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--files", "scripts/old.sh")
    assert code == 0 and "scripts/old.sh:1" in out


def test_many_repositories_one_failing_and_shards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.repolist import repositories, shard_of

    good = make_repo(tmp_path / "good", {"run.sh": SCRIPT})
    other = make_repo(tmp_path / "other", {"run.sh": "python3 -m m x=1\n"})
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# fleet\n{good}\n/nonexistent/repo  # gone\n{other}\n")
    code, out, err = run(capsys, "run", "--repos", str(listing), "--dry-run", "--format", "json")
    assert code == 3
    reports = [json.loads(line) for line in out.splitlines()]
    assert [r["summary"]["findings"] for r in reports] == [2, 0]
    assert "/nonexistent/repo" in err and "1 of 3 repositories failed" in err
    names = [f"org/repo{i}" for i in range(40)]
    parts = [repositories(names, None, f"{i}/4") for i in range(1, 5)]
    assert sorted(n for part in parts for n in part) == sorted(names)  # every repo in exactly one shard
    assert all(part for part in parts)
    assert repositories(names[:10], None, "2/4") == [n for n in names[:10] if shard_of(n, 4) == 2]
    code, _, err = run(capsys, "run", "--repo", str(good), "--shard", "5/4", "--dry-run")
    assert code == 2 and "expected I/N" in err


def test_jobs_give_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    _, one, _ = run(capsys, "run", "--repo", str(DEMO), "--dry-run", "--format", "json")
    _, two, _ = run(capsys, "run", "--repo", str(DEMO), "--dry-run", "--format", "json", "--jobs", "2")
    assert one == two and json.loads(one)["summary"]["findings"] == 38


def test_jobs_on_a_tree_big_enough_for_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.engine.batches import PARALLEL_FROM

    files = {f"recipe/run_{i}.sh": f"#!/bin/bash\npython3 -m verl.trainer.main_ppo trainer.x={i} "
             f"actor_rollout_ref.actor.megatron.use_mbridge={'False' if i % 2 else 'True'}\n"
             for i in range(PARALLEL_FROM + 10)}
    # callers, checked once the scripts that hold a token are known: by the same workers
    files["recipe/train.sh"] = "#!/bin/bash\npython3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=${B:-True}\n"
    files.update({f"ci/call_{i}.sh": "#!/bin/bash\nB=False bash recipe/train.sh\n" for i in range(20)})
    # a config placed by another's defaults list where the rule excludes its keys: read where the packages
    # (worked out by a worker while the others read the scripts) put them, it holds no finding
    files["conf/ppo.yaml"] = "defaults:\n  - actor@actor_rollout_ref.mindspeed.actor: megatron\n  - _self_\n"
    files["conf/actor/megatron.yaml"] = "megatron:\n  use_mbridge: False\n"
    root = make_repo(tmp_path / "big", files)
    _, one, _ = run(capsys, "run", "--repo", str(root), "--dry-run", "--no-cache", "--format", "json", "--jobs", "1")
    _, two, _ = run(capsys, "run", "--repo", str(root), "--dry-run", "--no-cache", "--format", "json", "--jobs", "2")
    assert one == two and json.loads(one)["summary"]["findings"] == (PARALLEL_FROM + 10) // 2 + 20
