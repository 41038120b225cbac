"""Format 2: a whole migration in one rule file, its steps evaluated under one id; and key moves that carry a
subtree (`a.* -> b.c.*`), in either format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import UserError
from bot.rules.loader import load_rules
from bot.rules.moves import moved_key
from tests.conftest import make_repo

MIGRATION = """\
format: 2
id: scoring-moved
title: The scoring settings moved
migration:
  moves:
    scorer.penalty.**: score.kwargs.penalty_cfg.**
    scorer.manager: score.manager.name
  values:
    "**.sampler.kind": {greedy_async: greedy}
  removals:
    - data.eval_batch
"""


@pytest.mark.parametrize(("source", "target", "key", "moved"), [
    ("a.*", "b.c.*", "a.x", "b.c.x"),
    ("a.*.d", "b.*.e", "a.x.d", "b.x.e"),
    ("a.**", "b.**", "a.x.y", "b.x.y"),
    ("a.**", "b.**", "a", "b"),  # `**` takes no segment: the mapping itself moves
    ("**.optim.*", "**.schedule.*", "m.optim.lr", "m.schedule.lr"),
    ("**.optim.*", "**.schedule.*", "optim.lr", "schedule.lr"),
    ("a.*.b.**", "c.*.**", "a.k.b.u.v", "c.k.u.v"),
    ("a.*", "b.*", "a", None),  # `*` is one segment, never none
    ("a.*", "b.*", "z.x", None),
])
def test_a_move_carries_what_the_old_keys_wildcards_matched(source: str, target: str, key: str,
                                                            moved: str | None) -> None:
    assert moved_key(source, target, key) == moved


def _rules(tmp_path: Path, text: str, name: str = "scoring-moved") -> list:  # type: ignore[type-arg]
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return load_rules([folder], include_bundled=False)


def test_a_migration_is_one_rule_of_several_steps(tmp_path: Path) -> None:
    (rule,) = _rules(tmp_path, MIGRATION)
    assert rule.id == "scoring-moved" and rule.match_key == () and rule.fix is None
    assert [step.id for step in rule.steps] == ["scoring-moved"] * 4
    assert [(s.match_key[0].pattern, s.fix.rename if s.fix else None) for s in rule.steps] == [
        ("scorer.penalty.**", "score.kwargs.penalty_cfg.**"), ("scorer.manager", "score.manager.name"),
        ("**.sampler.kind", None), ("data.eval_batch", None)]
    assert rule.steps[2].fix is not None and rule.steps[2].fix.map == (("greedy_async", "greedy"),)
    assert rule.steps[3].fix is not None and rule.steps[3].fix.remove


@pytest.mark.parametrize(("text", "expected"), [
    ("id: scoring-moved\nmigration: {removals: [a.b]}\n",
     "format: expected 2: a rule with a migration section is format 2"),
    ("format: 2\nid: scoring-moved\nmatch: {key: a.b}\nfix: {remove: true}\n",
     "migration: expected a migration section: format 2 is a migration"),
    ("format: 3\nid: scoring-moved\nmigration: {removals: [a.b]}\n", "format: expected 1 or 2, got the number 3"),
    ("format: 2\nid: scoring-moved\nmatch: {key: a.b}\nmigration: {removals: [a.b]}\n",
     "match: expected it inside migration.steps"),
    ("format: 2\nid: scoring-moved\nmigration: {renames: {a: b}}\n", "migration.renames: unknown field"),
    ("format: 2\nid: scoring-moved\nmigration: {moves: {a.*.b: c.**}}\n",
     "migration.moves.a.*.b.fix.rename: expected the new key's wildcards (**) to be the old key's"),
    ("format: 2\nid: scoring-moved\nmigration: {moves: {a.x*: c.*}}\n",
     "migration.moves.a.x*.fix.rename: expected an old key whose wildcards are whole segments"),
    ("format: 2\nid: scoring-moved\nmigration: {values: {a.b: [1, 2]}}\n",
     "migration.values.a.b.fix.map: expected a non-empty mapping of old value to new"),
    ("format: 2\nid: scoring-moved\nmigration: {removals: [{value: [1]}]}\n",
     "migration.removals[0].key: expected the key globs whose overrides are removed"),
    ("format: 2\nid: scoring-moved\nmigration: {steps: [{fix: {set: 1}}]}\n",
     "migration.steps[0].fix: expected a match section"),
    ("format: 2\nid: scoring-moved\nmigration: {steps: [{match: {key: a}, fix: {set: 1, drop_if_default: true}}]}\n",
     "migration.steps[0].fix.drop_if_default: expected a rename beside it"),
    ("format: 2\nid: scoring-moved\nmigration: {drop_if_default: 1, moves: {a: b}}\n",
     "migration.drop_if_default: expected true or false"),
])
def test_a_bad_migration_is_a_one_line_error_naming_its_place(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(UserError) as caught:
        _rules(tmp_path, text)
    message = str(caught.value)
    assert "\n" not in message and "scoring-moved.yaml: " in message
    assert expected in message, message


def test_a_migration_reports_and_edits_as_one_rule(tmp_path: Path) -> None:
    from bot.cli import main

    script = ("python3 -m lab.train \\\n    scorer.penalty.enable=True \\\n    scorer.penalty.len=64 \\\n"
              "    scorer.manager=batched \\\n    model.sampler.kind=greedy_async \\\n    data.eval_batch=4 \\\n"
              "    data.train_batch=8\n")
    repo = make_repo(tmp_path / "repo", {"run.sh": script})
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "scoring-moved.yaml").write_text(MIGRATION, encoding="utf-8")
    out = tmp_path / "report.json"
    main(["run", "--repo", str(repo), "--no-bundled", "--rules", str(tmp_path / "rules"), "--no-cache",
          "--no-baseline", "--format", "json", "--output", str(out)])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [r["id"] for r in report["rules"]] == ["scoring-moved"]
    assert {f["rule"] for f in report["findings"]} == {"scoring-moved"} and len(report["findings"]) == 5
    main(["run", "--repo", str(repo), "--no-bundled", "--rules", str(tmp_path / "rules"), "--no-cache", "--write"])
    assert (repo / "run.sh").read_text(encoding="utf-8") == (
        "python3 -m lab.train \\\n    score.kwargs.penalty_cfg.enable=True \\\n    score.kwargs.penalty_cfg.len=64 \\\n"
        "    score.manager.name=batched \\\n    model.sampler.kind=greedy \\\n    data.train_batch=8\n")


def test_format_1_renames_a_subtree_too(tmp_path: Path) -> None:
    (rule,) = _rules(tmp_path, "id: penalty-moved\nmatch: {key: ['scorer.penalty.*']}\n"
                               "fix: {rename: 'score.penalty_cfg.*'}\n", "penalty-moved")
    assert rule.fix is not None and rule.fix.rename == "score.penalty_cfg.*" and not rule.steps


def test_a_pull_request_of_a_migration_is_titled_by_its_steps(tmp_path: Path) -> None:
    """One kind of edit: its verb (a subtree moved: `move`); several kinds: the migration's title."""
    from bot.engine.scan import scan
    from bot.publish.wording import summary

    repo = make_repo(tmp_path / "repo", {"run.sh": "python3 -m lab.train scorer.penalty.len=64\n",
                                         "more.sh": "python3 -m lab.train scorer.penalty.len=8 data.eval_batch=2\n"})
    rules = _rules(tmp_path, MIGRATION)
    report = scan(repo, rules, paths={"run.sh"})
    moved = "move scorer.penalty to score.kwargs.penalty_cfg in 1 launch script"
    assert summary(rules, report, report.findings) == moved
    report = scan(repo, rules)
    assert summary(rules, report, report.findings) == "the scoring settings moved (2 launch scripts)"


