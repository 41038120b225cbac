"""Watch mode end to end: the command the workflow runs, on a push event, against the fake API."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot.rules.loader import load_rules
from bot.upstream.change import read_change, triggered
from tests import action_step
from tests.conftest import git
from tests.upstream_repo import ENGINE, ENGINE_AFTER, FULL, SCRIPT, TOKEN, Upstream


def workflow_command(env: dict[str, str]) -> subprocess.Popen[str]:
    """The reusable workflow's step: the action (action.yml) with command watch and the workflow's inputs."""
    inputs = {"command": "watch", "rules": env.get("BOT_RULES", ""), "dry-run": env.get("BOT_DRY_RUN", "false")}
    return action_step.start(inputs, env, Path(env["GITHUB_WORKSPACE"]).parent / "runner-temp")


def test_the_change_triggers_the_rule_by_path_and_text(upstream: Upstream) -> None:
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({ENGINE: ENGINE_AFTER}, "Assert use_mbridge in the Megatron engine (#4530)")
    change = read_change(upstream.work, before, after)
    assert change.paths == [ENGINE] and change.pull_number == 4530
    assert [r.id for r in triggered(load_rules(), change)] == ["megatron-use-mbridge"]
    readme = upstream.commit({"README.md": "more\n"}, "docs")
    assert triggered(load_rules(), read_change(upstream.work, after, readme)) == []


def test_a_push_event_opens_one_follow_up_naming_the_upstream_pr(upstream: Upstream) -> None:
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({ENGINE: ENGINE_AFTER}, "Assert use_mbridge in the Megatron engine (#4530)")
    env = upstream.event_env(before, after, "first")
    proc = workflow_command(env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    (pr,) = upstream.fake.pulls(FULL)
    assert "Follow-up to #4530" in str(pr["body"])
    assert "::error file=examples/run_megatron.sh,line=3" in out
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert "examples/run_megatron.sh" in summary
    outputs = Path(env["GITHUB_OUTPUT"]).read_text()
    assert "findings=2" in outputs and "pr-urls=[\"http" in outputs
    assert TOKEN not in out + err + summary + outputs

    upstream.fake.reset_counts()
    unrelated = upstream.commit({"README.md": "unrelated\n"}, "Polish the README (#4600)")
    env = upstream.event_env(after, unrelated, "second")
    proc = workflow_command(env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "no rule triggered" in out
    assert upstream.fake.request_count == 0 and upstream.fake.write_count == 0
    assert "findings=0" in Path(env["GITHUB_OUTPUT"]).read_text()


def test_a_merge_that_reintroduces_the_old_form_is_caught_without_a_trigger(upstream: Upstream) -> None:
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({"recipe/copied.sh": SCRIPT}, "Add a recipe copied from an old one (#6429)")
    env = upstream.event_env(before, after, "copy")
    proc = workflow_command(env)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "megatron-use-mbridge" in err
    (pr,) = upstream.fake.pulls(FULL)
    assert "Follow-up to #6429" in str(pr["body"])


def test_two_events_processed_concurrently_leave_exactly_one_pr(upstream: Upstream) -> None:
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({ENGINE: ENGINE_AFTER}, "Assert use_mbridge in the Megatron engine (#4530)")
    runs = [workflow_command(upstream.event_env(before, after, name)) for name in ("one", "two")]
    results = [proc.communicate(timeout=180) for proc in runs]
    assert [proc.returncode for proc in runs] == [0, 0], [err for _, err in results]
    assert len(upstream.fake.pulls(FULL)) == 1
    actions = [json.dumps(out) for out, _ in results]
    assert any("opened" in a for a in actions) and any("up-to-date" in a for a in actions)


def test_rules_without_a_trigger_still_check_the_files_the_change_edits(upstream: Upstream, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import RepoConfig
    from bot.publish.run import PublishOptions
    from bot.upstream.watching import watch

    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "no-trigger.yaml").write_text("id: no-trigger\nmatch: {key: ['trainer.total_epochs'], value: [1]}\n"
                                               "fix: {set: 2}\n")
    rules = load_rules([rules_dir], include_bundled=False)
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GITHUB_API_URL", upstream.fake.url)
    repo = RepoConfig(name="verl", github=FULL, clone_url=str(upstream.bare))
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({"recipe/copied.sh": SCRIPT}, "copy a recipe")
    result = watch(repo, rules, before, after, PublishOptions(), dry_run=True)
    assert result.reasons == {"no-trigger": "the change edits recipe/copied.sh, which breaks it"}
    assert result.report is not None
    assert sorted({f.path for f in result.report.findings}) == ["examples/run_megatron.sh", "recipe/copied.sh",
                                                                "recipe/dapo/run.sh"]
    readme = upstream.commit({"README.md": "x\n"}, "docs")
    assert watch(repo, rules, after, readme, PublishOptions(), dry_run=True).rules == []


def test_a_manual_dispatch_without_a_push_range_runs_the_chosen_rules(upstream: Upstream) -> None:
    head = git(upstream.work, "rev-parse", "HEAD").strip()
    env = upstream.event_env(head, head, "dispatch")
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps({"inputs": {"rules": "megatron-use-mbridge",
                                                                      "dry-run": True},
                                                           "repository": {"full_name": FULL}}))
    env.update({"GITHUB_EVENT_NAME": "workflow_dispatch", "BOT_RULES": "megatron-use-mbridge",
                "BOT_DRY_RUN": "true"})
    proc = workflow_command(env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "::error file=examples/run_megatron.sh" in out
    assert upstream.fake.write_count == 0 and upstream.fake.pulls(FULL) == []
    assert "findings=2" in Path(env["GITHUB_OUTPUT"]).read_text()


def test_flag_like_lines_count_and_a_force_push_falls_back_to_the_new_tip(upstream: Upstream) -> None:
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({"docs/flags.txt": "--use_mbridge False\n"}, "flags")
    change = read_change(upstream.work, before, after)
    assert "--use_mbridge False" in change.lines
    assert [r.id for r in triggered(load_rules(), change)] == ["megatron-use-mbridge"]
    gone = "1234567890" * 4
    fallback = read_change(upstream.work, gone, after)
    assert fallback.before == before and fallback.paths == ["docs/flags.txt"]


def test_a_config_change_composes_every_launch_again_and_opens_a_compose_fix(
        upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import RepoConfig
    from bot.publish.run import PublishOptions
    from bot.upstream.watching import watch
    from tests.test_compose import TREE

    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GITHUB_API_URL", upstream.fake.url)
    monkeypatch.setenv("BOT_GITHUB_TOKEN", TOKEN)
    tree = {**TREE, "verl/trainer/config/ppo_trainer.yaml": TREE["verl/trainer/config/ppo_trainer.yaml"].replace(
        "  val_before_train: true\n", "")}
    upstream.commit({**tree, "examples/val.sh": "python3 -m verl.trainer.main_ppo +trainer.val_before_train=False\n"},
                    "app and a script adding a key")
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({"verl/trainer/config/ppo_trainer.yaml": TREE["verl/trainer/config/ppo_trainer.yaml"]},
                            "Add trainer.val_before_train to the config (#5000)")
    repo = RepoConfig(name="verl", github=FULL, clone_url=str(upstream.bare))
    result = watch(repo, load_rules(), before, after, PublishOptions(throttle=False), dry_run=False)
    assert "hydra-compose" in result.reasons
    assert result.published is not None
    by_group = {d.group: d for d in result.published.decisions}
    assert by_group["hydra-compose"].action == "opened"
    (pr,) = [p for p in upstream.fake.pulls(FULL) if p["head"] == "bot/hydra-compose"]
    assert "Follow-up to #5000" in str(pr["body"])
    shown = subprocess.run(["git", "--git-dir", str(upstream.bare), "show", "bot/hydra-compose:examples/val.sh"],
                           capture_output=True, text=True, check=True).stdout
    assert shown == "python3 -m verl.trainer.main_ppo trainer.val_before_train=False\n"


def test_watch_infers_the_rule_from_the_new_assert_and_opens_the_follow_up(
        upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import RepoConfig
    from bot.publish.run import PublishOptions
    from bot.upstream.watching import watch

    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GITHUB_API_URL", upstream.fake.url)
    monkeypatch.setenv("BOT_GITHUB_TOKEN", TOKEN)
    engine = ("from verl.workers.config import McoreEngineConfig\n\n\nclass MegatronEngine:\n"
              "    def __init__(self, engine_config: McoreEngineConfig):\n        self.engine_config = engine_config\n")
    target = "_target_: verl.workers.config.McoreEngineConfig\n"
    upstream.commit({
        "verl/workers/engine/megatron/transformer_impl.py": engine,
        "verl/trainer/config/ppo_megatron_trainer.yaml":
            f"actor_rollout_ref:\n  actor:\n    megatron:\n      {target}      use_mbridge: false\n"
            f"  ref:\n    megatron:\n      {target}      use_mbridge: false\n",
        "verl/trainer/config/sft_trainer_engine.yaml": f"engine:\n  {target}  use_mbridge: false\n",
        "examples/default.sh": "USE=${USE:-False}\npython3 -m verl.trainer.main_ppo "
                               "actor_rollout_ref.ref.megatron.use_mbridge=$USE\n",
        "examples/sft.sh": "torchrun -m verl.trainer.sft_trainer engine.use_mbridge=False\n",
    }, "engine, configs and scripts")
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({"verl/workers/engine/megatron/transformer_impl.py":
                             engine + '        assert self.engine_config.use_mbridge, "use_mbridge must be True"\n'},
                            "Assert use_mbridge in the Megatron engine (#4530)")
    repo = RepoConfig(name="verl", github=FULL, clone_url=str(upstream.bare))
    result = watch(repo, load_rules(include_bundled=False), before, after, PublishOptions(throttle=False),
                   dry_run=False)
    assert "inferred-use-mbridge" in result.reasons
    assert result.published is not None
    (decision,) = result.published.decisions
    assert decision.action == "opened" and decision.branch == "bot/inferred-use-mbridge"
    (pr,) = upstream.fake.pulls(FULL)
    assert "Follow-up to #4530" in str(pr["body"])

    def on_branch(path: str) -> str:
        return subprocess.run(["git", "--git-dir", str(upstream.bare), "show", f"{decision.branch}:{path}"],
                              capture_output=True, text=True, check=True).stdout

    assert "actor_rollout_ref.actor.megatron.use_mbridge=True" in on_branch("examples/run_megatron.sh")
    assert "USE=${USE:-True}" in on_branch("examples/default.sh")
    assert "engine.use_mbridge=True" in on_branch("examples/sft.sh")


def test_watch_reports_the_compose_failures_its_change_caused_and_the_rest_only_when_asked(tmp_path: Path) -> None:
    """A config change that drops `trainer.logger` breaks one launch; another launch failed before the change
    (a key the config never had): watch reports the first, `--compose-all` both."""
    from tests.conftest import make_repo
    from tests.test_compose import TREE

    config = "verl/trainer/config/ppo_trainer.yaml"
    repo = make_repo(tmp_path / "local", {**TREE, "examples/logger.sh": (
        "python3 -m verl.trainer.main_ppo trainer.logger=[console,wandb]\n"
        "python3 -m verl.trainer.main_ppo trainer.never_there=1\n")})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / config).write_text(TREE[config].replace("  logger: [console]\n", ""))
    git(repo, "commit", "-qam", "Drop trainer.logger from the config")

    def compose_lines(*extra: str) -> list[int]:
        from bot.cli import main

        out = tmp_path / f"report{len(extra)}.json"
        code = main(["watch", "--repo", str(repo), "--before", before, "--format", "json", "--output", str(out),
                     *extra])
        assert code == 0
        return sorted(f["line"] for f in json.loads(out.read_text())["findings"] if f["rule"] == "hydra-compose")

    assert compose_lines() == [1]
    assert compose_lines("--compose-all") == [1, 2]
