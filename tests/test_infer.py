"""Rules inferred from validation code an upstream change adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.scan import scan
from bot.rules.loader import load_rules
from bot.upstream.checks import Check, checks_in
from bot.upstream.infer import compare
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
    report = scan(repo, [rule], paths={"examples/run.sh"})
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
    out = capsys.readouterr().out
    assert "confidence" not in out and "1 check(s) that moved or stayed the same" in out


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


def _one(code: str) -> list[Check]:
    body = "\n".join("        " + line for line in code.splitlines())
    source = f"class Worker:\n    def __init__(self, config: EngineConfig):\n{body}\n"
    return checks_in(source, "w.py")[0]


@pytest.mark.parametrize(
    ("code", "kind", "values", "guard"),
    [
        ("assert self.config.use_mbridge", "truthy", (), ""),
        ("if not self.config.use_mbridge:\n    raise ValueError('use_mbridge must be True')", "truthy", (), ""),
        ("assert not self.config.use_remove_padding", "falsy", (), ""),
        ("assert self.config.strategy == 'megatron'", "equals", ("megatron",), ""),
        ("if self.config.strategy != 'megatron':\n    raise RuntimeError('x')", "equals", ("megatron",), ""),
        ("assert self.config.name != 'legacy'", "not_equals", ("legacy",), ""),
        ("assert self.config.mode in ('sync', 'async')", "in", ("sync", "async"), ""),
        ("assert self.config.path is not None", "not_none", (), ""),
        ("if self.config.path is None:\n    raise ValueError('path')", "not_none", (), ""),
        ("assert self.config.tp > 0", "bound", (">", 0), ""),
        ("if self.config.tp <= 0:\n    raise ValueError('tp')", "bound", (">", 0), ""),
        ("assert self.config.mini >= self.config.micro", "relation", (">=", "self.config.micro"), ""),
        ("assert self.config.mini % self.config.micro == 0", "relation", ("multiple_of", "self.config.micro"), ""),
        ("if self.config.strategy == 'megatron':\n    assert self.config.use_mbridge", "truthy", (),
         "self.config.strategy == 'megatron'"),
        ("if not self.config.enable:\n    return\nassert self.config.use_mbridge", "truthy", (),
         "not (not self.config.enable)"),
    ],
)
def test_each_constraint_kind_is_read(code: str, kind: str, values: tuple[object, ...], guard: str) -> None:
    checks = [c for c in _one(code) if c.field not in ("strategy", "enable") or kind != "truthy"]
    (check,) = checks
    assert (check.kind, check.values, check.guard) == (kind, values, guard)


def test_an_unreadable_check_is_reported_not_guessed() -> None:
    source = ("class Worker:\n    def __init__(self, config: EngineConfig):\n"
              "        assert valid_layout(self.config.layout), 'layout must be valid'\n")
    checks, _, unread = checks_in(source, "w.py")
    assert checks == []
    (item,) = unread
    assert item.line == 3 and "not understood" in item.describe() and "layout must be valid" in item.describe()


def test_loosened_and_stricter_checks_are_told_apart() -> None:
    (eq,) = _one("assert self.config.mode == 'sync'")
    (wide,) = _one("assert self.config.mode in ('sync', 'async')")
    assert compare(wide, [eq]) == "looser"
    assert compare(eq, [wide]) == "stricter"
    (low,) = _one("assert self.config.tp > 0")
    (high,) = _one("assert self.config.tp > 1")
    assert compare(high, [low]) == "stricter" and compare(low, [high]) == "looser"
    assert compare(eq, []) == "new"


def test_a_loosened_check_yields_no_rule(history: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _, after = history
    loose = ENGINE.format(check="        assert self.engine_config.use_mbridge in (True, False)\n")
    (repo / "verl/workers/engine/megatron.py").write_text(loose)
    git(repo, "commit", "-qam", "loosen")
    head = git(repo, "rev-parse", "HEAD").strip()
    assert main(["infer", "--repo", str(repo), "--before", after, "--after", head, "--no-bundled"]) == 0
    out = capsys.readouterr().out
    assert "confidence" not in out and "1 that were loosened" in out


def test_relations_and_bounds_become_relation_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"verl/workers/engine/megatron.py": ENGINE.format(check=""),
                                       "verl/trainer/config/ppo_megatron_trainer.yaml": YAML,
                                       "examples/run.sh": "python3 -m verl.trainer.main_ppo "
                                       "critic.megatron.mini=6 critic.megatron.micro=4\n"})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "verl/workers/engine/megatron.py").write_text(ENGINE.format(
        check="        assert self.engine_config.mini % self.engine_config.micro == 0\n"))
    git(repo, "commit", "-qam", "divisible")
    after = git(repo, "rev-parse", "HEAD").strip()
    out_dir = tmp_path / "out"
    assert main(["infer", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled",
                 "--output", str(out_dir)]) == 0
    assert "confidence: low" in capsys.readouterr().out
    (rule,) = load_rules([out_dir], include_bundled=False, enable=["inferred-mini-relation"])
    report = scan(repo, [rule], paths={"examples/run.sh"})
    (finding,) = report.findings
    assert finding.status.value == "manual" and "must be a multiple of critic.megatron.micro=4" in finding.message


def test_suggestions_and_unread_checks_go_into_the_pr_body() -> None:
    from bot.model import Report
    from bot.publish.body import Identity, body, code, plain
    from bot.publish.describe import Context
    from bot.publish.template import sections

    report = Report(repo="verl-project/verl", commit="abc", rules=[])
    notes = ["Suggested rule (not applied): w.py:3: `assert self.config.tp > 0` suggests rule inferred-tp-relation",
             "Validation changed upstream, not understood: w.py:9: `assert ok(self.config.x)`",
             "w.py:12: `assert self.config.lo < self.config.hi` suggests rule r; see [docs](http://x.invalid) @dev"]
    ctx = Context(load_rules(), report, [], "bot run", code, plain, notes=notes)
    text = body(ctx, Identity(("megatron-use-mbridge",), None, "f"), sections(None))
    assert "Also noticed in the upstream change:" in text
    assert "inferred-tp-relation" in text and "not understood" in text
    assert "`assert self.config.lo < self.config.hi`" in text  # in a code span `<` stays itself
    assert "[docs](http" not in text and "@dev" not in text  # prose around it cannot link or mention


def test_two_checks_on_fields_of_one_name_make_rules_with_distinct_ids(tmp_path: Path) -> None:
    from bot.upstream.infer import infer

    two = ENGINE.replace("class MegatronEngine:", "class CriticEngine:\n    def __init__(self, engine_config: "
                         "McoreEngineConfig):\n        self.engine_config = engine_config\n{second}\n\n"
                         "class MegatronEngine:")
    repo = make_repo(tmp_path / "r", {"verl/workers/engine/megatron.py": two.format(check="", second=""),
                                       "verl/trainer/config/ppo_megatron_trainer.yaml": YAML})
    before = git(repo, "rev-parse", "HEAD").strip()
    second = "        assert self.engine_config.use_mbridge in (True, None)"
    (repo / "verl/workers/engine/megatron.py").write_text(two.format(check=CHECK, second=second))
    git(repo, "commit", "-qam", "Two checks of use_mbridge")
    after = git(repo, "rev-parse", "HEAD").strip()
    ids = [p.rule["id"] for p in infer(repo, before, after, []).proposals]
    assert len(ids) == 2 and len(set(ids)) == 2 and ids[1] == f"{ids[0]}-2", ids
