"""compose-check: every launch composed with hydra-core against the repository's own config tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.scan import compose_scan
from bot.model import Status
from tests.conftest import make_repo

MAIN = '''\
import hydra


@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)
def main(config):
    run_ppo(config)
'''
TREE = {
    "verl/trainer/main_ppo.py": MAIN,
    "verl/trainer/config/ppo_trainer.yaml": """\
defaults:
  - actor@actor_rollout_ref.actor: dp_actor
  - _self_
trainer:
  total_epochs: 15
  val_before_train: true
  logger: [console]
actor_rollout_ref:
  model:
    path: ~/models/qwen
""",
    "verl/trainer/config/ppo_megatron_trainer.yaml": """\
defaults:
  - ppo_trainer
  - override actor@actor_rollout_ref.actor: megatron_actor
  - _self_
""",
    "verl/trainer/config/actor/dp_actor.yaml": "strategy: fsdp\noptim:\n  lr: 1e-6\n",
    "verl/trainer/config/actor/megatron_actor.yaml": "strategy: megatron\noptim:\n  lr: 1e-6\n"
                                                    "megatron:\n  use_mbridge: true\n  tensor_model_parallel_size: 1\n",
}
SCRIPT = """\
#!/bin/bash
LR=$1
python3 -m verl.trainer.main_ppo \\
    +trainer.val_before_train=False \\
    trainer.nonexistent=1 \\
    actor_rollout_ref.actor.optim.lr=$LR \\
    +trainer.brand_new=1 \\
    ++trainer.total_epochs=2 $@
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \\
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \\
    actor_rollout_ref.actor=megatron_actor
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
python3 -m verl.trainer.missing_entry a=1
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "verl", {**TREE, "examples/run.sh": SCRIPT})


def test_compose_check_finds_what_hydra_would_reject(repo: Path) -> None:
    report, stats = compose_scan(repo)
    found = {(f.line, f.key): f for f in report.findings}
    assert set(found) == {(4, "trainer.val_before_train"), (5, "trainer.nonexistent"),
                          (12, "actor_rollout_ref.actor.megatron.tensor_model_parallel_size")}
    plus = found[(4, "trainer.val_before_train")]
    assert plus.status is Status.FIXABLE and "An item is already at 'trainer.val_before_train'" in plus.message
    unknown = found[(5, "trainer.nonexistent")]
    assert unknown.status is Status.MANUAL and "Could not override 'trainer.nonexistent'" in unknown.message
    assert stats.unresolved == [("examples/run.sh", 13, "module verl.trainer.missing_entry is not in the repository, "
                                                        "though its package verl is (moved or removed?)")]
    (change,) = report.changes
    assert b"    trainer.val_before_train=False \\\n" in change.after
    assert change.after.count(b"+") == change.before.count(b"+") - 1  # +brand_new and ++ stay


def test_compose_check_command_line_writes_the_verified_fix(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compose-check", "--repo", str(repo), "--format", "json", "--check", "--verbose"])
    out, err = capsys.readouterr()
    assert code == 1
    data = json.loads(out)
    assert {f["rule"] for f in data["findings"]} == {"hydra-compose"}
    assert "missing_entry" in err
    assert main(["compose-check", "--repo", str(repo), "--write"]) == 0
    capsys.readouterr()
    assert "    trainer.val_before_train=False \\\n" in (repo / "examples" / "run.sh").read_text()


def test_when_config_and_when_value_read_the_composed_config(repo: Path, tmp_path: Path) -> None:
    from bot.engine.scan import scan
    from bot.rules.loader import load_rules

    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "megatron-epochs.yaml").write_text(
        "id: megatron-epochs\nwhen: {config: [ppo_megatron_trainer]}\n"
        "match: {key: ['**.tensor_model_parallel_size'], value: [2]}\nfix: {set: 4}\n")
    (rules_dir / "megatron-strategy.yaml").write_text(
        "id: megatron-strategy\nwhen: {value: {actor_rollout_ref.actor.strategy: megatron}}\n"
        "match: {key: ['**.tensor_model_parallel_size'], value: [2]}\nfix: {set: 8}\n")
    script = """\
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \\
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
python3 -m verl.trainer.main_ppo actor@actor_rollout_ref.actor=megatron_actor \\
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
"""
    (repo / "examples" / "run.sh").write_text(script)
    (config_rule, value_rule) = sorted(load_rules([rules_dir], include_bundled=False), key=lambda r: r.id)
    by_config = scan(repo, [config_rule])
    assert [f.line for f in by_config.findings] == [3]  # only the launch that inherits ppo_megatron_trainer
    by_value = scan(repo, [value_rule])
    assert [f.line for f in by_value.findings] == [3, 5]  # strategy comes from the YAML, or from the override


