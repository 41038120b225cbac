"""`bot watch --upstream U --repo D` (issue 43, item 2): an upstream's change acted on in a downstream whose launches
run the upstream's entry points and whose config extends the upstream's, over real git repositories
(tests.downstream_repos), and published to the loopback fake GitHub."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git
from tests.downstream_repos import BOOST, TRAIN, Pair, published, upstream_and_downstream

TOKEN = "ghp_downstreamT0ken0123456789abcdef"


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    return upstream_and_downstream(tmp_path)


def watch(pair: Pair, *extra: str, before: str | None = None, after: str | None = None,
          upstream: str | None = None) -> int:
    from bot.cli import main

    given = [str(pair.upstream)] if upstream is None else [upstream] if upstream else []  # "": bare --upstream
    return main(["watch", "--upstream", *given, "--repo", str(pair.downstream), "--before", before or pair.base,
                 "--after", after or pair.renamed, "--no-bundled", *extra])


def test_the_renamed_key_is_fixed_in_the_downstreams_launches_and_its_own_app(pair: Pair, tmp_path: Path) -> None:
    out = tmp_path / "report.diff"
    assert watch(pair, "--dry-run", "--format", "diff", "--output", str(out)) in (0, 1)
    diff = out.read_text()
    assert "-python3 -m upkg.main optim.warmup=linear trainer.steps=3\n" \
           "+python3 -m upkg.main optim.schedule=linear trainer.steps=3\n" in diff
    # the downstream's own app, whose config takes the upstream's `trainer` through pkg://upkg.config
    assert "+python3 -m recipe.main recipe.boost=3 optim.schedule=constant trainer.save_every=2\n" in diff
    assert (pair.downstream / "scripts/train.sh").read_text() == TRAIN  # a dry run writes nothing


def test_the_downstreams_launches_compose_against_the_upstream_at_the_change_end(pair: Pair, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    watch(pair, "--dry-run", "--format", "json", "--output", str(report))
    findings = json.loads(report.read_text())["findings"]
    composed = {(f["path"], f["line"]) for f in findings if f["rule"] == "hydra-compose"}
    # both launches fail at the change's end for the old key only: the upstream's `trainer.*` and the downstream's
    # own `recipe.boost` (its config layered over the upstream's) compose
    assert composed == {("scripts/train.sh", 3), ("scripts/boost.sh", 2)}
    messages = [f["message"] for f in findings if f["rule"] == "hydra-compose"]
    assert all(m.startswith("Could not override 'optim.warmup'.") for m in messages)
    assert any("[launch of recipe.main at line 2]" in m for m in messages)
    inferred = {f["path"] for f in findings if f["rule"].startswith("inferred-config-optim-warmup")}
    assert inferred == {"scripts/train.sh", "scripts/boost.sh"}
    assert all(not f["path"].startswith("upkg/") for f in findings)  # the upstream's files are its own


def test_write_fixes_the_downstream_once_and_a_second_run_finds_nothing(pair: Pair, tmp_path: Path) -> None:
    assert watch(pair, "--write") in (0, 1)
    assert (pair.downstream / "scripts/train.sh").read_text() == TRAIN.replace("optim.warmup", "optim.schedule")
    assert (pair.downstream / "scripts/boost.sh").read_text() == BOOST.replace("optim.warmup", "optim.schedule")
    assert not (pair.downstream / "upkg").exists()  # nothing of the upstream laid into the downstream
    git(pair.downstream, "commit", "-qam", "the follow-up")
    again = tmp_path / "again.json"
    assert watch(pair, "--dry-run", "--format", "json", "--output", str(again)) == 0
    assert json.loads(again.read_text())["findings"] == []
    assert watch(pair, "--write") == 0
    assert git(pair.downstream, "status", "--porcelain") == ""


def test_an_entry_point_the_upstream_moves_is_followed_into_it(pair: Pair, tmp_path: Path) -> None:
    out = tmp_path / "report.diff"
    watch(pair, "--dry-run", "--format", "diff", "--output", str(out), before=pair.renamed, after=pair.moved)
    # the target is the upstream's, not the downstream's: followed since the upstream is laid beside it
    assert "+python3 -m upkg.trainer.main optim.warmup=linear trainer.steps=3\n" in out.read_text()
    assert "recipe.main" not in out.read_text()  # the downstream's own entry point stays


def test_the_upstream_the_downstreams_bot_toml_names_is_used_with_a_bare_upstream(pair: Pair, tmp_path: Path) -> None:
    (pair.downstream / "bot.toml").write_text(f'upstream = "{pair.upstream}"\n')
    git(pair.downstream, "add", "bot.toml")
    git(pair.downstream, "commit", "-qm", "name the upstream")
    out = tmp_path / "report.diff"
    assert watch(pair, "--dry-run", "--format", "diff", "--output", str(out), upstream="") in (0, 1)
    assert "+python3 -m upkg.main optim.schedule=linear trainer.steps=3\n" in out.read_text()


@pytest.mark.parametrize(("toml", "upstream", "said"), [
    ("", "/nowhere/at/all", "bot: error: --upstream: '/nowhere/at/all' is not a name in the registry"),
    ('upstream = "../missing"\n', "",
     "bot: error: {down}/bot.toml: upstream: '../missing' is not a name in the registry"),
    ("", "", "bot: error: --upstream: no upstream given and"),
])
def test_an_upstream_that_cannot_be_found_is_one_line_naming_the_setting(
        pair: Pair, toml: str, upstream: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    if toml:
        (pair.downstream / "bot.toml").write_text(toml)
    assert watch(pair, "--dry-run", upstream=upstream) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(said.format(down=pair.downstream)) and "\n" not in err


def test_an_upstream_without_the_commits_or_not_a_repository_is_one_line(
        pair: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert watch(pair, "--dry-run", before="0123456789abcdef0123456789abcdef01234567", after="feedface") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bot: error: --upstream: ") and "feedface" in err and "\n" not in err
    plain = tmp_path / "plain"
    plain.mkdir()
    assert watch(pair, "--dry-run", upstream=str(plain)) == 2
    assert capsys.readouterr().err.strip() == f"bot: error: --upstream: {plain} is not a git repository (expected a " \
                                              "checkout of the upstream with its history)"


def test_the_upstreams_change_opens_the_downstreams_pull_request(pair: Pair, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli import main

    with published(pair, tmp_path, monkeypatch, TOKEN) as hub:
        code = main(["watch", "--upstream", "upkg", "--repo", "recipes", "--config", str(hub.config), "--before",
                     pair.base, "--after", pair.renamed, "--no-bundled", "--group", "all"])
        assert code in (0, 1)
        pulls = {str(p["head"]): p for p in hub.fake.pulls("acme/recipes")}
        pr = pulls["bot/all"]  # with the compose check's own, as `watch` opens them
        assert "upkg #12" in str(pr["body"])
        assert hub.shown(pr["head"], "scripts/train.sh") == TRAIN.replace("optim.warmup", "optim.schedule")
        listed = subprocess.run(["git", "--git-dir", str(hub.bare), "ls-tree", "-r", "--name-only", pr["head"]],
                                capture_output=True, text=True, check=True).stdout.split()
        assert not any(p.startswith("upkg/") for p in listed)


def test_the_action_runs_it_from_a_repository_dispatch_of_the_upstreams_change(pair: Pair, tmp_path: Path) -> None:
    """The downstream's workflow, dispatched by the upstream's (client_payload: before, after), the Action's step as
    action.yml runs it, a dry run: the annotations and outputs name the downstream's launches."""
    import os

    from tests import action_step

    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "upstream-merged", "client_payload": {
        "before": pair.base, "after": pair.renamed}, "repository": {"full_name": "acme/recipes"}}))
    output = tmp_path / "output.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "BOT_"))}
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "repository_dispatch",
                "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "acme/recipes",
                "GITHUB_WORKSPACE": str(pair.downstream), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
                "GITHUB_OUTPUT": str(output), "BOT_CACHE_DIR": str(tmp_path / "cache")})
    proc = action_step.start({"dry-run": "true", "upstream": str(pair.upstream), "rules-dir": ""}, env,
                             tmp_path / "runner-temp")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "--upstream" in err and f"--before {pair.base} --after {pair.renamed}" in err
    assert "::error file=scripts/train.sh,line=3" in out and "::error file=scripts/boost.sh,line=2" in out
    values = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    assert any(r.startswith("inferred-config-optim-warmup") for r in json.loads(values["triggered"]))


def test_an_upstream_input_without_its_change_is_one_line(pair: Pair, tmp_path: Path) -> None:
    import os

    from tests import action_step

    event = tmp_path / "event.json"
    event.write_text("{}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "BOT_"))}
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": str(event),
                "GITHUB_WORKSPACE": str(pair.downstream), "GITHUB_OUTPUT": str(tmp_path / "output.txt")})
    proc = action_step.start({"upstream": "acme/upkg"}, env, tmp_path / "runner-temp")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert err.strip().splitlines()[-1].startswith("bot: error: action: input upstream-before: expected")
