"""Whole-file behaviour: verification, conflicts, safe writes, rule file globs."""

from __future__ import annotations

import os
from pathlib import Path

from bot.engine.check import check_file
from bot.engine.scan import scan
from bot.engine.write import write_changes
from bot.model import Status
from bot.rules.loader import load_rules
from tests.conftest import make_repo

MBRIDGE = "python3 -m verl.trainer.main_ppo \\\n    actor_rollout_ref.actor.megatron.use_mbridge=False \\\n    x.y=1\n"


def rules_from(tmp_path: Path, **files: str) -> list:  # type: ignore[type-arg]
    directory = tmp_path / "rules"
    directory.mkdir(exist_ok=True)
    for name, text in files.items():
        (directory / f"{name}.yaml").write_text(text)
    return load_rules([directory], include_bundled=False)


def test_a_fix_that_keeps_firing_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    rules = rules_from(tmp_path, never="id: never\nmatch: {key: ['x.y']}\nfix: {rename: y}\n")
    result = check_file("a.sh", MBRIDGE.encode(), rules)
    assert result.change is None
    (finding,) = result.findings
    assert finding.status is Status.MANUAL
    assert "could not be verified" in finding.message and "second run" in finding.message


def test_a_rule_whose_edits_break_the_file_costs_only_its_own_fixes(tmp_path: Path) -> None:
    """Two keys renamed to one name with different values would make a YAML duplicate key: that rule is manual
    (a person chooses, bot.rules.landing), the other is written."""
    rules = rules_from(
        tmp_path,
        paths="id: paths\nmatch: {key: ['data.train_path', 'data.valid_path']}\nfix: {rename: path}\n",
        devices="id: devices\nmatch: {key: ['trainer.devices']}\nfix: {rename: gpus}\n",
    )
    data = b"data:\n  train_path: a\n  valid_path: b\ntrainer:\n  devices: 1\n"
    result = check_file("c.yaml", data, rules)
    assert result.change is not None
    assert result.change.after == data.replace(b"devices", b"gpus")
    assert {(f.rule, f.status) for f in result.findings} == {("paths", Status.MANUAL), ("devices", Status.FIXABLE)}
    assert all("data.path would be set more than once, with different values" in f.message
               for f in result.findings if f.rule == "paths")


def test_a_manual_finding_of_the_same_key_does_not_excuse_a_fix_that_keeps_firing(tmp_path: Path) -> None:
    rules = rules_from(tmp_path, chain="id: chain\nmatch: {key: ['x.y']}\nfix: {map: {1: 2, 2: 3}}\n")
    result = check_file("a.sh", b"python3 -m m x.y=1\npython3 -m m x.y=7\n", rules)
    assert result.change is None
    assert [(f.line, f.status) for f in result.findings] == [(1, Status.MANUAL), (2, Status.MANUAL)]
    assert "second run" in result.findings[0].message


def test_conflicting_fixes_from_two_rules_are_refused(tmp_path: Path) -> None:
    rules = rules_from(
        tmp_path,
        one="id: one\nmatch: {key: ['x.y']}\nfix: {set: 2}\n",
        two="id: two\nmatch: {key: ['x.y']}\nfix: {set: 3}\n",
    )
    result = check_file("a.sh", MBRIDGE.encode(), rules)
    assert result.change is None
    assert {f.rule: f.status for f in result.findings} == {"one": Status.MANUAL, "two": Status.MANUAL}
    assert all("conflicting fixes" in f.message for f in result.findings)


def test_agreeing_fixes_from_two_rules_are_applied_once(tmp_path: Path) -> None:
    rules = rules_from(
        tmp_path,
        one="id: one\nmatch: {key: ['x.y'], value: [1]}\nfix: {set: 2}\n",
        two="id: two\nmatch: {key: ['**.y'], value: [1]}\nfix: {set: 2}\n",
    )
    result = check_file("a.sh", MBRIDGE.encode(), rules)
    assert result.change is not None and result.change.after.endswith(b"    x.y=2\n")


def test_rule_files_glob_limits_where_a_rule_runs(tmp_path: Path) -> None:
    rules = rules_from(tmp_path, only_sh="id: only_sh\nfiles: ['*.sh']\nmatch: {key: ['x.y']}\nfix: {set: 5}\n")
    repo = make_repo(tmp_path / "r", {"a.sh": MBRIDGE, "b.slurm": MBRIDGE})
    report = scan(repo, rules)
    assert [f.path for f in report.findings] == ["a.sh"]


def test_write_changes_edits_files_in_place_and_keeps_their_mode(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE})
    os.chmod(repo / "run.sh", 0o755)
    report = scan(repo, load_rules())
    write_changes(repo, report)
    assert b"use_mbridge=True" in (repo / "run.sh").read_bytes()
    assert os.stat(repo / "run.sh").st_mode & 0o777 == 0o755
    assert all(f.status is Status.FIXED for f in report.findings)
    assert not [p for p in repo.iterdir() if p.name.startswith(".bot-")]


def test_write_refuses_a_file_replaced_by_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text(MBRIDGE)
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE})
    report = scan(repo, load_rules())
    (repo / "run.sh").unlink()
    os.symlink(outside, repo / "run.sh")
    write_changes(repo, report)  # the file becomes an error entry; the run goes on
    assert outside.read_text() == MBRIDGE
    (error,) = report.errors
    assert error.stage == "writing" and "symlink" in error.reason


def test_write_refuses_a_file_changed_since_the_scan(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": MBRIDGE})
    report = scan(repo, load_rules())
    (repo / "run.sh").write_text(MBRIDGE + "# edited meanwhile\n")
    write_changes(repo, report)
    assert (repo / "run.sh").read_text().endswith("# edited meanwhile\n")
    assert "changed on disk" in report.errors[0].reason


def test_a_conflict_does_not_cancel_unrelated_fixes_in_the_file(tmp_path: Path) -> None:
    rules = rules_from(
        tmp_path,
        one="id: one\nmatch: {key: ['x.y']}\nfix: {set: 2}\n",
        two="id: two\nmatch: {key: ['x.y']}\nfix: {remove: true}\n",
        three="id: three\nmatch: {key: ['trainer.logger']}\nfix: {set: wandb}\n",
    )
    src = b"python3 -m m x.y=1\npython3 -m m trainer.logger=console\n"
    result = check_file("a.sh", src, rules)
    assert {f.rule: f.status for f in result.findings} == {
        "one": Status.MANUAL, "two": Status.MANUAL, "three": Status.FIXABLE}
    assert result.change is not None
    assert result.change.after == b"python3 -m m x.y=1\npython3 -m m trainer.logger=wandb\n"


def test_a_fix_is_written_though_its_rule_reports_the_new_value_for_a_person(tmp_path: Path) -> None:
    # a map rule without a value test reports each value it has no mapping for (the new one too)
    rules = rules_from(tmp_path, m="id: m\nmatch: {key: ['x.y']}\nfix: {map: {old: new}}\n")
    result = check_file("a.sh", b"python3 -m m x.y=old\npython3 -m m x.y=other\n", rules)
    assert result.change is not None
    assert result.change.after == b"python3 -m m x.y=new\npython3 -m m x.y=other\n"
    assert [f.status for f in result.findings] == [Status.FIXABLE, Status.MANUAL]