def test_ensure_prefix_auto_follows_the_composed_config(repo: Path, tmp_path: Path) -> None:
    from bot.engine.scan import scan
    from bot.rules.loader import load_rules

    rules_dir = tmp_path / "auto"
    rules_dir.mkdir()
    (rules_dir / "auto-prefix.yaml").write_text(
        "id: auto-prefix\nwhen: {sets: ['trainer.**']}\nensure:\n"
        "  - {key: trainer.val_before_train, value: false, prefix: auto}\n"
        "  - {key: trainer.brand_new_flag, value: true, prefix: auto}\n")
    (repo / "examples" / "run.sh").write_text("python3 -m verl.trainer.main_ppo trainer.total_epochs=2\n")
    report = scan(repo, load_rules([rules_dir], include_bundled=False))
    (change,) = report.changes
    assert change.after == (b"python3 -m verl.trainer.main_ppo trainer.total_epochs=2 "
                            b"trainer.val_before_train=False +trainer.brand_new_flag=True\n")


def test_launches_sharing_an_array_but_needing_other_prefixes_get_their_own_lines(repo: Path, tmp_path: Path) -> None:
    """`prefix: auto` asks each launch's config: an array two launches spread is a place for the
    addition only when both need the same text."""
    from bot.engine.scan import scan
    from bot.rules.loader import load_rules

    rules_dir = tmp_path / "auto"
    rules_dir.mkdir()
    (rules_dir / "auto-padding.yaml").write_text(
        "id: auto-padding\nwhen: {sets: ['actor_rollout_ref.**']}\nensure:\n"
        "  - {key: actor_rollout_ref.actor.use_remove_padding, value: true, prefix: auto}\n")
    config = repo / "verl" / "trainer" / "config" / "actor" / "megatron_actor.yaml"
    config.write_text(config.read_text() + "use_remove_padding: false\n")
    (repo / "examples" / "run.sh").write_text(
        "common=(\n  actor_rollout_ref.actor.optim.lr=1e-5\n)\n"
        'python3 -m verl.trainer.main_ppo "${common[@]}" trainer.total_epochs=1\n'
        'python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer "${common[@]}" trainer.total_epochs=2\n')
    report = scan(repo, load_rules([rules_dir], include_bundled=False))
    assert [f.status for f in report.findings if f.path == "examples/run.sh"] == [Status.FIXABLE, Status.FIXABLE]
    (change,) = [c for c in report.changes if c.path == "examples/run.sh"]
    assert b"trainer.total_epochs=1 +actor_rollout_ref.actor.use_remove_padding=True" in change.after
    assert b"trainer.total_epochs=2 actor_rollout_ref.actor.use_remove_padding=True" in change.after


def test_a_key_renamed_by_a_commit_is_fixed_to_its_new_name(repo: Path) -> None:
    from tests.conftest import git

    actor = repo / "verl" / "trainer" / "config" / "actor" / "dp_actor.yaml"
    actor.write_text("strategy: fsdp\noptim:\n  lr: 1e-6\n  warmup_style: constant\n")
    (repo / "examples" / "run.sh").write_text(
        "python3 -m verl.trainer.main_ppo \\\n    actor_rollout_ref.actor.optim.warmup_style=cosine \\\n"
        "    actor_rollout_ref.actor.optim.bogus=1\n")
    git(repo, "commit", "-qam", "warmup_style")
    before = git(repo, "rev-parse", "HEAD").strip()
    actor.write_text("strategy: fsdp\noptim:\n  lr: 1e-6\n  lr_scheduler_type: constant\n")
    git(repo, "commit", "-qam", "rename warmup_style to lr_scheduler_type")

    plain, _ = compose_scan(repo)
    assert {f.status for f in plain.findings} == {Status.MANUAL}  # without history: just "Could not override"
    report, _ = compose_scan(repo, since=before)
    by_key = {f.key: f for f in report.findings}
    assert by_key["actor_rollout_ref.actor.optim.warmup_style"].status is Status.FIXABLE
    assert by_key["actor_rollout_ref.actor.optim.bogus"].status is Status.MANUAL
    (change,) = report.changes
    assert b"actor_rollout_ref.actor.optim.lr_scheduler_type=cosine" in change.after


