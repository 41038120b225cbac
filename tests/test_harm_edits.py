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
