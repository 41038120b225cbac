"""Do no harm: no edit outside what a rule's key names.

Real repositories in temp dirs and the real command line (`bot run --dry-run --format json`, `--write`):
a word that is no override, a key pattern's `**`, moves that empty a mapping, one unwritable fix among
good ones, and `# followup-bot: ignore` text that is no comment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import make_repo


def write_rules(directory: Path, rules: dict[str, str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for rule_id, body in rules.items():
        (directory / f"{rule_id}.yaml").write_text(f"id: {rule_id}\ntitle: {rule_id}\nseverity: error\n{body}")
    return directory


def report(capsys: pytest.CaptureFixture[str], repo: Path, rules: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    code = main(["run", "--repo", str(repo), "--dry-run", "--no-cache", "--no-bundled", "--rules", str(rules),
                 "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    data: dict = json.loads(out)  # type: ignore[type-arg]
    return data


def written(capsys: pytest.CaptureFixture[str], repo: Path, rules: Path) -> None:
    code = main(["run", "--repo", str(repo), "--write", "--no-cache", "--no-bundled", "--rules", str(rules)])
    _, err = capsys.readouterr()
    assert code == 0, err


def found(data: dict) -> list[tuple[str, int, str]]:  # type: ignore[type-arg]
    return sorted((f["path"], f["line"], f["status"]) for f in data["findings"])


# ---- 1. a word Hydra rejects, in a launch of no Hydra app ----------------------------

RENAME_ZERO = {"zero-rename": 'match:\n  key: ["**.zero"]\nfix:\n  rename: sharding\n'}


def test_tool_words_are_never_renamed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = """\
python3 -m pip install zero==2.1.0
python3 -m venv zero
python3 -m trainer_pkg.main optim.zero=3 run.steps=10
"""
    program = """\
import subprocess

subprocess.run(["python3", "-m", "pip", "install", "zero==2.1.0"], check=True)
subprocess.run(["python3", "-m", "trainer_pkg.main", "optim.zero=3"], check=True)
"""
    repo = make_repo(tmp_path / "r", {"setup.sh": script, "launch.py": program})
    rules = write_rules(tmp_path / "rules", RENAME_ZERO)
    data = report(capsys, repo, rules)
    assert found(data) == [("launch.py", 4, "fixable"), ("setup.sh", 3, "fixable")]
    written(capsys, repo, rules)
    assert (repo / "setup.sh").read_text() == script.replace("optim.zero=3", "optim.sharding=3")
    assert (repo / "launch.py").read_text() == program.replace("optim.zero=3", "optim.sharding=3")


@pytest.mark.parametrize("rule", [
    RENAME_ZERO["zero-rename"],
    'match:\n  key: ["zero", "optim.zero"]\nfix:\n  remove: true\n',
    'match:\n  key: ["zero", "optim.zero"]\nfix:\n  map: {"=2.1.0": "=3", 1: 2}\n',
], ids=["rename", "remove", "map"])
def test_a_word_hydra_rejects_is_left_to_a_person(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  rule: str) -> None:
    script = "python3 -m other_pkg.entry zero==2.1.0 optim.zero=1\n"
    repo = make_repo(tmp_path / "r", {"run.sh": script})
    rules = write_rules(tmp_path / "rules", {"zero-rule": rule})
    data = report(capsys, repo, rules)
    by_column = {f["column"]: f["status"] for f in data["findings"]}
    assert by_column == {28: "manual", 40: "fixable"}  # the word Hydra rejects; the override beside it
    written(capsys, repo, rules)
    assert (repo / "run.sh").read_text().startswith("python3 -m other_pkg.entry zero==2.1.0")


# ---- 2. a pattern ending in `**` reaches keys under its prefix only --------------------

DROP_BUFFER = {"buffer-drop": 'match:\n  key: ["reward.cutoff_buffer.**"]\nfix:\n  remove: true\n'}


def test_a_trailing_double_star_never_reaches_unrelated_keys(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    doc = """\
# Training

```yaml
trainer:
  total_epochs: 3
data:
  batch_size: 8
```