def test_launches_are_checked_for_each_value_the_script_tests(repo: Path) -> None:
    script = """\
#!/bin/bash
STRATEGY=${STRATEGY:-fsdp}
if [ "$STRATEGY" = megatron ]; then echo "megatron run"; fi
python3 -m verl.trainer.main_ppo actor@actor_rollout_ref.actor=dp_actor \\
    actor_rollout_ref.actor.strategy=$STRATEGY \\
    trainer.total_epochs=$EPOCHS
case "$EPOCHS" in
  many) echo ;;
esac
"""
    (repo / "examples" / "run.sh").write_text(script)
    report, _ = compose_scan(repo)
    assert report.findings == []  # strategy is a plain string field; any tested value composes
    built = script.replace("actor_rollout_ref.actor.strategy=$STRATEGY", "actor_rollout_ref.actor.$STRATEGY=1")
    (repo / "examples" / "run.sh").write_text(built)
    (assembled,) = compose_scan(repo)[0].findings  # the key resolves to actor_rollout_ref.actor.fsdp
    assert assembled.line == 5 and "actor_rollout_ref.actor.fsdp" in assembled.message
    group = script.replace("actor@actor_rollout_ref.actor=dp_actor", "actor@actor_rollout_ref.actor=$ACTOR")
    group = group.replace('if [ "$STRATEGY" = megatron ]', 'if [ "$ACTOR" = no_such_actor ] || [ "$ACTOR" = dp_actor ]')
    (repo / "examples" / "run.sh").write_text(group)
    (finding,) = compose_scan(repo)[0].findings
    assert finding.key == "actor" and "(when ACTOR=no_such_actor" in finding.message


