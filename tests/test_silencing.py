"""Silencing findings: `# followup-bot: ignore[...]` comments in every file kind, and baseline files.

Real repositories in temp dirs, the real command line: a silenced finding is counted, never listed
as a finding, never fixed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import make_repo

RULE = "megatron-use-mbridge"
KEY = "critic.megatron.use_mbridge"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def report(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--format", "json", *extra)
    assert code == 0, err
    data: dict = json.loads(out)  # type: ignore[type-arg]
    return data


def lines_of(data: dict, key: str = "findings") -> list[int]:  # type: ignore[type-arg]
    return [f["line"] for f in data[key]]


def test_on_the_findings_line_and_rule_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": f"""\
python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[{RULE}]
python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[some-other-rule]
python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[some-other-rule, {RULE}] why: testing
python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore
python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignored (not the directive)
"""})
    data = report(capsys, repo)
    assert lines_of(data) == [2, 5]  # another rule's id, and a word that only starts like it, silence nothing
    assert lines_of(data, "suppressed") == [1, 3, 4]
    assert {f["suppression"] for f in data["suppressed"]} == {"inline"}
    assert data["summary"]["suppressed"] == {"inline": 3, "baseline": 0}


LAUNCHES = f"""\
#!/bin/bash
ARGS=(
    {KEY}=False
)
python3 -m verl.trainer.main_ppo "${{ARGS[@]}}"  # followup-bot: ignore[{RULE}]

# a note for people
# followup-bot: ignore[{RULE}]
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=False \\
    trainer.total_epochs=1

python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.ref.megatron.use_mbridge=False \\
    trainer.total_epochs=1 $@  # followup-bot: ignore[{RULE}]

# followup-bot: ignore[{RULE}]

python3 -m verl.trainer.main_ppo \\
    {KEY}=False
"""


def test_on_the_launch_and_above_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": LAUNCHES})
    data = report(capsys, repo)
    # the launch line (the array's override is read there), the comment block above a launch, the
    # launch's last line; a blank line between the comment and the launch breaks the link
    assert lines_of(data, "suppressed") == [3, 10, 14]
    assert lines_of(data) == [20]


def test_other_file_kinds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": [f"# followup-bot: ignore[{RULE}]\n",
                                      f"!python3 -m verl.trainer.main_ppo {KEY}=False\n"]},
                          {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": [f"!python3 -m verl.trainer.main_ppo {KEY}=False\n"]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    repo = make_repo(tmp_path / "r", {
        "docs/start.md": f"""\
# Start

```bash
# followup-bot: ignore[{RULE}]
python3 -m verl.trainer.main_ppo {KEY}=False
python3 -m verl.trainer.main_ppo {KEY}=False
```
""",
        "recipe/config/run.yaml": f"""\
critic:
  megatron:
    use_mbridge: False  # followup-bot: ignore[{RULE}]
actor_rollout_ref:
  actor:
    megatron:
      use_mbridge: False
""",
        "tests/smoke.py": f"""\
import subprocess
import sys

subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo",  # followup-bot: ignore
                "{KEY}=False"])
subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo",
                "{KEY}=False"])
""",
        "examples/quickstart.ipynb": json.dumps(notebook, indent=1) + "\n",
        "docs/start.rst": f"""\
Start
=====

.. code-block:: bash

   python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[{RULE}]
   python3 -m verl.trainer.main_ppo {KEY}=False
""",
        ".github/workflows/e2e.yml": f"""\
on: push
jobs:
  e2e:
    runs-on: ubuntu-latest
    steps:
      - run: |
          # followup-bot: ignore[{RULE}]
          python3 -m verl.trainer.main_ppo {KEY}=False
      - run: python3 -m verl.trainer.main_ppo {KEY}=False