```yaml
cutoff_buffer:
  length: 4
scale: 1.0
```
"""
    config = "trainer:\n  total_epochs: 3\nreward:\n  scale: 1.0\n  cutoff_buffer:\n    length: 4\n"
    app = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="base", version_base=None)\n'
           "def main(cfg):\n    pass\n")
    script = "python3 -m trainer_pkg.main trainer.total_epochs=3 reward.cutoff_buffer.length=4\n"
    program = ('from hydra import compose\n\ncfg = compose("base", overrides=["trainer.total_epochs=3", '
               '"reward.cutoff_buffer.length=4"])\n')
    repo = make_repo(tmp_path / "r", {"README.md": doc, "conf/base.yaml": config, "main.py": app,
                                      "run.sh": script, "use.py": program})
    rules = write_rules(tmp_path / "rules", DROP_BUFFER)
    data = report(capsys, repo, rules)
    keys = sorted((f["path"], f["key"]) for f in data["findings"])
    assert keys == [("README.md", "cutoff_buffer"), ("README.md", "cutoff_buffer.length"),
                    ("conf/base.yaml", "reward.cutoff_buffer"), ("conf/base.yaml", "reward.cutoff_buffer.length"),
                    ("run.sh", "reward.cutoff_buffer.length"), ("use.py", "reward.cutoff_buffer.length")]
    written(capsys, repo, rules)
    assert "trainer:\n  total_epochs: 3\ndata:\n  batch_size: 8\n" in (repo / "README.md").read_text()
    assert "```yaml\nscale: 1.0\n```" in (repo / "README.md").read_text()
    assert (repo / "conf/base.yaml").read_text() == "trainer:\n  total_epochs: 3\nreward:\n  scale: 1.0\n"
    assert (repo / "run.sh").read_text() == "python3 -m trainer_pkg.main trainer.total_epochs=3\n"
    assert '"reward.cutoff_buffer.length=4"' not in (repo / "use.py").read_text()


# ---- 3. moves that together empty a mapping ------------------------------------------

def move(key: str, to: str) -> str:
    return f'match:\n  key: ["{key}"]\nfix:\n  rename: {to}\n'


APP = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="base", version_base=None)\n'
       "def main(cfg):\n    pass\n")


def test_moves_that_empty_a_mapping_are_refused_as_one_move_is(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    config = "trainer:\n  total_epochs: 3\nold:\n  x: 1\n  y: 2\ntail: 5\n"
    doc = "# Config\n\n```yaml\nold:\n  x: 1\n  y: 2\n```\n"
    repo = make_repo(tmp_path / "r", {"conf/base.yaml": config, "main.py": APP, "README.md": doc})
    rules = write_rules(tmp_path / "rules", {"move-x": move("old.x", "new.x"), "move-y": move("old.y", "new.y")})
    data = report(capsys, repo, rules)
    status = {(f["path"], f["rule"]): (f["status"], f["message"]) for f in data["findings"]}
    for path in ("conf/base.yaml", "README.md"):
        assert status[(path, "move-x")][0] == "fixable"
        assert status[(path, "move-y")][0] == "manual"
        assert "moving it would leave old empty" in status[(path, "move-y")][1]
    assert not any("could not be verified" in f["message"] for f in data["findings"])
    written(capsys, repo, rules)
    assert (repo / "conf/base.yaml").read_text() == "trainer:\n  total_epochs: 3\nold:\n  y: 2\ntail: 5\nnew:\n  x: 1\n"
    assert (repo / "README.md").read_text() == "# Config\n\n```yaml\nold:\n  y: 2\nnew:\n  x: 1\n```\n"

    # one rule moving the only key of a mapping says the same
    single = make_repo(tmp_path / "s", {"conf/base.yaml": "old:\n  x: 1\ntail: 5\n", "main.py": APP})
    data = report(capsys, single, rules)
    [finding] = [f for f in data["findings"] if f["rule"] == "move-x"]
    assert finding["status"] == "manual" and "moving it would leave old empty" in finding["message"]


def test_removals_and_moves_that_empty_a_mapping_are_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    config = "old:\n  x: 1\n  y: 2\n  z: 3\ntail: 5\n"
    repo = make_repo(tmp_path / "r", {"conf/base.yaml": config, "main.py": APP})
    rules = write_rules(tmp_path / "rules", {
        "drop-x": 'match:\n  key: ["old.x"]\nfix:\n  remove: true\n',
        "drop-y-z": 'match:\n  key: ["old.y", "old.z"]\nfix:\n  remove: true\n',
    })
    data = report(capsys, repo, rules)
    assert found(data) == [("conf/base.yaml", 2, "fixable"), ("conf/base.yaml", 3, "fixable"),
                           ("conf/base.yaml", 4, "manual")]
    written(capsys, repo, rules)
    assert (repo / "conf/base.yaml").read_text() == "old:\n  z: 3\ntail: 5\n"


def test_a_move_never_lands_before_what_another_fix_adds_there(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    doc = "```yaml\nold:\n  x: 1\n  y: 2\n  z: 3\n```\n"
    repo = make_repo(tmp_path / "r", {"README.md": doc})
    rules = write_rules(tmp_path / "rules", {"move-x": move("old.x", "new.x"), "move-z": move("old.z", "new.z")})
    data = report(capsys, repo, rules)
    status = {f["rule"]: f["status"] for f in data["findings"]}
    assert status == {"move-x": "fixable", "move-z": "manual"}
    assert not any("could not be verified" in f["message"] for f in data["findings"])
    written(capsys, repo, rules)
    assert (repo / "README.md").read_text() == "```yaml\nold:\n  y: 2\n  z: 3\nnew:\n  x: 1\n```\n"


# ---- 4. one unverifiable fix costs only itself -------------------------------------------

def test_an_unwritable_addition_keeps_the_rules_other_renames(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The rule renames optim.lr and adds trainer.seed; the addition would change what another rule's
    silenced finding says, so it cannot be verified: the renames of the same rule are still made."""
    script = """\
# followup-bot: ignore[seed-two]
python3 -m trainer_pkg.main \\
    optim.lr=1 \\
    trainer.x=1
python3 -m trainer_pkg.main trainer.seed=3 optim.lr=2
python3 -m trainer_pkg.main trainer.seed=3 \\
"""
    repo = make_repo(tmp_path / "r", {"run.sh": script})
    rules = write_rules(tmp_path / "rules", {
        "lr-seed": 'match:\n  key: ["optim.lr"]\nfix:\n  rename: learning_rate\n'
                   "ensure:\n  - key: trainer.seed\n    value: 1\n",
        "seed-two": "ensure:\n  - key: trainer.seed\n    value: 2\n",
    })
    data = report(capsys, repo, rules)
    status = {(f["line"], f["key"]): f["status"] for f in data["findings"]}
    assert status == {(2, "trainer.seed"): "manual", (3, "optim.lr"): "fixable", (5, "optim.lr"): "fixable"}
    [unverified] = [f for f in data["findings"] if f["status"] == "manual"]
    assert "could not be verified: the edits would change what a silenced finding says" in unverified["message"]
    written(capsys, repo, rules)
    assert (repo / "run.sh").read_text() == script.replace("optim.lr=", "optim.learning_rate=")