def test_bot_run_compose_adds_the_section(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--repo", str(repo), "--dry-run", "--compose", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert "hydra-compose" in {r["id"] for r in data["rules"]}
    assert {f["key"] for f in data["findings"] if f["rule"] == "hydra-compose"} >= {"trainer.nonexistent"}


def test_a_file_both_change_keeps_the_scans_fix_and_claims_no_compose_fix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    both = ("#!/bin/bash\npython3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \\\n"
            "    +trainer.val_before_train=False \\\n    actor_rollout_ref.actor.megatron.use_mbridge=False\n")
    root = make_repo(tmp_path / "verl", {**TREE, "examples/both.sh": both})
    main(["run", "--repo", str(root), "--write", "--compose", "--no-cache", "--format", "json"])
    status = {f["rule"]: f["status"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert status == {"megatron-use-mbridge": "fixed", "hydra-compose": "manual"}  # not "fixed": it was not made
    written = (root / "examples/both.sh").read_text()
    assert "use_mbridge=True" in written and "+trainer.val_before_train" in written
    (left,) = [f for f in compose_scan(root)[0].findings if f.key == "trainer.val_before_train"]
    assert left.status is Status.FIXABLE  # the next run makes it


def test_since_reports_only_what_the_config_change_broke(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Drift: the launches that composed with the config at SHA and fail with today's."""
    from tests.conftest import git

    (repo / "examples" / "run.sh").write_text(
        "python3 -m verl.trainer.main_ppo trainer.total_epochs=3 trainer.nonexistent=1 \\\n"
        "    actor_rollout_ref.model.path=/m\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "script")
    before = git(repo, "rev-parse", "HEAD").strip()
    config = repo / "verl" / "trainer" / "config" / "ppo_trainer.yaml"
    config.write_text(config.read_text().replace("  total_epochs: 15\n", "  epochs: 15\n"))
    git(repo, "commit", "-qam", "rename total_epochs to epochs")
    code = main(["compose-check", "--repo", str(repo), "--since", before, "--format", "json"])
    out, err = capsys.readouterr()
    (finding,) = json.loads(out)["findings"]
    assert code == 0 and finding["key"] == "trainer.total_epochs"  # trainer.nonexistent failed before too
    assert "1 failures that the config at" in err
    assert main(["compose-check", "--repo", str(repo), "--since=--output=/tmp/x"]) == 2  # never a git option
    assert "--since --output=/tmp/x: no such commit" in capsys.readouterr().err


def test_since_sees_what_a_change_to_config_and_scripts_together_broke(repo: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """One commit moves the launch to another config (already there) and keeps a key that config lacks:
    the script as it was composed, so this is drift and not a failure older than the change."""
    from tests.conftest import git

    (repo / "examples" / "run.sh").write_text("python3 -m verl.trainer.main_ppo trainer.total_epochs=3\n")
    (repo / "verl" / "trainer" / "config" / "lean.yaml").write_text("trainer:\n  epochs: 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "script")
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "examples" / "run.sh").write_text(
        "python3 -m verl.trainer.main_ppo --config-name=lean trainer.total_epochs=3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the script moved to the lean config")
    main(["compose-check", "--repo", str(repo), "--since", before, "--format", "json"])
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert finding["key"] == "trainer.total_epochs"


def test_launches_run_by_a_runner_without_the_word_python_are_composed(repo: Path) -> None:
    (repo / "examples" / "run.sh").unlink()
    (repo / "examples" / "multi_gpu.sh").write_text(
        "accelerate launch --num_processes 2 verl/trainer/main_ppo.py trainer.nonexistent=1\n"
        "deepspeed --num_gpus 2 verl/trainer/main_ppo.py trainer.total_epochs=2 trainer.missing=3\n")
    report, stats = compose_scan(repo)
    assert sorted((f.line, f.key) for f in report.findings) == [(1, "trainer.nonexistent"), (2, "trainer.missing")]
    assert stats.launches == 2


def test_options_of_hydras_own_groups_that_a_plugin_provides_do_not_fail_every_launch(repo: Path) -> None:
    config = repo / "verl" / "trainer" / "config" / "ppo_trainer.yaml"
    config.write_text(config.read_text().replace(
        "  - _self_\n", "  - _self_\n  - override hydra/job_logging: pretty_colours\n"
                        "  - override hydra/launcher: some_cluster\n", 1))
    report, stats = compose_scan(repo)
    assert {(f.line, f.key) for f in report.findings} == {
        (4, "trainer.val_before_train"), (5, "trainer.nonexistent"),
        (12, "actor_rollout_ref.actor.megatron.tensor_model_parallel_size")}  # as without the plugins
    assert stats.stand_ins == {"hydra/job_logging/pretty_colours", "hydra/launcher/some_cluster"}
    config.write_text(config.read_text().replace("  - override hydra/launcher: some_cluster\n",
                                                 "  - override missing_group: nothing\n"))
    report, _ = compose_scan(repo)
    assert report.findings and all("missing_group" in f.message for f in report.findings)  # still an error


def test_a_misspelt_option_of_a_hydra_group_the_repository_fills_itself_is_an_error(repo: Path) -> None:
    config_dir = repo / "verl" / "trainer" / "config"
    (config_dir / "hydra" / "job_logging").mkdir(parents=True)
    (config_dir / "hydra" / "job_logging" / "quiet.yaml").write_text("version: 1\n")
    config = config_dir / "ppo_trainer.yaml"
    misspelt = "  - _self_\n  - override hydra/job_logging: quite\n"
    config.write_text(config.read_text().replace("  - _self_\n", misspelt, 1))
    report, stats = compose_scan(repo)
    assert not stats.stand_ins
    assert report.findings and all("hydra/job_logging/quite" in f.message for f in report.findings)
    from hydra.core.config_store import ConfigStore

    assert "pretty_colours.yaml" not in ConfigStore.instance().repo.get("hydra", {}).get("job_logging", {})


def test_a_plugin_option_beside_the_repositorys_own_options_is_stood_in_and_a_misspelling_is_not(
        repo: Path) -> None:
    config_dir = repo / "verl" / "trainer" / "config"
    (config_dir / "hydra" / "launcher").mkdir(parents=True)
    (config_dir / "hydra" / "launcher" / "workstation.yaml").write_text("jobs: 1\n")
    config = config_dir / "ppo_trainer.yaml"
    original = config.read_text()
    config.write_text(original.replace("  - _self_\n", "  - _self_\n  - override hydra/launcher: submitit_slurm\n"))
    report, stats = compose_scan(repo)
    assert stats.stand_ins == {"hydra/launcher/submitit_slurm"}
    assert len(report.findings) == 3  # the launches' own failures, as without the plugin
    config.write_text(original.replace("  - _self_\n", "  - _self_\n  - override hydra/job_logging: disable\n"))
    report, stats = compose_scan(repo)
    assert not stats.stand_ins and all("hydra/job_logging/disable" in f.message for f in report.findings)


DOC = """\
# Training

Start from the defaults:

```bash
python3 -m verl.trainer.main_ppo \\
    +trainer.val_before_train=False \\
    trainer.epochs_total=3
```

Your own settings go where the dots are:

```bash
python3 -m verl.trainer.main_ppo \\
    ... \\
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
```
"""


def test_launches_in_docs_are_composed_and_fixed_in_place(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "verl", {**TREE, "docs/train.md": DOC})
    report, stats = compose_scan(repo)
    found = {(f.path, f.line, f.key): f.status for f in report.findings}
    assert found == {("docs/train.md", 7, "trainer.val_before_train"): Status.FIXABLE,
                     ("docs/train.md", 8, "trainer.epochs_total"): Status.MANUAL}
    assert "[launch of verl.trainer.main_ppo at line 6]" in report.findings[0].message  # the doc's own lines
    # `...` stands for arguments the doc leaves out (they may choose the megatron config): not composed
    assert stats.unresolved == [("docs/train.md", 14, "the doc leaves some of its arguments out (`...`)")]
    (change,) = report.changes
    assert b"\n    trainer.val_before_train=False \\\n" in change.after
    assert change.after.count(b"+") == change.before.count(b"+") - 1


def test_a_notebook_that_is_not_json_is_skipped_with_its_reason(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "verl", {**TREE, "demo.ipynb": "python3 -m verl.trainer.main_ppo a=1 {"})
    report, _ = compose_scan(repo)
    assert report.findings == [] and report.errors == []
    assert [s.path for s in report.skipped if "cannot be read as notebook" in s.reason] == ["demo.ipynb"]


def test_an_app_without_a_config_path_is_a_hydra_app_whose_config_is_made_at_run_time(tmp_path: Path) -> None:
    from bot.engine.launches import collect

    app = "import hydra\n\n\n@hydra.main(version_base=None, config_name=\"stored\")\ndef main(cfg):\n    print(cfg)\n"
    repo = make_repo(tmp_path / "r", {"app.py": app, "run.sh": "python3 app.py +seed=1\n"})
    (launch,) = collect(repo, "r").launches
    assert launch.cls == "runtime" and "Hydra's config store" in launch.evidence  # it was "not-hydra"
    _, stats = compose_scan(repo)
    assert [why for _, _, why in stats.unresolved] == [launch.evidence]


def test_an_app_of_no_config_path_nor_name_composes_the_empty_config(tmp_path: Path) -> None:
    from bot.engine.launches import collect

    app = "import hydra\n\n\n@hydra.main(version_base=None)\ndef main(cfg):\n    print(cfg)\n"
    repo = make_repo(tmp_path / "r", {"app.py": app, "run.sh": "python3 app.py +seed=1\n"})
    (launch,) = collect(repo, "r").launches
    assert launch.cls == "hydra"  # it was "runtime" (tests/test_empty_config.py)
    report, stats = compose_scan(repo)
    assert report.findings == [] and stats.unresolved == [] and stats.composed == 1


def test_a_multirun_sweep_is_composed_in_runs_that_take_each_of_its_values(repo: Path) -> None:
    """Hydra composes each run of `-m`, not the launch (`a=1,2` as one value is "Ambiguous value"); each
    value of every sweep is in some run, so a stale key and a missing group option are both found."""
    (repo / "examples/sweep.sh").write_text(
        "python3 -m verl.trainer.main_ppo -m trainer.total_epochs=1,2 trainer.logger=[console]\n"
        "python3 -m verl.trainer.main_ppo -m trainer.total_epochs=1,2 trainer.stale_key=3,4\n"
        "python3 -m verl.trainer.main_ppo --multirun actor@actor_rollout_ref.actor=dp_actor,tp_actor "
        "trainer.total_epochs='range(1,40)'\n"
        "python3 -m verl.trainer.main_ppo -m trainer.total_epochs='interval(1,2)' trainer.gone=1\n"
        "python3 -m verl.trainer.main_ppo -m 'actor@actor_rollout_ref.actor=glob(*)'\n"
        "python3 -m verl.trainer.main_ppo trainer.total_epochs=1,2 trainer.stale=1\n")
    report, stats = compose_scan(repo)
    found = sorted((f.line, f.key) for f in report.findings if f.path == "examples/sweep.sh")
    assert found == [(2, "trainer.stale_key"), (3, "actor"), (4, "trainer.gone")]
    (option,) = [f for f in report.findings if f.line == 3]
    assert "tp_actor" in option.message and "the sweep's run" in option.message
    why = {line: reason for path, line, reason in stats.unresolved if path == "examples/sweep.sh"}
    assert why == {5: "a multirun sweep over actor=glob(*): Hydra composes each of its runs",
                   6: "a sweep without -m: Hydra sweeps it only when the config sets hydra.mode to MULTIRUN"}


def test_a_sweep_of_numbers_is_composed_once_per_type_and_its_options_each(tmp_path: Path) -> None:
    from bot.compose.readings import sweep_runs
    from bot.lang import launch_reader

    (view,) = launch_reader("x.sh", "shell").launch_views(b"python3 t.py -m 'seed=range(1,100)' opt=adam,sgd,lamb "
                                                          b"lr=0.1,0.2\n")
    runs, partly = sweep_runs(view.launches[0])
    assert partly is None
    assert [sorted(replaced.values()) for _, replaced in runs] == [
        ["lr=0.1", "opt=adam", "seed=1"], ["lr=0.1", "opt=sgd", "seed=1"], ["lr=0.1", "opt=lamb", "seed=1"]]


def test_a_config_the_repository_stores_in_the_config_store_is_not_checked(tmp_path: Path) -> None:
    """A task's schema is registered when the package is imported (`cs.store(name=f"{t}_config", ...)`):
    composing here cannot load it, which is no finding. Without such a call it is one."""
    app = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="config", version_base=None)\n'
           'def main(cfg):\n    pass\n')
    stores = ('from hydra.core.config_store import ConfigStore\n\nTASKS = {"walk": dict}\n\n\ndef load():\n'
              '    cs = ConfigStore.instance()\n    for task, schema in TASKS.items():\n'
              '        cs.store(name=f"{task}_config", group="task", node=schema)\n')
    files = {"lab/run.py": app, "lab/conf/config.yaml": "defaults:\n  - task: ???\n  - _self_\nseed: 0\n",
             "lab/conf/task/walk.yaml": "defaults:\n  - walk_config\n  - _self_\nsteps: 10\n",
             "run.sh": "python3 lab/run.py task=walk seed=1\n"}
    repo = make_repo(tmp_path / "stored", {**files, "lab/__init__.py": stores})
    report, stats = compose_scan(repo)
    assert report.findings == []
    assert stats.unresolved == [("run.sh", 1, "its config names task/walk_config, which the repository registers "
                                              "in Hydra's ConfigStore when it runs (lab/__init__.py:9: its node dict "
                                              "is not a class of the repository)")]
    plain = make_repo(tmp_path / "plain", files)
    assert [f.key for f in compose_scan(plain)[0].findings] == ["task"]


def test_a_store_call_computing_group_and_name_hides_no_misspelt_defaults_entry(tmp_path: Path) -> None:
    app = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="config", version_base=None)\n'
           'def main(cfg):\n    pass\n')
    stores = ('from hydra.core.config_store import ConfigStore\n\n\ndef load(schemas):\n'
              '    cs = ConfigStore.instance()\n    for key, node in schemas.items():\n'
              '        cs.store(name=key, node=Node(name=key, group="x"))\n')
    repo = make_repo(tmp_path / "r", {"lab/run.py": app, "lab/schemas.py": stores,
                                      "lab/conf/config.yaml": "defaults:\n  - base_confg\n  - _self_\n",
                                      "lab/conf/base_config.yaml": "seed: 0\n",
                                      "run.sh": "python3 lab/run.py seed=1\n"})
    report, _ = compose_scan(repo)
    assert ["Could not load 'base_confg'" in f.message for f in report.findings] == [True]


def test_a_script_run_by_its_bare_name_is_found_beside_the_script_when_the_root_has_none(tmp_path: Path) -> None:
    """`python train.py` in examples/run.sh, with examples/train.py and no train.py at the root: the
    script is meant to be run from its own directory; with a `cd` elsewhere it is not guessed."""
    from bot.engine.launches import collect

    app = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="c", version_base=None)\n'
           'def main(cfg):\n    pass\n')
    repo = make_repo(tmp_path / "r", {"examples/train.py": app, "examples/conf/c.yaml": "trainer:\n  epochs: 1\n",
                                      "examples/run.sh": "python train.py trainer.epochs=2 trainer.bogus=1\n"
                                                         "cd /srv\npython train.py trainer.epochs=3\n"})
    assert [launch.cls for launch in collect(repo, "r").launches] == ["hydra", "outside"]
    report, _ = compose_scan(repo)
    assert [(f.line, f.key) for f in report.findings] == [(1, "trainer.bogus")]


