"""A migration read from what an upstream change did to its apps' composed configs (issue 42, item 2):
bot.upstream.key_changes on the composed data, bot.upstream.config_migration over a real repository with a Hydra
app, and `bot watch` running the migration it reads (no rule given)."""

from __future__ import annotations

import json
from pathlib import Path

from bot.upstream.config_migration import read_migration
from bot.upstream.key_changes import DEPRECATED, MOVED, REMOVED, REQUIRED, key_changes
from bot.upstream.migration_rule import HIGH
from tests.conftest import git, make_repo


def kinds(before: dict, after: dict, deprecated: set[str] = frozenset()) -> set[tuple]:  # type: ignore[assignment]
    return {(c.kind, c.old, c.new, c.subtree) for c in key_changes(before, after, deprecated)}


def test_a_key_whose_value_went_to_one_new_key_of_its_name_moved_there() -> None:
    before = {"model": {"path": "m", "lora_rank": 8}, "train": {"epochs": 3}}
    after = {"model": {"path": "m", "adapter": {"size": 8, "alpha": 16}}, "train": {"epochs": 3}}
    assert kinds(before, after) == {(REMOVED, "model.lora_rank", None, False)}  # another name: not a move
    after = {"model": {"path": "m", "lora": {"rank": 16, "alpha": 16}}, "train": {"epochs": 3}}
    assert kinds(before, after) == {(MOVED, "model.lora_rank", "model.lora.rank", False)}  # its words, a section
    after = {"model": {"path": "m"}, "adapter": {"lora_rank": 8}, "train": {"epochs": 3}}
    assert kinds(before, after) == {(MOVED, "model.lora_rank", "adapter.lora_rank", False)}


def test_a_renamed_key_beside_its_old_place_holding_its_value_moved_there() -> None:
    before = {"optim": {"lr": 0.1, "warmup": "cosine"}}
    after = {"optim": {"lr": 0.1, "schedule": "cosine"}}
    assert kinds(before, after) == {(MOVED, "optim.warmup", "optim.schedule", False)}


def test_a_section_gone_whose_copy_is_elsewhere_moved_whole() -> None:
    buffer = {"enable": False, "length": 4096, "penalty": 1.0}
    before = {"reward": {"overlong": dict(buffer), "kind": "rule"}}
    after = {"reward": {"kind": "rule", "kwargs": {"overlong": dict(buffer)}}}
    assert kinds(before, after) == {(MOVED, "reward.overlong", "reward.kwargs.overlong", True)}


def test_a_value_that_became_a_section_holding_it_moved_into_the_section() -> None:
    before = {"reward": {"manager": "naive"}}
    after = {"reward": {"manager": {"source": "register", "name": "naive"}}}
    assert kinds(before, after) == {(MOVED, "reward.manager", "reward.manager.name", False)}


def test_a_section_removed_key_by_key_is_one_removal() -> None:
    before = {"engine": {"offload": {"grad": False, "param": True}, "steps": 2}}
    after = {"engine": {"steps": 2}}
    assert kinds(before, after) == {(REMOVED, "engine.offload", None, True)}


def test_a_default_made_mandatory_is_required_with_its_old_value() -> None:
    (change,) = key_changes({"rollout": {"name": "vllm"}}, {"rollout": {"name": "???"}})
    assert (change.kind, change.old, change.value) == (REQUIRED, "rollout.name", "vllm")


def test_a_deprecated_key_moves_to_the_new_key_that_holds_its_value_or_goes() -> None:
    before = {"optim": {"warmup_style": "constant"}, "data": {"val_batch_size": 64}}
    after = {"optim": {"warmup_style": None, "lr_scheduler_type": "constant"}, "data": {"val_batch_size": None}}
    assert kinds(before, after, {"warmup_style", "val_batch_size"}) == {
        (DEPRECATED, "optim.warmup_style", "optim.lr_scheduler_type", False),
        (DEPRECATED, "data.val_batch_size", None, False)}
    assert kinds(before, after) == set()  # not marked deprecated: a default changed, no migration


def test_an_ordinary_change_has_no_key_change() -> None:
    before = {"train": {"epochs": 3, "lr": 0.1}, "log": ["console"]}
    after = {"train": {"epochs": 5, "lr": 0.1, "seed": 1}, "log": ["console", "wandb"], "eval": {"every": 10}}
    assert key_changes(before, after) == []