def test_one_rules_unverifiable_rename_keeps_its_others(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = ("python3 -m trainer_pkg.main optim.lr=1 trainer.x=1\n"
              "python3 -m trainer_pkg.main sched.lr=2  # followup-bot: ignore[sched-watch]\n")
    repo = make_repo(tmp_path / "r", {"run.sh": script})
    rules = write_rules(tmp_path / "rules", {
        "lr-rename": 'match:\n  key: ["optim.lr", "sched.lr"]\nfix:\n  rename: learning_rate\n',
        "sched-watch": 'match:\n  key: ["sched.lr"]\n',
    })
    data = report(capsys, repo, rules)
    assert found(data) == [("run.sh", 1, "fixable"), ("run.sh", 2, "manual")]
    written(capsys, repo, rules)
    assert (repo / "run.sh").read_text() == script.replace("optim.lr=", "optim.learning_rate=")


# ---- 5. only a real comment silences ---------------------------------------------------

MBRIDGE = "megatron-use-mbridge"  # a bundled rule, on by default
KEY = "critic.megatron.use_mbridge"
IGNORE = f"# followup-bot: ignore[{MBRIDGE}]"


def bundled(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    code = main(["run", "--repo", str(repo), "--dry-run", "--no-cache", "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    data: dict = json.loads(out)  # type: ignore[type-arg]
    return data


def test_directive_text_that_is_no_comment_silences_nothing(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": ["from hydra import compose\n",
                                      f'cfg = compose("ppo", overrides=["{KEY}=False"]); print("{IGNORE}")\n']},
                          {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": [f"{IGNORE}\n",
                                      f'cfg = compose("ppo", overrides=["{KEY}=False"])\n']}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    repo = make_repo(tmp_path / "r", {
        "run.sh": f"""\
python3 -m verl.trainer.main_ppo {KEY}=False "{IGNORE}"
ARGS=(
    "{IGNORE}"
    {KEY}=False
)
python3 -m verl.trainer.main_ppo "${{ARGS[@]}}"
python3 -m verl.trainer.main_ppo {KEY}=False  {IGNORE}
""",
        "conf/run.yaml": f"""\
critic:
  megatron:
    note: |
      {IGNORE}
    use_mbridge: False
actor_rollout_ref:
  actor:
    megatron:
      use_mbridge: False  {IGNORE}
""",
        "smoke.py": f"""\
import subprocess

subprocess.run(["python3", "-m", "verl.trainer.main_ppo", "{KEY}=False", "x=1",
                "{IGNORE}"])
subprocess.run(["python3", "-m", "verl.trainer.main_ppo",  {IGNORE}
                "{KEY}=False"])
""",
        "docs/start.md": f"""\
# Start

```bash
NOTE="read this first
{IGNORE}"
python3 -m verl.trainer.main_ppo {KEY}=False
```

```bash
{IGNORE}
python3 -m verl.trainer.main_ppo {KEY}=False
```
""",
        ".github/workflows/e2e.yml": f"""\
on: push
jobs:
  e2e:
    runs-on: ubuntu-latest
    steps:
      - run: |
          echo "start
          {IGNORE}"
          python3 -m verl.trainer.main_ppo {KEY}=False
      - run: |
          {IGNORE}
          python3 -m verl.trainer.main_ppo {KEY}=False
""",
        "nb.ipynb": json.dumps(notebook, indent=1) + "\n",
    })
    data = bundled(capsys, repo)
    found = sorted((f["path"], f["line"]) for f in data["findings"])
    quiet = sorted((f["path"], f["line"]) for f in data["suppressed"])
    assert found == [(".github/workflows/e2e.yml", 9), ("conf/run.yaml", 5), ("docs/start.md", 6),
                     ("nb.ipynb", 10), ("run.sh", 1), ("run.sh", 4), ("smoke.py", 3)]
    assert quiet == [(".github/workflows/e2e.yml", 12), ("conf/run.yaml", 9), ("docs/start.md", 11),
                     ("nb.ipynb", 20), ("run.sh", 7), ("smoke.py", 6)]


def test_directives_are_found_in_time_linear_in_the_file() -> None:
    import time

    from bot.engine.check import read_findings
    from bot.engine.silence import silence
    from bot.rules.loader import load_rules

    rules = [r for r in load_rules([], include_bundled=True) if r.enabled]
    lines = ["# a note that goes on"] * 20000 + ["python3 -m verl.trainer.main_ppo \\"]
    lines += [f"    actor_rollout_ref.role{i}.megatron.use_mbridge=False \\" for i in range(1000)]
    data = ("\n".join([*lines, "    trainer.total_epochs=1", "# followup-bot: ignore[another-rule]"]) + "\n").encode()
    for kind in (None, "shell"):  # the text's own rule, and the shell's comments
        findings = read_findings("run.sh", data, rules)
        assert len(findings) == 1000
        start = time.perf_counter()
        assert silence(findings, data, None, kind) == [] if kind else silence(findings, data) == []
        assert time.perf_counter() - start < 4  # each finding once walked the 20,000 lines above the launch: 17 s


def test_a_baseline_nested_too_deeply_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": f"python3 -m verl.trainer.main_ppo {KEY}=False\n"})
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code = main(["run", "--repo", str(repo), "--dry-run", "--no-cache", "--baseline", str(deep)])
    _, err = capsys.readouterr()
    assert code == 2
    assert str(deep) in err and "nested too deeply" in err and "internal error" not in err


def test_a_real_comment_where_the_shell_parser_fails_still_silences(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    script = f"""\
STEPS=$(( 1 + ))
{IGNORE}
python3 -m verl.trainer.main_ppo {KEY}=False
"""
    repo = make_repo(tmp_path / "r", {"run.sh": script})
    data = bundled(capsys, repo)
    assert [f["line"] for f in data["suppressed"]] == [3]