""",
    })
    data = report(capsys, repo)
    found = sorted((f["path"], f["line"]) for f in data["findings"])
    quiet = sorted((f["path"], f["line"]) for f in data["suppressed"])
    assert quiet == [(".github/workflows/e2e.yml", 8), ("docs/start.md", 5), ("docs/start.rst", 6),
                     ("examples/quickstart.ipynb", 10), ("recipe/config/run.yaml", 3), ("tests/smoke.py", 5)]
    assert found == [(".github/workflows/e2e.yml", 9), ("docs/start.md", 6), ("docs/start.rst", 7),
                     ("examples/quickstart.ipynb", 19), ("recipe/config/run.yaml", 7), ("tests/smoke.py", 7)]


def test_baseline_round_trip_survives_a_line_shift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = f"python3 -m verl.trainer.main_ppo \\\n    {KEY}=False \\\n    trainer.total_epochs=1\n"
    repo = make_repo(tmp_path / "r", {"a.sh": script, "b.sh": script})
    baseline = tmp_path / "baseline.json"
    code, _, err = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--write-baseline",
                       str(baseline))
    assert code == 0 and "wrote 2 entries" in err
    written = json.loads(baseline.read_text())
    assert written["version"] == 1
    assert written["findings"] == [{"rule": RULE, "path": p, "key": KEY, "value": "False"} for p in ("a.sh", "b.sh")]
    # a.sh grows at the top: its finding moves two lines down and stays silenced; b.sh gets a new one
    (repo / "a.sh").write_text("#!/bin/bash\nset -e\n" + script)
    (repo / "b.sh").write_text(script + "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=false\n")
    data = report(capsys, repo, "--baseline", str(baseline))
    assert [(f["path"], f["line"], f["suppression"]) for f in data["suppressed"]] == [
        ("a.sh", 4, "baseline"), ("b.sh", 2, "baseline")]
    assert [(f["path"], f["line"]) for f in data["findings"]] == [("b.sh", 4)]  # another value: not in the baseline
    assert data["summary"]["suppressed"] == {"inline": 0, "baseline": 2}


def test_default_baseline_and_no_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = {"rule": RULE, "path": "run.sh", "key": KEY, "value": "False", "reason": "kept on purpose"}
    repo = make_repo(tmp_path / "r", {
        "run.sh": f"python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[{RULE}]\n"
                  f"python3 -m verl.trainer.main_ppo \\\n    {KEY}=False\n"
                  f"python3 -m verl.trainer.main_ppo {KEY}=false\n",
        ".followup-bot-baseline.json": json.dumps({"version": 1, "findings": [entry]}),
    })
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache")
    assert code == 0
    # the first line is silenced by its comment (that comes first), the second by the baseline; the last
    # has another value (`false`), which the baseline does not hold
    assert "2 findings silenced (1 inline, 1 by baseline)" in out
    assert "1 finding, 1 fixable, 0 manual" in out and "run.sh:4:34" in out
    assert lines_of(report(capsys, repo, "--no-baseline"), "suppressed") == [1]
    code, _, err = run(capsys, "run", "--repo", str(repo), "--dry-run", "--baseline", str(repo / "nope.json"))
    assert code == 2 and "no such file" in err
    (repo / ".followup-bot-baseline.json").write_text('{"version": 1, "findings": [{"rule": 1}]}')
    code, _, err = run(capsys, "run", "--repo", str(repo), "--dry-run")
    assert code == 2 and ".followup-bot-baseline.json: findings[0].rule: expected a string" in err


def test_sarif_suppressions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {
        "run.sh": f"python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[{RULE}]\n"
                  f"python3 -m verl.trainer.main_ppo {KEY}=false\n"
                  f"python3 -m verl.trainer.main_ppo {KEY}=0\n",
        ".followup-bot-baseline.json": json.dumps(
            {"version": 1, "findings": [{"rule": RULE, "path": "run.sh", "key": KEY, "value": "false"}]}),
    })
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--format", "sarif")
    assert code == 0
    results = json.loads(out)["runs"][0]["results"]
    by_line = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r for r in results}
    assert sorted(by_line) == [1, 2, 3]
    assert [s["kind"] for s in by_line[1]["suppressions"]] == ["inSource"]
    assert [s["kind"] for s in by_line[2]["suppressions"]] == ["external"]
    assert ".followup-bot-baseline.json" in by_line[2]["suppressions"][0]["justification"]
    assert "suppressions" not in by_line[3] and "fixes" in by_line[3]
    assert "fixes" not in by_line[1] and "fixes" not in by_line[2]


def test_write_leaves_silenced_findings_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = f"""\
#!/bin/bash
USE=${{USE:-False}}
python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[{RULE}]
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False
# followup-bot: ignore[{RULE}]
python3 -m verl.trainer.main_ppo actor_rollout_ref.ref.megatron.use_mbridge=$USE
python3 -m verl.trainer.main_ppo {KEY}=$USE
"""
    repo = make_repo(tmp_path / "r", {"run.sh": script})
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--write", "--no-cache")
    assert code == 0
    after = (repo / "run.sh").read_text().splitlines()
    before = script.splitlines()
    assert after[3] == "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=True"
    # the silenced line is not edited; nor is the definition that also feeds a silenced finding (line 6),
    # so line 7, which it feeds too, is left for a person
    assert [i for i, (a, b) in enumerate(zip(before, after)) if a != b] == [3]
    assert "2 findings silenced (2 inline)" in out
    assert "run.sh:7:34: [megatron-use-mbridge] manual" in out and "line 6, whose finding is silenced" in out


HYDRA_APP = {
    "verl/trainer/main_ppo.py": """\