def test_the_replay_sets_rules_load_in_both_formats() -> None:
    """tests/realworld/replay holds the replay set's rules in format 1, and migrations/ the same as format 2
    (benchmarks/replay.py --rules-from), each one migration of the same id."""
    from tests.conftest import ROOT

    replay = ROOT / "tests" / "realworld" / "replay"
    first = {r.id: r for r in load_rules([replay], include_bundled=False)}
    second = {r.id: r for r in load_rules([replay / "migrations", ROOT / "tests" / "realworld" / "migrations"],
                                          include_bundled=False)}
    assert set(first) < set(second) and "reward-config-unified" in second
    assert all(not r.steps for r in first.values()) and all(r.steps for r in second.values())


def test_a_moved_override_that_is_the_new_keys_default_is_dropped(tmp_path: Path) -> None:
    """`drop_if_default`: the new key's value in the launch's composed config (after the change) decides; an
    override of another value is moved, and so is one the launch's config cannot tell."""
    from bot.engine.scan import scan

    trainer = ("import hydra\n\n\n@hydra.main(config_path='conf', config_name='main', version_base=None)\n"
               "def main(cfg):\n    print(cfg)\n")
    repo = make_repo(tmp_path / "repo", {
        "lab/train.py": trainer,
        "lab/conf/main.yaml": "score:\n  manager:\n    name: naive\n  kwargs:\n    penalty_cfg:\n      len: 64\n",
        "same.sh": "python3 lab/train.py scorer.manager=naive scorer.penalty.len=64\n",
        "other.sh": "python3 lab/train.py scorer.manager=batched scorer.penalty.len=${LEN}\n",
        "elsewhere.sh": "python3 -m not_here.train scorer.manager=naive\n",
    })
    text = MIGRATION.split("  values:")[0] + "  drop_if_default: true\n"
    rules = _rules(tmp_path, text)
    report = scan(repo, rules)
    said = {(f.path, f.key): f.message.split("; ", 1)[1] for f in report.findings}
    assert said == {
        ("same.sh", "scorer.manager"): "removed: score.manager.name defaults to naive",
        ("same.sh", "scorer.penalty.len"): "removed: score.kwargs.penalty_cfg.len defaults to 64",
        ("other.sh", "scorer.manager"): "renamed to score.manager.name",
        ("other.sh", "scorer.penalty.len"): "renamed to score.kwargs.penalty_cfg.len",
        ("elsewhere.sh", "scorer.manager"): "renamed to score.manager.name",
    }


