"""The GitHub Action (action.yml): its inputs reach `bot action` through `env:` only, and its entry point,
run as the step runs it, handles a push (a follow-up pull request on the loopback GitHub) and a pull
request (only the files it changes gated, with annotations, outputs, a step summary and SARIF)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot import actions
from bot.commands.action import INPUTS, env_name
from tests import action_step
from tests.conftest import git
from tests.upstream_repo import ENGINE, ENGINE_AFTER, FULL, SCRIPT, TOKEN, Upstream


def test_every_input_reaches_the_entry_point_through_env_and_no_run_script_expands_one() -> None:
    declared = action_step.action()
    step = action_step.run_step()
    assert set(declared["inputs"]) == set(INPUTS)
    for name in declared["inputs"]:
        assert step["env"][env_name(name)] == f"${{{{ inputs.{name} }}}}", name
    for each in declared["runs"]["steps"]:
        assert "${{" not in each["run"], f"{each['name']}: an expression in the shell script"
    assert step["run"].strip() == '"$RUNNER_TEMP/followup-bot/bin/bot" action'
    assert set(declared["outputs"]) == set(actions.OUTPUTS)
    for name, output in declared["outputs"].items():
        assert output["value"] == f"${{{{ steps.bot.outputs.{name} }}}}"


def outputs(env: dict[str, str]) -> dict[str, str]:
    return dict(line.split("=", 1) for line in Path(env["GITHUB_OUTPUT"]).read_text().splitlines() if "=" in line)


def test_a_push_opens_the_follow_up_with_annotations_outputs_summary_and_sarif(upstream: Upstream) -> None:
    before = git(upstream.work, "rev-parse", "HEAD").strip()
    after = upstream.commit({ENGINE: ENGINE_AFTER}, "Assert use_mbridge in the Megatron engine (#4530)")
    env = upstream.event_env(before, after, "push")
    temp = upstream.root / "runner-temp"
    proc = action_step.start({}, env, temp)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    (pr,) = upstream.fake.pulls(FULL)
    assert "Follow-up to #4530" in str(pr["body"])
    assert "::error file=examples/run_megatron.sh,line=3" in out
    assert "run_megatron.sh" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    values = outputs(env)
    assert values["findings"] == "2" and values["notes"] == "0"
    assert json.loads(values["pr-urls"])[0].startswith("http")
    assert json.loads(values["triggered"]) == ["megatron-use-mbridge"]
    sarif = json.loads(Path(values["sarif-file"]).read_text())
    assert Path(values["sarif-file"]).parent == temp
    results = sarif["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {
        "examples/run_megatron.sh", "recipe/dapo/run.sh"}
    assert all(r["partialFingerprints"] for r in results)
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["megatron-use-mbridge"]["helpUri"] == "https://github.com/verl-project/verl/pull/4528"
    assert TOKEN not in out + err + Path(env["GITHUB_STEP_SUMMARY"]).read_text()


def pull_request_env(upstream: Upstream, name: str) -> dict[str, str]:
    """A pull request from a branch (as from a fork: no token) adding one script that breaks the rule;
    the base already has two such scripts."""
    base = git(upstream.work, "rev-parse", "HEAD").strip()
    git(upstream.work, "checkout", "-q", "-b", "topic")
    (upstream.work / "examples" / "run_new.sh").write_text(SCRIPT)
    (upstream.work / "README.md").write_text("a change that breaks nothing\n")
    git(upstream.work, "add", "-A")
    git(upstream.work, "commit", "-q", "-m", "add a launch")
    git(upstream.work, "push", "-q", "origin", "topic")
    head = git(upstream.work, "rev-parse", "HEAD").strip()
    env = upstream.event_env(base, head, name)
    workspace = Path(env["GITHUB_WORKSPACE"])
    git(workspace, "checkout", "-q", "topic")
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps({
        "action": "opened", "number": 7,
        "pull_request": {"number": 7, "base": {"sha": base, "ref": "main"},
                         "head": {"sha": head, "ref": "topic", "repo": {"full_name": "someone/verl"}}},
        "repository": {"full_name": FULL}}))
    env["GITHUB_EVENT_NAME"] = "pull_request"
    del env["BOT_GITHUB_TOKEN"]  # a fork's pull request gets no secret
    return env


def test_a_pull_request_gates_only_the_files_it_changes(upstream: Upstream) -> None:
    env = pull_request_env(upstream, "pr")
    proc = action_step.start({}, env, upstream.root / "runner-temp")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err  # a finding remains: the step fails
    assert re.findall(r"^::error file=([^,]+)", out, re.M) == ["examples/run_new.sh"]
    values = outputs(env)
    assert values["findings"] == "1" and json.loads(values["pr-urls"]) == []
    results = json.loads(Path(values["sarif-file"]).read_text())["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results] == [
        "examples/run_new.sh"]
    assert "run_new.sh" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert upstream.fake.write_count == 0


def test_a_pull_request_with_files_all_checks_every_file_and_may_pass(upstream: Upstream) -> None:
    env = pull_request_env(upstream, "pr-all")
    proc = action_step.start({"files": "all", "fail-on-findings": "false"}, env, upstream.root / "runner-temp")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert sorted(set(re.findall(r"^::error file=([^,]+)", out, re.M))) == [
        "examples/run_megatron.sh", "examples/run_new.sh", "recipe/dapo/run.sh"]


def test_a_bad_input_is_one_line_and_exit_2(upstream: Upstream) -> None:
    env = pull_request_env(upstream, "bad")
    proc = action_step.start({"command": "publish-everything"}, env, upstream.root / "runner-temp")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert err.strip().splitlines()[-1].startswith("bot: error: action: input command: expected one of")
    proc = action_step.start({"rules": "--write"}, env, upstream.root / "runner-temp")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "input rules" in err
