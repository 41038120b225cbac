"""Issue 20, second step: the root config through remote functions, actor methods and classes handed
around as values; checks through local names, call guards, `else:` of a `.get`, `a // b > 0`; checks
moved or beside others; keys that follow a checked key; `bot infer --output` fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.upstream.infer import Inference, infer
from tests.conftest import git, make_repo

YAML = "data:\n  batch: 8\nside:\n  n: 4\n  m: 2\n  flag: false\n  profile:\n    start: 0\n"
ENTRY = '''\
import hydra
import ray
from pkg.work import Runner


@hydra.main(config_path="config", config_name="app", version_base=None)
def main(config):
    ray.get(task.remote(config))


@ray.remote
def task(config):
    runner = Runner.options(num_cpus=1).remote()
    ray.get(runner.run.remote(config.side))
'''
WORK = '''\
from typing import Optional


class Profiler:
    def __init__(self, config):
        self.config = config
{profiler}

@ray.remote
class Runner:
    def run(self, side):
        self.side = side
        self.prof = Profiler(self.side.profile)
{runner}
'''


def _change(tmp_path: Path, files: dict[str, Any], after: dict[str, Any]) -> Inference:
    repo = make_repo(tmp_path / "r", files)
    before = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in after.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")
    return infer(repo, before, git(repo, "rev-parse", "HEAD").strip(), [])


def _app(profiler: str = "        pass", runner: str = "        pass") -> dict[str, Any]:
    return {"pkg/main.py": ENTRY, "pkg/work.py": WORK.format(profiler=profiler, runner=runner),
            "pkg/config/app.yaml": YAML}


def _keys(inference: Inference) -> dict[str, list[str]]:
    return {f"{p.check.field}:{p.check.kind}": p.keys for p in inference.proposals}


def test_the_root_config_reaches_a_remote_function_an_actor_method_and_a_class_built_there(tmp_path: Path) -> None:
    profiler = "        assert self.config.start >= 0, 'start'\n"
    runner = "        assert self.side.n // self.side.m > 0, 'n holds m'\n"
    inference = _change(tmp_path, _app(), _app(profiler=profiler, runner=runner))
    assert _keys(inference) == {"start:bound": ["side.profile.start"], "n:relation": ["side.n"]}
    relation = next(p for p in inference.proposals if p.check.field == "n").rule["relation"]
    assert relation == {"left": ["side.n"], "op": ">=", "right": "m"}


def test_a_class_from_a_registry_function_and_a_local_name_read_as_the_field(tmp_path: Path) -> None:
    trainers = '''\
from typing import Optional


class Base:
    pass


class Async(Base):
    def __init__(self, config: "Optional[Settings]" = None):
        beta = config.side.n
{check}

def trainer_class(name) -> type[Base]:
    return REGISTRY[name]


class Settings:
    pass
'''
    entry = ("import hydra\nfrom pkg.trainers import trainer_class\n\n\n@hydra.main(config_path='config', "
             "config_name='app', version_base=None)\ndef main(config):\n    cls = trainer_class(config.data.kind)\n"
             "    cls(config=config)\n")
    check = "        if beta is None or beta <= 0:\n            raise ValueError('n must be positive')\n"
    before = {"pkg/main.py": entry, "pkg/trainers.py": trainers.format(check="        pass\n"),
              "pkg/config/app.yaml": YAML}
    inference = _change(tmp_path, before, {"pkg/trainers.py": trainers.format(check=check)})
    assert _keys(inference) == {"n:not_none": ["side.n"], "n:bound": ["side.n"]}


def test_a_call_guard_is_kept_as_text_and_lowers_confidence_and_an_else_of_a_get_reads(tmp_path: Path) -> None:
    runner = ("        if needs_flag(side):\n            assert self.side.flag, 'flag'\n"
              "        if self.side.get('m', None):\n            pass\n        else:\n"
              "            assert self.side.get('n', None) is not None\n")
    inference = _change(tmp_path, _app(), _app(runner=runner))
    by_field = {p.check.field: p for p in inference.proposals}
    flag = by_field["flag"]
    assert flag.keys == ["side.flag"] and flag.confidence == "low" and "when" not in flag.rule
    assert "only when `needs_flag(side)`" in flag.rule["description"]
    assert by_field["n"].keys == ["side.n"] and by_field["n"].rule["when"] == {"value": {"side.m": False}}


def test_a_new_kind_of_check_beside_an_old_one_is_new_and_a_moved_check_is_not(tmp_path: Path) -> None:
    old = "        assert self.side.n % self.side.m == 0\n"
    inference = _change(tmp_path, _app(runner=old), _app(runner=old + "        assert self.side.n > 0\n"))
    assert _keys(inference) == {"n:bound": ["side.n"]}
    # the same check moved from the runner into a helper reading the node by key: nothing
    helper = "\n\ndef helper(side):\n    assert side.get('n', 8) == 0\n"
    moved = _app(runner="        n = self.side['n']\n        if self.side.flag:\n            assert n == 0\n")
    after = _app(runner="        helper(self.side)\n")
    after["pkg/work.py"] += helper
    assert _change(tmp_path / "b", moved, after).proposals == []


def test_a_check_moved_into_the_config_class_that_also_holds_other_nodes_is_moved(tmp_path: Path) -> None:
    entry = ("import hydra\nfrom pkg.cfg import Checker\n\n\n@hydra.main(config_path='config', config_name='app', "
             "version_base=None)\ndef main(config):\n    Checker(config.side)\n")
    config = ("class SideConfig:\n    def __post_init__(self):\n{body}\n\nclass Checker:\n"
              "    def __init__(self, side):\n        self.side = side\n{checker}")
    check = "        if {holder}.n == 3:\n            raise ValueError('no 3')\n"
    yaml = YAML.replace("side:\n", "side:\n  _target_: pkg.cfg.SideConfig\n") + (
        "other:\n  _target_: pkg.cfg.SideConfig\n  n: 1\n")
    before = {"pkg/main.py": entry, "pkg/config/app.yaml": yaml,
              "pkg/cfg.py": config.format(body="        pass\n", checker=check.format(holder="self.side"))}
    after = {"pkg/cfg.py": config.format(body=check.format(holder="self"), checker="")}
    inference = _change(tmp_path, before, after)
    assert inference.proposals == [] and inference.unchanged == 1


ENGINE = ("class EngineConfig:\n    pass\n\n\nclass Engine:\n    def __init__(self, engine_config: EngineConfig):\n"
          "        self.engine_config = engine_config\n{body}")
ENGINE_YAML = ("actor:\n  engine:\n    _target_: pkg.EngineConfig\n    bridge: false\n"
               "judge:\n  engine:\n    bridge: ${oc.select:actor.engine.bridge,False}\n")


@pytest.fixture
def engine_change(tmp_path: Path) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path / "r", {"pkg/engine.py": ENGINE.format(body=""), "pkg/c.yaml": ENGINE_YAML})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/engine.py").write_text(ENGINE.format(body="        assert self.engine_config.bridge\n"))
    git(repo, "commit", "-qam", "assert bridge")
    return repo, before, git(repo, "rev-parse", "HEAD").strip()


def test_a_key_that_follows_a_checked_key_by_interpolation_is_set_alike(engine_change: tuple[Path, str, str]) -> None:
    repo, before, after = engine_change
    (proposal,) = infer(repo, before, after, []).proposals
    assert proposal.keys == ["actor.engine.bridge", "judge.engine.bridge"]
    assert "`judge.engine.bridge` take their value from a checked key" in proposal.rule["description"]


def test_infer_output_writes_each_rule_with_a_fixture_that_rules_test_passes(
        tmp_path: Path, engine_change: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, before, after = engine_change
    out = tmp_path / "inferred"
    assert main(["infer", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled",
                 "--output", str(out)]) == 0
    assert "the rule passes it" in capsys.readouterr().out
    cases = out / "inferred-bridge"
    assert (cases / "inferred.before.sh").read_text() == ("python3 -m app.main \\\n    actor.engine.bridge=False \\\n"
                                                          "    judge.engine.bridge=False\n")
    assert (cases / "inferred.after.sh").read_text().count("=True") == 2
    assert (cases / "inferred.findings.txt").read_text() == "2 fixable\n3 fixable\n"
    assert main(["rules", "test", "--no-bundled", "--rules", str(out), "--tests", str(out)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
