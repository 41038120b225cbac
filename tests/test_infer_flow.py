"""Issue 20: stricter checks per field, Hydra paths along the data flow, the shapes real repositories use."""

from __future__ import annotations

from pathlib import Path

from bot.upstream.infer import Inference, infer
from tests.conftest import git, make_repo

APP = '''\
import hydra
import ray

from pkg.single import RayClassWithInitArgs
from pkg.workers import Worker, Role


@hydra.main(config_path="config", config_name="app", version_base=None)
def main(config):
    Trainer(config=config).fit()


class Trainer:
    def __init__(self, config):
        self.config = config
        self.mapping = {{Role.Actor: ray.remote(Worker)}}

    def fit(self):
        self._check()
        group = RayClassWithInitArgs(cls=self.mapping[Role.Actor], config=self.config.model_side, role="actor")
{trainer}
    def _check(self):
        config = self.config
{helper}
'''
WORKER = '''\
class Role:
    Actor = 1


class Worker:
    def __init__(self, config, role):
        self.config = config
        self.dataloader = []
{worker}
'''
YAML = "data:\n  batch: 8\nmodel_side:\n  actor:\n    mini: 4\n"


def _change(tmp_path: Path, files: dict[str, str], after: dict[str, str]) -> Inference:
    repo = make_repo(tmp_path / "r", files)
    before = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in after.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")
    return infer(repo, before, git(repo, "rev-parse", "HEAD").strip(), [])


def _app(trainer: str = "", helper: str = "        pass", worker: str = "") -> dict[str, str]:
    return {"pkg/main.py": APP.format(trainer=trainer, helper=helper), "pkg/single.py": "class RayClassWithInitArgs:\n"
            "    def __init__(self, cls, *args, **kwargs):\n        self.cls = cls\n",
            "pkg/workers.py": WORKER.format(worker=worker), "pkg/config/app.yaml": YAML}


def test_the_untyped_root_config_reaches_a_ray_worker_through_a_role_map(tmp_path: Path) -> None:
    inference = _change(tmp_path, _app(), _app(worker="        assert self.config.actor.mini > 0\n"))
    (proposal,) = inference.proposals
    assert proposal.keys == ["model_side.actor.mini"]
    assert proposal.rule["relation"] == {"left": ["model_side.actor.mini"], "op": ">", "value": 0}
    assert "model_side" in proposal.rule["description"]


def test_a_check_across_sections_in_a_helper_relates_two_full_keys(tmp_path: Path) -> None:
    check = "        assert config.data.batch >= config.model_side.actor.mini, 'batch too small'"
    inference = _change(tmp_path, _app(), _app(helper=check))
    (proposal,) = inference.proposals
    assert proposal.rule["relation"] == {"left": ["data.batch"], "op": ">=", "right": "model_side.actor.mini"}


def test_runtime_objects_and_tests_are_skipped_silently(tmp_path: Path) -> None:
    after = _app(worker="        assert len(self.dataloader) >= 1\n")
    after["tests/test_worker.py"] = "def test_x(config):\n    assert config.actor.mini > 0\n"
    inference = _change(tmp_path, _app(), after)
    assert inference.proposals == [] and inference.not_understood == []


def test_removing_a_guard_is_stricter_and_says_what_was_rejected_before(tmp_path: Path) -> None:
    engine = ("class EngineConfig:\n    pass\n\n\nclass Engine:\n    def __init__(self, engine_config: EngineConfig):\n"
              "        self.engine_config = engine_config\n{body}")
    yaml = "actor:\n  engine:\n    _target_: pkg.EngineConfig\n    use_bridge: false\n"
    guarded = "        if self.dtype == 'fp16':\n            assert self.engine_config.use_bridge, 'fp16 needs it'\n"
    plain = "        assert self.engine_config.use_bridge, 'always needed'\n"
    inference = _change(tmp_path, {"pkg/engine.py": engine.format(body=guarded), "pkg/c.yaml": yaml},
                        {"pkg/engine.py": engine.format(body=plain)})
    (proposal,) = inference.proposals
    assert proposal.confidence == "high" and proposal.keys == ["actor.engine.use_bridge"]
    assert proposal.earlier is not None and "only when `self.dtype == 'fp16'`" in proposal.rule["description"]
    # putting the guard back is a loosening: nothing proposed
    repo = tmp_path / "r"
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/engine.py").write_text(engine.format(body=guarded))
    git(repo, "commit", "-qam", "guard again")
    again = infer(repo, head, git(repo, "rev-parse", "HEAD").strip(), [])
    assert again.proposals == [] and again.loosened == 1


def test_dataclass_shapes_implication_named_set_chained_bounds_and_nested_fields(tmp_path: Path) -> None:
    config = '''\
from dataclasses import dataclass, field

ALLOWED = ("tcp", "rdma")


@dataclass
class TransferConfig:
    backend: str = "a"
    protocol: str = "tcp"
    ratio: float = 0.5

    def __post_init__(self):
{body}

@dataclass
class RolloutConfig:
    transfer: TransferConfig = field(default_factory=TransferConfig)
'''
    body = ("        if self.backend == 'fast' and self.protocol not in ALLOWED:\n            raise ValueError('bad')\n"
            "        if not 0.0 < self.ratio <= 1.0:\n            raise ValueError(f'ratio {self.ratio}')\n")
    yaml = "rollout:\n  _target_: pkg.RolloutConfig\n  transfer:\n    backend: a\n"
    inference = _change(tmp_path, {"pkg/config.py": config.format(body="        pass\n"), "pkg/c.yaml": yaml},
                        {"pkg/config.py": config.format(body=body)})
    by_field = {(p.check.field, p.check.kind, p.check.values): p for p in inference.proposals}
    implied = by_field[("protocol", "in", ("tcp", "rdma"))]
    assert implied.keys == ["rollout.transfer.protocol"] and implied.check.guard == "self.backend == 'fast'"
    assert implied.rule["when"] == {"value": {"rollout.transfer.backend": "fast"}}
    assert ("ratio", "bound", (">", 0.0)) in by_field and ("ratio", "bound", ("<=", 1.0)) in by_field


def test_a_check_moved_to_another_holder_of_the_same_node_proposes_nothing(tmp_path: Path) -> None:
    before = _app(worker="        assert self.config.actor.mini > 0\n")
    after = _app(helper="        assert config.model_side.actor.mini > 0")
    inference = _change(tmp_path, before, after)
    assert inference.proposals == [] and inference.unchanged == 1