def test_a_search_path_entry_of_the_working_directory_is_where_the_launch_runs(tmp_path: Path) -> None:
    """`hydra.searchpath: [file://${oc.env:PWD}/configs]`: the directory the launch runs in (the root for a
    script without `cd`); where that holds no such directory Hydra only warns, so the rest is composed."""
    app = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="train", version_base=None)\n'
           'def main(cfg):\n    pass\n')
    train = ("defaults:\n  - _self_\n  - experiment: null\nlr: 0.1\nhydra:\n  searchpath:\n"
             "    - file://${oc.env:PWD}\n    - file://${oc.env:PWD}/configs\n")
    repo = make_repo(tmp_path / "r", {"lab/app.py": app, "lab/conf/train.yaml": train,
                                      "configs/experiment/mine.yaml": "# @package _global_\nlr: 0.5\n",
                                      "run.sh": "python lab/app.py experiment=mine lr=0.2 stale=1\n"})
    report, stats = compose_scan(repo)
    assert [(f.line, f.key) for f in report.findings] == [(1, "stale")]
    assert not stats.unresolved


def test_a_key_an_option_sets_is_a_note_where_the_caller_may_choose_that_option(tmp_path: Path) -> None:
    app = ("import hydra\n\n\n@hydra.main(config_path='conf', config_name='main', version_base=None)\n"
           "def main(cfg):\n    pass\n")
    root = make_repo(tmp_path / "repo", {
        "app.py": app, "conf/main.yaml": "defaults:\n  - model: small\n",
        "conf/model/small.yaml": "width: 2\n", "conf/model/large.yaml": "width: 8\ndepth: 4\n",
        "conf/extra/wide.yaml": "# @package _global_\nscale: 2\n",
        "run.sh": "python app.py \"$@\" model.depth=3 scale=1\npython app.py model.depth=3\n"
                  "python app.py \"$@\" model.gone=1\n"})
    report, _ = compose_scan(root)
    found = sorted((f.line, f.key, f.severity) for f in report.findings)
    assert found == [(1, "model.depth", "note"), (1, "scale", "note"), (2, "model.depth", "error"),
                     (3, "model.gone", "error")]
    note = next(f for f in report.findings if f.key == "scale")
    assert "extra/wide.yaml sets scale" in note.message