import hydra


@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)
def main(config):
    pass
""",
    "verl/trainer/config/ppo_trainer.yaml": "trainer:\n  total_epochs: 15\n  logger: console\n",
}


def test_compose_check_honours_silencing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**HYDRA_APP, "run.sh": """\
python3 -m verl.trainer.main_ppo +trainer.total_epochs=2  # followup-bot: ignore[hydra-compose]
python3 -m verl.trainer.main_ppo +trainer.total_epochs=3
python3 -m verl.trainer.main_ppo +trainer.logger=file  # followup-bot: ignore[megatron-use-mbridge]
"""})
    code, out, _ = run(capsys, "compose-check", "--repo", str(repo), "--format", "json", "--write")
    assert code == 0
    data = json.loads(out)
    assert lines_of(data) == [2, 3] and lines_of(data, "suppressed") == [1]
    assert (repo / "run.sh").read_text().splitlines()[:2] == [
        "python3 -m verl.trainer.main_ppo +trainer.total_epochs=2  # followup-bot: ignore[hydra-compose]",
        "python3 -m verl.trainer.main_ppo trainer.total_epochs=3"]


def test_publishing_honours_comments_and_the_committed_baseline(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import RepoConfig
    from bot.publish.run import PublishOptions, publish
    from bot.rules.loader import load_rules
    from tests.conftest import git
    from tests.memory_forge import MemoryForge

    script = f"""\
python3 -m verl.trainer.main_ppo {KEY}=False  # followup-bot: ignore[{RULE}]
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False
python3 -m verl.trainer.main_ppo actor_rollout_ref.ref.megatron.use_mbridge=False
"""
    held = {"rule": RULE, "path": "run.sh", "key": "actor_rollout_ref.ref.megatron.use_mbridge", "value": "False"}
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = make_repo(tmp_path / "work", {"run.sh": script,
                                         ".followup-bot-baseline.json": json.dumps({"version": 1, "findings": [held]})})
    git(work, "push", "-q", str(bare), "main")
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    forge = MemoryForge(bare)
    repo = RepoConfig(name="verl", github="acme/verl", clone_url=str(bare))
    result = publish(repo, load_rules(), PublishOptions(), credentials=None, forge=forge)
    assert [d.action for d in result.decisions] == ["opened"]
    assert [f.line for f in result.report.findings] == [2]
    assert sorted((f.line, f.silenced) for f in result.report.silenced) == [(1, "inline"), (3, "baseline")]
    pushed = git(bare, "show", f"bot/{RULE}:run.sh")
    assert pushed == script.replace("actor.megatron.use_mbridge=False", "actor.megatron.use_mbridge=True")


@pytest.mark.parametrize(("line", "named"), [
    ("x # followup-bot: ignore", {"*"}),
    ("x # followup-bot: ignore[a,b]", {"a", "b"}),
    ("x # followup-bot: ignore [a]", {"a"}),  # a space before the brackets still names only `a`
    ("x # followup-bot: ignore a-rule", set()),  # no brackets: not a directive, so it never silences every rule
    ("x # followup-bot: ignore  # why", {"*"}),
])
def test_a_malformed_directive_never_widens_to_every_rule(line: str, named: set[str]) -> None:
    from bot.engine.silence import Directives

    assert Directives(line.encode()).named(1) == named


def test_writing_a_baseline_for_some_files_or_rules_keeps_the_other_entries(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    script = f"python3 -m verl.trainer.main_ppo {KEY}=False\n"
    repo = make_repo(tmp_path / "r", {"a.sh": script, "b.sh": script})
    baseline = repo / ".followup-bot-baseline.json"
    other = {"rule": "some-other-rule", "path": "a.sh", "key": "x.y", "value": "1", "reason": "kept"}
    b_entry = {"rule": RULE, "path": "b.sh", "key": KEY, "value": "False", "reason": "known, on purpose"}
    baseline.write_text(json.dumps({"version": 1, "findings": [other, b_entry]}))
    code, _, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--files", str(repo / "a.sh"),
                     "--write-baseline", str(baseline))
    assert code == 0
    written = json.loads(baseline.read_text())["findings"]
    a_entry = {"rule": RULE, "path": "a.sh", "key": KEY, "value": "False"}
    assert sorted(written, key=json.dumps) == sorted([other, b_entry, a_entry], key=json.dumps)
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    code, _, err = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--write-baseline", str(link))
    assert code == 2 and "is a symlink" in err and not (tmp_path / "elsewhere.json").exists()
