"""Rules inferred from validation code an upstream change adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.engine import scan
from bot.rules.loader import load_rules
from tests.conftest import git, make_repo

ENGINE = '''\
from verl.workers.config import McoreEngineConfig


class MegatronEngine:
    def __init__(self, engine_config: McoreEngineConfig):
        self.engine_config = engine_config
{check}
'''
CHECK = '        assert self.engine_config.use_mbridge, "use_mbridge must be True"\n'
YAML = """\
actor_rollout_ref:
  actor:
    megatron:
      _target_: verl.workers.config.McoreEngineConfig
      use_mbridge: false
  ref:
    megatron:
      _target_: verl.workers.config.McoreEngineConfig
      use_mbridge: false
critic:
  megatron:
    _target_: verl.workers.config.McoreEngineConfig
    use_mbridge: false
"""
SCRIPT = """\
USE=${USE:-False}
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False \\
    critic.megatron.use_mbridge=$USE
"""


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path / "r", {"verl/workers/engine/megatron.py": ENGINE.format(check=""),
                                       "verl/trainer/config/ppo_megatron_trainer.yaml": YAML,
                                       "examples/run.sh": SCRIPT})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "verl/workers/engine/megatron.py").write_text(ENGINE.format(check=CHECK))
    git(repo, "commit", "-qam", "Assert use_mbridge (#4530)")
    return repo, before, git(repo, "rev-parse", "HEAD").strip()


def test_a_new_assert_becomes_a_rule_that_fixes_the_scripts(history: tuple[Path, str, str], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    repo, before, after = history
    out_dir = tmp_path / "inferred"
    code = main(["infer", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled",
                 "--output", str(out_dir)])
    printed = capsys.readouterr().out
    assert code == 0 and "confidence: high" in printed and "use_mbridge must be True" in printed
    (rule,) = load_rules([out_dir], include_bundled=False)
    assert {g.pattern for g in rule.match_key} == {"actor_rollout_ref.actor.megatron.use_mbridge",
                                                  "actor_rollout_ref.ref.megatron.use_mbridge",
                                                  "critic.megatron.use_mbridge"}
    report = scan(repo, [rule])
    assert sorted(f.line for f in report.findings) == [2, 3]
    (change,) = report.changes
    assert b"USE=${USE:-True}" in change.after and b"actor.megatron.use_mbridge=True" in change.after


def test_an_inferred_rule_equivalent_to_a_bundled_one_is_not_proposed(history: tuple[Path, str, str],
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    repo, before, after = history
    assert main(["infer", "--repo", str(repo), "--before", before, "--after", after]) == 0
    printed = capsys.readouterr().out
    assert "already covered by megatron-use-mbridge" in printed and "confidence" not in printed


def test_a_moved_check_proposes_nothing(history: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _, after = history
    moved = ENGINE.format(check="").replace("        self.engine_config = engine_config\n",
                                            "        self.engine_config = engine_config\n        self.x = 1\n" + CHECK)
    (repo / "verl/workers/engine/megatron.py").write_text(moved)
    git(repo, "commit", "-qam", "move the check")
    head = git(repo, "rev-parse", "HEAD").strip()
    assert main(["infer", "--repo", str(repo), "--before", after, "--after", head, "--no-bundled"]) == 0
    assert capsys.readouterr().out == ""


def test_a_check_in_the_config_dataclass_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = ("from dataclasses import dataclass\n\n\n@dataclass\nclass McoreEngineConfig:\n"
              "    use_mbridge: bool = True\n\n    def __post_init__(self):\n{check}")
    repo = make_repo(tmp_path / "r", {"verl/workers/config/engine.py": config.format(check="        pass\n"),
                                       "verl/trainer/config/sft.yaml": YAML})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "verl/workers/config/engine.py").write_text(config.format(
        check="        if not self.use_mbridge:\n            raise ValueError('use_mbridge must be True')\n"))
    git(repo, "commit", "-qam", "validate")
    after = git(repo, "rev-parse", "HEAD").strip()
    assert main(["infer", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled"]) == 0
    out = capsys.readouterr().out
    assert "critic.megatron.use_mbridge" in out and "set: true" in out