def test_a_second_scan_reads_the_options_again(tmp_path: Path) -> None:
    """A group's options are read once per scan for every launch that asks: a scan after an edit sees the edit."""
    app = ("import hydra\n\n\n@hydra.main(config_path='conf', config_name='main', version_base=None)\n"
           "def main(cfg):\n    pass\n")
    root = make_repo(tmp_path / "repo", {
        "app.py": app, "conf/main.yaml": "defaults:\n  - model: small\n",
        "conf/model/small.yaml": "width: 2\n", "conf/model/large.yaml": "width: 8\ndepth: 4\n",
        "run.sh": "python app.py \"$@\" model.depth=3\n", "again.sh": "python app.py \"$@\" model.depth=5\n"})
    first, _ = compose_scan(root)
    assert sorted((f.path, f.severity) for f in first.findings) == [("again.sh", "note"), ("run.sh", "note")]
    (root / "conf/model/large.yaml").write_text("width: 8\n")
    second, _ = compose_scan(root)
    assert sorted((f.path, f.severity) for f in second.findings) == [("again.sh", "error"), ("run.sh", "error")]


def test_a_doc_launch_with_an_elided_placeholder_is_not_composed(tmp_path: Path) -> None:
    """`<...>` is the doc's "your other arguments" as `...` is: a bash redirection if read as written."""
    doc = "```bash\npython3 -m verl.trainer.main_ppo <...> trainer.epochs_total=3\n```\n"
    repo = make_repo(tmp_path / "verl", {**TREE, "docs/train.md": doc})
    report, stats = compose_scan(repo)
    assert report.findings == []
    assert stats.unresolved == [("docs/train.md", 2, "the doc leaves some of its arguments out (`...`)")]