def test_a_config_mapping_a_subtree_move_takes_moves_whole_and_never_into_itself(tmp_path: Path) -> None:
    """The mapping's lines (comments, blank lines) go below its new key, indented for their place; its keys are
    no findings of their own; a move into the mapping's own subtree is left to a person."""
    from bot.engine.scan import scan

    config = ("run:\n  epochs: 3\nscorer:\n  penalty:\n    enable: true   # on\n\n    len: 64\n  manager: x\n"
              "score:\n  kwargs: {}\n")
    repo = make_repo(tmp_path / "repo", {"conf/run.yaml": config})
    report = scan(repo, _rules(tmp_path, MIGRATION.split("    scorer.manager")[0]))
    assert [(f.key, f.status.value) for f in report.findings] == [("scorer.penalty", "fixable")]
    (change,) = report.changes
    assert change.after.decode() == ("run:\n  epochs: 3\nscorer:\n  manager: x\nscore:\n  kwargs:\n"
                                     "    penalty_cfg:\n      enable: true   # on\n\n      len: 64\n")
    into = "format: 2\nid: scoring-moved\nmigration:\n  moves:\n    scorer.penalty.**: scorer.penalty.old.**\n"
    report = scan(repo, _rules(tmp_path, into))
    assert [f.message.split("; ")[1] for f in report.findings] == [
        "the mapping would move into itself: a person must move this value (not written: renamed to "
        "scorer.penalty.old)"]
