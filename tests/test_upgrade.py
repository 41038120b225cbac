"""`bot upgrade --repo D --to REF` (issue 43, item 3) over real git repositories (tests.downstream_repos): the
upstream `upkg` renames `optim.warmup` to `optim.schedule` (#12), moves its entry point (#13), then renames
`optim.schedule` to `optim.plan` (#14); the downstream pins `upkg` at the commit before all three. Published to the
loopback fake GitHub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git
from tests.downstream_repos import BOOST, MAIN, TRAIN, TRAINER, Pair, published, upstream_and_downstream

TOKEN = "ghp_upgradeT0ken0123456789abcdef0123"


def rename(pair: Pair, old: str, new: str, number: int) -> str:
    """One more upstream commit: the trainer's key `optim.<old>` renamed `optim.<new>`."""
    up = pair.upstream
    assert f"{old}: cosine" in (up / "upkg/config/trainer.yaml").read_text()
    (up / "upkg/config/trainer.yaml").write_text(TRAINER.format(key=new))
    (up / "upkg/trainer/main.py").write_text(MAIN.format(where="../config", key=new))
    git(up, "commit", "-qam", f"Rename optim.{old} to optim.{new} (#{number})")
    return git(up, "rev-parse", "HEAD").strip()


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    made = upstream_and_downstream(tmp_path)
    rename(made, "schedule", "plan", 14)
    return made


def upgrade(pair: Pair, *extra: str, to: str = "HEAD", upstream: str | None = None) -> int:
    from bot.cli import main

    given = [] if upstream == "" else ["--upstream", upstream or str(pair.upstream)]
    return main(["upgrade", "--repo", str(pair.downstream), "--to", to, *given, "--quiet", *extra])


def head(pair: Pair) -> str:
    return git(pair.upstream, "rev-parse", "HEAD").strip()


def test_a_key_renamed_twice_ends_at_its_last_name_and_the_pin_is_bumped(pair: Pair, tmp_path: Path) -> None:
    out = tmp_path / "upgrade.diff"
    assert upgrade(pair, "--dry-run", "--format", "diff", "--output", str(out)) == 0
    diff = out.read_text()
    # one diff for the whole span: the first name is replaced by the last, never by the one in between
    assert "-python3 -m upkg.main optim.warmup=linear trainer.steps=3\n" \
           "+python3 -m upkg.trainer.main optim.plan=linear trainer.steps=3\n" in diff
    assert "+python3 -m recipe.main recipe.boost=3 optim.plan=constant trainer.save_every=2\n" in diff
    assert "optim.schedule" not in diff
    assert f"-upkg @ git+https://example.invalid/upkg.git@{pair.base}\n" \
           f"+upkg @ git+https://example.invalid/upkg.git@{head(pair)}\n" in diff
    assert (pair.downstream / "scripts/train.sh").read_text() == TRAIN  # a dry run writes nothing


def test_each_step_says_its_upstream_change_rules_edits_and_the_launches_it_made_compose(
        pair: Pair, tmp_path: Path) -> None:
    out = tmp_path / "upgrade.json"
    assert upgrade(pair, "--dry-run", "--format", "json", "--output", str(out)) == 0
    data = json.loads(out.read_text())
    assert data["title"] == f"Upgrade upkg from {pair.base[:12]} to {head(pair)[:12]}"
    assert data["commits"] == 3 and [s["pr"] for s in data["steps"]] == [12, 13, 14]
    first, _, last = data["steps"]
    assert any(r.startswith("inferred-config-optim-warmup") for r in first["rules"])
    assert any(r.startswith("inferred-config-optim-schedule") for r in last["rules"])
    # the last step read the copy the first two left: `optim.schedule` under the moved entry point
    edit = next(e for e in last["edits"] if e["path"] == "scripts/train.sh")
    assert edit["lines"] == ["-python3 -m upkg.trainer.main optim.schedule=linear trainer.steps=3",
                             "+python3 -m upkg.trainer.main optim.plan=linear trainer.steps=3"]
    # composed against the upstream at the step's own commit: failing before the edit, composing after it
    assert "scripts/train.sh:3 upkg.trainer.main" in last["composed"]
    assert "scripts/boost.sh:2 recipe.main" in last["composed"]
    assert data["pins"] == [f"requirements.txt:1: commit {pair.base} -> {head(pair)}"]