APP = """import hydra


@hydra.main(config_path="config", config_name="run", version_base=None)
def main(cfg):
    print(cfg.engine.steps, cfg.engine.get("grad_offload"))


if __name__ == "__main__":
    main()
"""
RUN = """defaults:
  - engine: alpha
  - _self_
optim:
  lr: 0.1
  warmup: cosine
reward:
  manager: naive
rollout:
  name: vllm
data:
  val_batch: 8
actor:
  profiler:
    ranks: []
    discrete: false
ref:
  profiler:
    ranks: []
    discrete: false
log:
  every: 10
"""
AFTER_RUN = """defaults:
  - engine: alpha
  - _self_
optim:
  lr: 0.1
  schedule: cosine
reward:
  manager:
    source: register
    name: naive
rollout:
  name: ???
data:
  val_batch: null  # deprecated: validation runs as one batch
profiler:
  ranks: []
  discrete: false
log: {}
evaluation:
  every: 5
"""
SCRIPT = """#!/bin/bash
python3 -m trainer.main optim.warmup=linear reward.manager=prime \\
    engine.grad_offload=True engine.steps=4 data.val_batch=16 \\
    actor.profiler.ranks=[0] ref.profiler.ranks=[1]
python3 -m trainer.main rollout.name=sglang
"""


def _repository(tmp_path: Path) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path / "repo", {
        "trainer/__init__.py": "", "trainer/main.py": APP, "trainer/config/run.yaml": RUN,
        "trainer/config/engine/alpha.yaml": "steps: 2\ngrad_offload: false\n",
        "scripts/train.sh": SCRIPT})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "trainer/config/run.yaml").write_text(AFTER_RUN)
    (repo / "trainer/config/engine/alpha.yaml").write_text("steps: 2\n")
    (repo / "trainer/main.py").write_text(APP.replace(', cfg.engine.get("grad_offload")', ""))
    git(repo, "commit", "-qam", "Rework the config (#77)")
    return repo, before, git(repo, "rev-parse", "HEAD").strip()


def test_the_migration_read_from_a_config_change_and_its_confidence(tmp_path: Path) -> None:
    repo, before, after = _repository(tmp_path)
    paths = ["trainer/config/run.yaml", "trainer/config/engine/alpha.yaml", "trainer/main.py"]
    found = read_migration(repo, repo, before, after, paths, "#77")
    assert found.rule is not None and found.suggested is not None
    # two sections moved into one are moves too: the rules keep a value the launch sets alike in both once, and
    # leave a launch that sets them differently to a person (bot.rules.landing)
    assert found.rule["migration"] == {
        "moves": {"actor.profiler.**": "profiler.**", "optim.warmup": "optim.schedule",
                  "ref.profiler.**": "profiler.**", "reward.manager": "reward.manager.name"},
        "removals": [{"key": "data.val_batch", "value_not": [None]}, "engine.grad_offload"],
        "steps": [{"ensure": [{"key": "rollout.name", "value": "vllm"}], "when": {"config": ["run"]}}]}
    # a removed key whose name a new key carries may have gone there: a person tells
    assert found.suggested["migration"] == {"removals": ["log.every"]}
    confidence = {s.change.old: s.confidence for s in found.steps}
    assert confidence["engine.grad_offload"] == HIGH  # the change drops the Python that read it
    again = read_migration(repo, repo, before, after, paths, "#77")
    assert again.rule is not None and again.rule["id"] == found.rule["id"]  # the same change, the same id


def test_watch_runs_the_migration_it_reads_with_no_rule(tmp_path: Path) -> None:
    from bot.cli import main

    repo, before, after = _repository(tmp_path)
    out = tmp_path / "report.diff"
    code = main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
                 "--format", "diff", "--output", str(out)])
    assert code in (0, 1)
    diff = out.read_text()
    # moved, removed (engine.grad_offload, the deprecated data.val_batch), the required key given its old value;
    # the two profiler sections moved into one, set differently, are left to a person; a launch that sets
    # rollout.name is untouched
    assert diff.split("@@")[2] == """
 #!/bin/bash
-python3 -m trainer.main optim.warmup=linear reward.manager=prime \\
-    engine.grad_offload=True engine.steps=4 data.val_batch=16 \\
-    actor.profiler.ranks=[0] ref.profiler.ranks=[1]
+python3 -m trainer.main optim.schedule=linear reward.manager.name=prime engine.steps=4 \\
+    actor.profiler.ranks=[0] ref.profiler.ranks=[1] rollout.name=vllm
 python3 -m trainer.main rollout.name=sglang
"""
    report = tmp_path / "report.json"
    main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
          "--format", "json", "--output", str(report)])
    data = json.loads(report.read_text())
    rules = {f["rule"] for f in data["findings"]}
    assert any(r.startswith("inferred-config-") for r in rules)


def test_the_migrations_read_while_the_checks_are_read_make_the_same_rules(tmp_path: Path) -> None:
    """watch reads the change's migrations before it waits for the rules inferred from its checks (read on forked
    workers meanwhile): the rules they make are those read after, and a rule inferred first keeps its id."""
    from bot.upstream.change import read_change
    from bot.upstream.watching import migrated_rules, read_migrations

    repo, before, after = _repository(tmp_path)
    change = read_change(repo, before, after)
    early = read_migrations(repo, repo, change)
    assert early is not None and early.config.rule is not None
    made = []
    for read in (early, None):
        reasons: dict[str, str] = {}
        suggestions: list[str] = []
        unread: list[str] = []
        rules = migrated_rules(repo, repo, change, [], reasons, suggestions, unread, read=read)
        made.append(([r.id for r in rules], reasons, suggestions, unread))
    assert made[0] == made[1] and made[0][0]