def test_dora_runs_the_train_module_of_its_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`dora run a=1` (and `python -m dora`, `-P pkg`, `--main_module m`) launches the `hydra_main` app dora
    finds: module m (`train`) of the package named, else of the one package beside the run that has it."""
    import json

    from bot.cli import main

    app = ('from dora import hydra_main\n\n\n@hydra_main(config_path="conf", config_name="config", '
           'version_base="1.1")\ndef main(cfg):\n    pass\n')
    repo = make_repo(tmp_path / "r", {
        "proj/__init__.py": "", "proj/train.py": app, "proj/conf/config.yaml": "lr: 0.1\n",
        "proj/solo.py": app, "tools/__init__.py": "",
        "run.sh": "dora run lr=0.2\npython -m dora -P proj run -d lr=0.3\ndora --main_module solo -P proj info "
                  "lr=0.4\ndora run missing=1\ndora grid sweep\n",
        "other/run.sh": "cd other\ndora run lr=1\n"})
    assert main(["launches", "--repo", str(repo), "--format", "json"]) == 0
    found = [(i["path"], i["line"], i["class"], i["entry"]) for i in json.loads(capsys.readouterr().out)["launches"]]
    assert found == [("other/run.sh", 2, "outside", "train"), ("run.sh", 1, "hydra", "train"),
                     ("run.sh", 2, "hydra", "proj.train"), ("run.sh", 3, "hydra", "proj.solo"),
                     ("run.sh", 4, "hydra", "train")]
    report, _ = compose_scan(repo)
    assert [(f.path, f.line, f.key) for f in report.findings] == [("run.sh", 4, "missing")]


def test_an_app_whose_config_path_is_the_working_directory_composes_where_the_launch_runs(tmp_path: Path) -> None:
    """`config_path=os.getcwd()` (nequip's trainer), `Path.cwd() / "conf"`: the directory the launch runs in."""
    head = "import os\nfrom pathlib import Path\n\nimport hydra\n\n\n@hydra.main(version_base=None, config_path="
    tail = ", config_name='config')\ndef main(cfg):\n    pass\n"
    repo = make_repo(tmp_path / "r", {
        "pkg/train.py": head + "os.getcwd()" + tail, "pkg/other.py": head + 'str(Path.cwd() / "conf")' + tail,
        "configs/run.yaml": "trainer:\n  max_epochs: 1\n", "configs/conf/run.yaml": "seed: 1\n",
        "run.sh": "cd configs\npython ../pkg/train.py -cn run trainer.max_epoch=2\n"
                  "python ../pkg/train.py -cn run trainer.max_epochs=2\npython ../pkg/other.py -cn run seed=2\n"})
    report, stats = compose_scan(repo)
    assert [(f.line, f.key) for f in report.findings] == [(2, "trainer.max_epoch")]
    assert not stats.unresolved
