"""Rule packs (issue 43, item 4) over real git repositories (tests.downstream_repos): the upstream `upkg` renames
`optim.warmup` to `optim.schedule` in its YAML (#12), moves its entry point (#13), then checks that `trainer.steps`
is 10 (#15); `bot pack build` keeps what an upgrade infers from each, and `bot upgrade --pack` runs it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from bot.rules.loader import parse_rule
from tests.conftest import git
from tests.downstream_repos import MAIN, Pair, published, upstream_and_downstream

CHECKED = "def main(cfg):\n    assert cfg.trainer.steps == 10, 'the trainer runs 10 steps'\n"


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    made = upstream_and_downstream(tmp_path)
    main = made.upstream / "upkg/trainer/main.py"
    assert main.read_text() == MAIN.format(where="../config", key="schedule")
    main.write_text(main.read_text().replace("def main(cfg):\n", CHECKED))
    git(made.upstream, "commit", "-qam", "Check the trainer's steps (#15)")
    return made


def bot(*args: str) -> int:
    from bot.cli import main

    return main(list(args))


def build(pair: Pair, output: Path, start: str | None = None, end: str = "HEAD", upstream: Path | None = None) -> int:
    return bot("pack", "build", "--upstream", str(upstream or pair.upstream), "--from", start or pair.base, "--to",
               end, "--output", str(output), "--packages", "upkg", "--quiet")


def upgrade(pair: Pair, out: Path, *extra: str) -> int:
    return bot("upgrade", "--repo", str(pair.downstream), "--to", "HEAD", "--upstream", str(pair.upstream),
               "--dry-run", "--format", "diff", "--output", str(out), "--quiet", *extra)


def files(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_the_pack_keeps_each_commits_rules_with_the_commit_and_the_evidence(pair: Pair, tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    assert build(pair, pack) == 0
    index = YAML(typ="safe").load((pack / "pack.yaml").read_text())
    head = git(pair.upstream, "rev-parse", "HEAD").strip()
    assert index["format"] == 1 and index["upstream"]["name"] == str(pair.upstream)
    assert index["range"] == {"from": {"given": pair.base, "commit": pair.base},
                              "to": {"given": "HEAD", "commit": head}}
    assert index["walked"] == 3 and index["bot"] and index["built"]
    entries = index["rules"]
    assert [e["pr"] for e in entries] == [12, 13, 15]
    assert [e["commit"] for e in entries] == [pair.renamed, pair.moved, head]
    renamed, moved, checked = entries
    assert renamed["id"].startswith("inferred-config-optim-warmup") and "optim.schedule" in renamed["reason"]
    assert moved["id"].startswith("inferred-entry-upkg")
    assert checked["id"] == "inferred-steps" and "cfg.trainer.steps == 10" in checked["reason"]
    for entry in entries:
        path = pack / entry["file"]
        text = path.read_text()
        assert text.startswith(f"# from upstream commit {entry['commit']}: {entry['subject']}\n")
        rule = parse_rule(YAML(typ="safe").load(text), path)
        assert rule.id == entry["id"] and rule.upstream == f"#{entry['pr']}"


def test_the_same_range_gives_the_same_files_byte_for_byte(pair: Pair, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    pack = tmp_path / "pack"
    assert build(pair, pack) == 0
    first = files(pack)
    assert build(pair, pack) == 0  # again in place: nothing new, the same bytes (its time of build kept)
    assert files(pack) == first
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert build(pair, tmp_path / "one") == 0
    assert build(pair, tmp_path / "two") == 0
    assert files(tmp_path / "one") == files(tmp_path / "two")
    assert "built: '2023-11-14T22:13:20Z'" in (tmp_path / "one/pack.yaml").read_text()


def test_a_longer_range_keeps_the_earlier_entries_and_reads_only_the_new_commits(
        pair: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack"
    assert build(pair, pack, end=pair.moved) == 0
    earlier = files(pack)
    assert [e["pr"] for e in YAML(typ="safe").load(earlier["pack.yaml"])["rules"]] == [12, 13]
    capsys.readouterr()
    assert build(pair, pack) == 0
    assert "1 read now, 1 rules added" in capsys.readouterr().out
    later = files(pack)
    assert all(later[name] == body for name, body in earlier.items() if name != "pack.yaml")
    index = YAML(typ="safe").load(later["pack.yaml"])
    assert [e["pr"] for e in index["rules"]] == [12, 13, 15] and index["range"]["from"]["commit"] == pair.base
    shutil.rmtree(pack)
    assert build(pair, pack) == 0  # the whole range at once: the same rules, the same files
    assert {n: b for n, b in files(pack).items() if n != "pack.yaml"} == \
           {n: b for n, b in later.items() if n != "pack.yaml"}


def test_an_upgrade_with_the_pack_makes_the_edits_it_makes_without_it(pair: Pair, tmp_path: Path) -> None:
    assert build(pair, tmp_path / "pack") == 0
    assert upgrade(pair, tmp_path / "inferred.diff") == 0
    assert upgrade(pair, tmp_path / "packed.diff", "--pack", str(tmp_path / "pack")) == 0
    packed = (tmp_path / "packed.diff").read_text()
    assert packed == (tmp_path / "inferred.diff").read_text()
    # the rename read from the YAML, the moved entry point and the new check, each from the pack
    assert "+python3 -m upkg.trainer.main optim.schedule=linear trainer.steps=10\n" in packed
    assert "+python3 -m recipe.main recipe.boost=3 optim.schedule=constant trainer.save_every=2\n" in packed


def test_the_pack_runs_its_rules_and_infers_nothing(pair: Pair, tmp_path: Path) -> None:
    import json

    pack = tmp_path / "pack"
    assert build(pair, pack) == 0
    index = YAML(typ="safe").load((pack / "pack.yaml").read_text())
    dropped = next(e for e in index["rules"] if e["pr"] == 15)
    index["rules"].remove(dropped)  # a pack that does not know the check: the upgrade does not infer it either
    (pack / "pack.yaml").write_text(json.dumps(index))
    assert upgrade(pair, tmp_path / "packed.json", "--pack", str(pack), "--format", "json") == 0
    data = json.loads((tmp_path / "packed.json").read_text())
    assert [s["pr"] for s in data["steps"]] == [12, 13]
    assert "trainer.steps=3" in (tmp_path / "packed.json").read_text()


def test_a_pack_of_another_upstream_is_refused_in_one_line(pair: Pair, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "--quiet", str(pair.upstream), str(other)], check=True)
    assert build(pair, tmp_path / "pack", upstream=other) == 0
    capsys.readouterr()
    assert upgrade(pair, tmp_path / "refused.diff", "--pack", str(tmp_path / "pack")) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"bot: error: --pack {tmp_path / 'pack'}: the pack is of upstream {str(other)!r}, but --upstream "
                   f"names {str(pair.upstream)!r} (expected a pack built with --upstream {pair.upstream})")
    assert not (tmp_path / "refused.diff").exists()


def test_a_directory_that_is_no_pack_is_a_one_line_error(pair: Pair, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade(pair, tmp_path / "x.diff", "--pack", str(tmp_path)) == 2
    assert capsys.readouterr().err.strip() == (f"bot: error: --pack {tmp_path}: no pack.yaml (expected a directory "
                                               "`bot pack build` wrote)")


def test_a_pack_built_for_the_old_defaults_is_refused_by_an_upgrade_taking_the_new_ones(
        pair: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack"
    assert bot("pack", "build", "--upstream", str(pair.upstream), "--from", pair.base, "--to", pair.renamed,
               "--output", str(pack), "--packages", "upkg", "--quiet", "--keep-old-defaults") == 0
    capsys.readouterr()
    assert upgrade(pair, tmp_path / "x.diff", "--pack", str(pack)) == 2
    assert capsys.readouterr().err.strip() == (f"bot: error: --pack {pack}: built with --keep-old-defaults; expected "
                                               "the upgrade with it too")
    assert build(pair, pack) == 2  # nor extended without it
    assert "policy: built with keep_old_defaults=True" in capsys.readouterr().err


def test_a_commit_that_only_edits_config_yaml_is_still_composed_and_its_fix_made(pair: Pair, tmp_path: Path) -> None:
    from tests.downstream_repos import TRAINER

    (pair.upstream / "upkg/config/trainer.yaml").write_text(TRAINER.format(key="schedule") + "  seed: 0\n")
    git(pair.upstream, "commit", "-qam", "Give the trainer a seed (#16)")
    (pair.downstream / "scripts/seed.sh").write_text("#!/bin/bash\npython3 -m upkg.main +trainer.seed=1\n")
    git(pair.downstream, "add", "-A")
    git(pair.downstream, "commit", "-qm", "a seeded run")
    assert build(pair, tmp_path / "pack") == 0
    index = YAML(typ="safe").load((tmp_path / "pack/pack.yaml").read_text())
    assert 16 not in [e["pr"] for e in index["rules"]]  # no rule: only its compose check, run by the upgrade
    assert upgrade(pair, tmp_path / "inferred.diff") == 0
    assert upgrade(pair, tmp_path / "packed.diff", "--pack", str(tmp_path / "pack")) == 0
    packed = (tmp_path / "packed.diff").read_text()
    assert "+python3 -m upkg.trainer.main trainer.seed=1\n" in packed  # `+` dropped: the config now holds the key
    assert packed == (tmp_path / "inferred.diff").read_text()


def test_the_upgrade_pull_request_runs_the_pack(pair: Pair, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert build(pair, tmp_path / "pack") == 0
    with published(pair, tmp_path, monkeypatch, "ghp_packT0ken0123456789abcdef01234567") as hub:
        assert bot("upgrade", "--upstream", "upkg", "--repo", "recipes", "--config", str(hub.config), "--to", "HEAD",
                   "--quiet", "--pack", str(tmp_path / "pack")) == 0
        (pr,) = hub.fake.pulls("acme/recipes")
        assert pr["head"] == "bot/upgrade-upkg" and pr["state"] == "open"
        assert f"--pack {tmp_path / 'pack'}" in str(pr["body"])  # the command to reproduce it
        assert "python3 -m upkg.trainer.main optim.schedule=linear trainer.steps=10\n" in \
            hub.shown("bot/upgrade-upkg", "scripts/train.sh")