def test_the_migration_applied_once_changes_nothing_more(tmp_path: Path) -> None:
    from bot.cli import main

    repo, before, after = _repository(tmp_path)
    first = tmp_path / "first.diff"
    main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
          "--format", "diff", "--output", str(first)])
    git(repo, "apply", str(first))
    git(repo, "commit", "-qam", "the follow-up, applied")
    again = tmp_path / "again.diff"
    main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
          "--format", "diff", "--output", str(again)])
    assert again.read_text().strip() == ""


def test_infer_prints_the_migration_and_writes_it_for_adoption(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from bot.cli import main
    from bot.rules.loader import load_rule_file

    repo, before, after = _repository(tmp_path)
    rules = tmp_path / "rules"
    assert main(["infer", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled",
                 "--output", str(rules)]) == 0
    printed = capsys.readouterr().out
    assert "# confidence: high\nformat: 2\nid: inferred-config-" in printed
    assert "# confidence: low\nformat: 2\n" in printed  # log.every, suggested
    written = sorted(rules.glob("*.yaml"))
    assert len(written) == 2
    adopted = [load_rule_file(path) for path in written]
    assert sorted(r.enabled for r in adopted) == [False, True]  # the low one is written disabled


def test_a_key_the_change_renames_in_its_own_launches_moves_in_the_others(tmp_path: Path) -> None:
    """`model.lora_rank` is gone and `model.adapter.rank` is new (another name: the config alone says removed); the
    change's own script sets the new key where it set the old: a move, carried to the launch it did not edit. The
    Python that read the old key is dropped too, which alone would have made it a removal."""
    from bot.cli import main

    app = APP.replace('cfg.engine.get("grad_offload")', "cfg.model.lora_rank")
    repo = make_repo(tmp_path / "repo", {
        "trainer/__init__.py": "", "trainer/main.py": app,
        "trainer/config/run.yaml": "defaults:\n  - engine: alpha\n  - _self_\nmodel:\n  lora_rank: 0\n",
        "trainer/config/engine/alpha.yaml": "steps: 2\n",
        "examples/own.sh": "python3 -m trainer.main model.lora_rank=16\n",
        "examples/other.sh": "python3 -m trainer.main model.lora_rank=32 engine.steps=3\n"})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "trainer/config/run.yaml").write_text(
        "defaults:\n  - engine: alpha\n  - _self_\nmodel:\n  adapter:\n    rank: 0\n    alpha: 16\n")
    (repo / "trainer/main.py").write_text(app.replace("cfg.model.lora_rank", "cfg.model.adapter.rank"))
    (repo / "examples/own.sh").write_text("python3 -m trainer.main model.adapter.rank=16\n")
    git(repo, "commit", "-qam", "LoRA settings get their own section")
    after = git(repo, "rev-parse", "HEAD").strip()
    paths = ["trainer/config/run.yaml", "trainer/main.py", "examples/own.sh"]
    found = read_migration(repo, repo, before, after, paths)
    assert found.rule is not None and found.rule["migration"] == {"moves": {"model.lora_rank": "model.adapter.rank"}}
    out = tmp_path / "report.diff"
    main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
          "--format", "diff", "--output", str(out)])
    assert "+python3 -m trainer.main model.adapter.rank=32 engine.steps=3\n" in out.read_text()


def test_a_key_gone_from_one_app_but_kept_by_another_is_only_suggested(tmp_path: Path) -> None:
    app = APP.replace('cfg.engine.steps, cfg.engine.get("grad_offload")', "cfg.offload")
    repo = make_repo(tmp_path / "repo", {
        "trainer/__init__.py": "", "trainer/main.py": app,
        "trainer/config/run.yaml": "offload:\n  grad: false\n  param: false\n",
        "trainer/config/big.yaml": "offload:\n  grad: false\n  param: true\n",
        "run.sh": ("python3 -m trainer.main offload.grad=true\n"
                   "python3 -m trainer.main --config-name big offload.grad=true\n")})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "trainer/config/run.yaml").write_text("offload:\n  param: false\n")
    git(repo, "commit", "-qam", "the small config offloads no gradients")
    after = git(repo, "rev-parse", "HEAD").strip()
    found = read_migration(repo, repo, before, after, ["trainer/config/run.yaml"])
    assert found.rule is None  # removing it would drop a setting the `big` config still takes
    assert found.suggested is not None and found.suggested["migration"] == {"removals": ["offload.grad"]}