def test_write_upgrades_the_working_tree_and_a_second_run_has_nothing_to_do(pair: Pair, tmp_path: Path) -> None:
    assert upgrade(pair, "--write") == 0
    assert (pair.downstream / "scripts/train.sh").read_text() == \
        TRAIN.replace("upkg.main optim.warmup", "upkg.trainer.main optim.plan")
    assert (pair.downstream / "scripts/boost.sh").read_text() == BOOST.replace("optim.warmup", "optim.plan")
    assert head(pair) in (pair.downstream / "requirements.txt").read_text()
    git(pair.downstream, "commit", "-qam", "upgrade upkg")
    again = tmp_path / "again.json"
    assert upgrade(pair, "--dry-run", "--format", "json", "--output", str(again)) == 0
    data = json.loads(again.read_text())
    assert data["steps"] == [] and data["files"] == [] and data["commits"] == 0


def test_a_pin_that_cannot_be_resolved_is_a_one_line_note(pair: Pair, tmp_path: Path) -> None:
    missing = "0123456789abcdef0123456789abcdef01234567"
    (pair.downstream / "requirements.txt").write_text(f"upkg @ git+https://example.invalid/upkg.git@{missing}\n")
    (pair.downstream / "recipe" / "requirements.txt").write_text("upkg>=0.1,<0.3\n")
    out = tmp_path / "upgrade.json"
    assert upgrade(pair, "--dry-run", "--format", "json", "--output", str(out)) == 0
    data = json.loads(out.read_text())
    assert data["files"] == [] and data["steps"] == []
    assert f"requirements.txt:1: the upstream's history has no commit {missing}: its files are not upgraded" \
        in data["notes"]
    assert "recipe/requirements.txt:1: the pin of recipe names the range >=0.1,<0.3, not one commit: its files are " \
           "not upgraded" in data["notes"]
    assert all("\n" not in n for n in data["notes"])


def test_only_the_files_a_pin_puts_in_the_span_are_upgraded(pair: Pair, tmp_path: Path) -> None:
    """scripts/ pinned at the upstream's head (nothing to do), the rest of the repository at its base."""
    (pair.downstream / "scripts" / "requirements.txt").write_text(
        f"upkg @ git+https://example.invalid/upkg.git@{head(pair)}\n")
    out = tmp_path / "upgrade.diff"
    assert upgrade(pair, "--dry-run", "--format", "diff", "--output", str(out)) == 0
    assert "scripts/" not in out.read_text() and "requirements.txt" in out.read_text()


@pytest.mark.parametrize(("toml", "upstream", "said"), [
    ("", "/nowhere/at/all", "bot: error: --upstream: '/nowhere/at/all' is not a name in the registry"),
    ('upstream = "../missing"\n', "", "bot: error: {down}/bot.toml: upstream: '../missing' is not a name in the "
                                      "registry"),
])
def test_an_upstream_that_cannot_be_found_is_one_line_naming_the_setting(
        pair: Pair, toml: str, upstream: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    if toml:
        (pair.downstream / "bot.toml").write_text(toml)
    assert upgrade(pair, "--dry-run", upstream=upstream) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(said.format(down=pair.downstream)) and "\n" not in err


def test_a_target_the_upstream_lacks_is_one_line(pair: Pair, capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade(pair, "--dry-run", to="v9.9.9") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bot: error: --to: ") and "'v9.9.9'" in err and "\n" not in err


def test_the_upgrade_pull_request_is_opened_updated_when_the_target_moves_and_closed_when_done_by_hand(
        pair: Pair, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli import main

    with published(pair, tmp_path, monkeypatch, TOKEN) as hub:
        fake, bare, shown = hub.fake, hub.bare, hub.shown

        def publish(to: str) -> int:
            return main(["upgrade", "--upstream", "upkg", "--repo", "recipes", "--config", str(hub.config), "--to", to,
                         "--quiet"])

        first = head(pair)
        assert publish(first) == 0
        (pr,) = fake.pulls("acme/recipes")
        assert pr["head"] == "bot/upgrade-upkg" and pr["state"] == "open"
        assert pr["title"] == f"Upgrade upkg from {pair.base[:12]} to {first[:12]}"
        body = str(pr["body"])
        for number in (12, 13, 14):
            assert f"#### upkg #\u200b{number}: " in body  # named, linked to nothing on a host that is not GitHub
        assert "`scripts/train.sh:3 upkg.trainer.main`" in body
        assert shown("bot/upgrade-upkg", "scripts/train.sh") == \
            TRAIN.replace("upkg.main optim.warmup", "upkg.trainer.main optim.plan")

        moved = rename(pair, "plan", "policy", 15)  # the target moves: the same pull request, rebuilt
        assert publish(moved) == 0
        (again,) = fake.pulls("acme/recipes")
        assert again["number"] == pr["number"] and again["state"] == "open"
        assert again["title"] == f"Upgrade upkg from {pair.base[:12]} to {moved[:12]}"
        assert shown("bot/upgrade-upkg", "scripts/train.sh") == \
            TRAIN.replace("upkg.main optim.warmup", "upkg.trainer.main optim.policy")
        assert moved in shown("bot/upgrade-upkg", "requirements.txt")

        # the downstream makes the upgrade by hand: nothing is left to do, the pull request is closed
        work = tmp_path / "by-hand"
        git(tmp_path, "clone", "-q", str(bare), str(work))
        (work / "scripts/train.sh").write_text(shown("bot/upgrade-upkg", "scripts/train.sh"))
        (work / "scripts/boost.sh").write_text(shown("bot/upgrade-upkg", "scripts/boost.sh"))
        (work / "requirements.txt").write_text(shown("bot/upgrade-upkg", "requirements.txt"))
        git(work, "-c", "user.name=Maintainer", "-c", "user.email=m@example.invalid", "commit", "-qam",
            "upgrade upkg by hand")
        git(work, "push", "-q", "origin", "main")
        assert publish(moved) == 0
        (closed,) = fake.pulls("acme/recipes")
        assert closed["number"] == pr["number"] and closed["state"] == "closed"
        comments = fake.comments("acme/recipes", pr["number"])
        assert len(comments) == 1 and "fixed on the default branch by" in comments[0]["body"]
        assert "(`upgrade upkg by hand`)" in comments[0]["body"]
        assert "bot/upgrade-upkg" not in fake.branches("acme/recipes")


def test_version_pins_move_to_the_target_version_and_a_bot_toml_ref_to_its_tag(pair: Pair, tmp_path: Path) -> None:
    git(pair.upstream, "tag", "v0.1.0", pair.base)
    git(pair.upstream, "tag", "v0.2.0", head(pair))
    (pair.downstream / "requirements.txt").write_text("upkg==0.1.0\n")
    (pair.downstream / "bot.toml").write_text('upstream = { source = "../upstream", packages = ["upkg"] }\n\n'
                                              '[[pins]]\nkind = "requirements"\npath = "requirements.txt"\n\n'
                                              '[[pins]]\nkind = "ref"\nref = "v0.1.0"\ncovers = ["recipe"]\n')
    out = tmp_path / "upgrade.json"
    assert upgrade(pair, "--dry-run", "--format", "json", "--output", str(out), to="v0.2.0", upstream="") == 0
    data = json.loads(out.read_text())
    assert data["title"] == "Upgrade upkg from 0.1.0 to 0.2.0"
    assert sorted(data["pins"]) == ["bot.toml: ref v0.1.0 -> v0.2.0", "requirements.txt:1: version 0.1.0 -> 0.2.0"]
    assert {"bot.toml", "requirements.txt", "scripts/train.sh"} <= set(data["files"])


def test_a_pin_past_the_target_is_left_as_it_is(pair: Pair, tmp_path: Path) -> None:
    (pair.downstream / "requirements.txt").write_text(f"upkg @ git+https://example.invalid/upkg.git@{head(pair)}\n")
    out = tmp_path / "upgrade.json"
    assert upgrade(pair, "--dry-run", "--format", "json", "--output", str(out), to=pair.renamed) == 0
    data = json.loads(out.read_text())
    assert data["files"] == [] and data["pins"] == []
    assert data["notes"] == [f"requirements.txt: {head(pair)} is past {pair.renamed}: left as it is"]


def test_the_edited_launches_are_composed_against_the_upstream_at_the_target(pair: Pair, tmp_path: Path) -> None:
    out = tmp_path / "upgrade.json"
    assert upgrade(pair, "--dry-run", "--format", "json", "--output", str(out)) == 0
    assert json.loads(out.read_text())["failing_at_target"] == []
    # a launch that fails at the target whatever the upgrade does is listed
    failing_launch = TRAIN.replace("trainer.steps=3", "trainer.steps=3 trainer.nope=1")
    (pair.downstream / "scripts/train.sh").write_text(failing_launch)
    assert upgrade(pair, "--dry-run", "--format", "json", "--output", str(out)) == 0
    failing = json.loads(out.read_text())["failing_at_target"]
    assert len(failing) == 1 and failing[0].startswith("scripts/train.sh:3: [hydra-compose] ") and "nope" in failing[0]


GUARDED_MAIN = '''import hydra


@hydra.main(config_path="../config", config_name="trainer", version_base=None)
def main(cfg):
    print(cfg.optim.lr, cfg.optim.plan, cfg.trainer.steps)
{body}

if __name__ == "__main__":
    main()
'''
OLD_CODE = "    total = cfg.trainer.steps * 2\n    print('doubled', total)\n"


def guard(pair: Pair, own_launch_sets_it: bool) -> None:
    """Two upstream commits: code that always runs (#15), then a new flag `optim.clip` (off) in front of it (#16)."""
    up = pair.upstream
    (up / "upkg/trainer/main.py").write_text(GUARDED_MAIN.format(body=OLD_CODE))
    git(up, "commit", "-qam", "Double the steps (#15)")
    guarded = "    if cfg.optim.clip:\n" + "".join("    " + line for line in OLD_CODE.splitlines(keepends=True))
    (up / "upkg/trainer/main.py").write_text(GUARDED_MAIN.format(body=guarded))
    config = TRAINER.format(key="plan").replace("  plan:", "  clip: false\n  plan:")
    (up / "upkg/config/trainer.yaml").write_text(config)
    if own_launch_sets_it:
        launch = "#!/bin/bash\npython3 -m upkg.trainer.main trainer.steps=2 optim.clip=True\n"
        (up / "examples/run.sh").write_text(launch)
    git(up, "commit", "-qam", "Make the doubling optional (#16)")


@pytest.mark.parametrize("own_launch_sets_it", [False, True])
def test_a_new_flag_in_front_of_old_code_is_set_only_where_the_upstream_set_it_itself(
        pair: Pair, tmp_path: Path, own_launch_sets_it: bool) -> None:
    guard(pair, own_launch_sets_it)
    out = tmp_path / "upgrade.diff"
    assert upgrade(pair, "--dry-run", "--format", "diff", "--output", str(out)) == 0
    assert ("optim.clip=True" in out.read_text()) is own_launch_sets_it
    # --keep-old-defaults: as watch does, the flag set to what launches did before, whatever the upstream's launches
    assert upgrade(pair, "--dry-run", "--format", "diff", "--output", str(out), "--keep-old-defaults") == 0
    assert "optim.clip=True" in out.read_text()
