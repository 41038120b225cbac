"""The downstream set of issue 43 (item 5) and its runner, benchmarks/downstream.py.

A tiny real history stands in for verl's: a Hydra app whose config renames a key (the upstream change C),
two launch scripts under examples/ and one elsewhere. C migrates both scripts; one of them was edited between
A and C's parent, so the downstream copy at A differs from the file C migrated: only that one's lines count.
The stand-in `verl-tree` tool of tests/test_replay_watch.py points the scripts at it; the real `bot` runs.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, git, make_repo
from tests.test_replay_watch import APP, CONFIG_AFTER, CONFIG_BEFORE, TOOL

sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))

import downstream
import downstream_set
from replay_denominator import Corpus

RUN = "#!/bin/bash\npython3 -m lab.main \\\n    trainer.steps=20 \\\n    trainer.warm_steps=5\n"
TUNED = RUN.replace("steps=20", "steps=30")
RULE = ("id: warm-steps-renamed\ntitle: trainer.warm_steps is trainer.warmup_steps\nseverity: warning\n"
        "match:\n  key: [\"**.warm_steps\"]\nfix:\n  rename: warmup_steps\n")


def history_of(root: Path) -> tuple[Corpus, dict[str, Any], downstream_set.Change]:
    """A, a human edit, C (the rename, both scripts migrated): the upgrade A..C of examples/ and the change."""
    history = make_repo(root / "history", {"lab/__init__.py": "", "lab/main.py": APP,
                                            "lab/conf/train.yaml": CONFIG_BEFORE, "examples/run.sh": RUN,
                                            "examples/tuned.sh": RUN, "tools/other.sh": RUN})
    a = git(history, "rev-parse", "HEAD").strip()
    (history / "examples/tuned.sh").write_text(TUNED)
    git(history, "commit", "-qam", "tune the second example")
    parent = git(history, "rev-parse", "HEAD").strip()
    (history / "lab/conf/train.yaml").write_text(CONFIG_AFTER)
    for name, text in (("run.sh", RUN), ("tuned.sh", TUNED)):
        (history / "examples" / name).write_text(text.replace("warm_steps", "warmup_steps"))
    git(history, "commit", "-qam", "rename trainer.warm_steps to trainer.warmup_steps")
    c = git(history, "rev-parse", "HEAD").strip()
    tool = root / "corpus" / "verl-tree"
    tool.parent.mkdir()
    tool.write_text(TOOL.format(history=history, trees=root / "trees"))
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    change = downstream_set.Change("warm-steps-renamed", c, parent, "2026-01-01", "rename", "replay",
                                   {"old": [r"\bwarm_steps\s*[=:]"], "new": [r"\bwarmup_steps\s*[=:]"]},
                                   "warm-steps-renamed.yaml")
    corpus = Corpus(tool.parent)
    lines, dropped = downstream_set.counted(corpus, a, c, "examples", [change])
    upgrade = {"name": "examples-a-to-c", "dir": "examples", "A": a, "B": c, "changes": [change.name],
               "denominator": len(lines), "counted": lines, "left_out": dropped, "kept": True}
    return corpus, upgrade, change


def test_counted_lines_leave_out_what_the_change_migrated_in_an_identical_copy(tmp_path: Path) -> None:
    _, upgrade, _ = history_of(tmp_path)
    # run.sh at C's parent is the downstream copy at A: C's own edit of it is left out; tuned.sh had changed
    # in between, so the humans' migration of the downstream's copy counts (its re-tuned steps do not match)
    assert [(c["path"], c["sign"], c["text"].strip()) for c in upgrade["counted"]] == [
        ("examples/tuned.sh", "-", "trainer.warm_steps=5"), ("examples/tuned.sh", "+", "trainer.warmup_steps=5")]
    assert upgrade["left_out"] == 2
    assert all(c["changes"] == ["warm-steps-renamed"] for c in upgrade["counted"])


def test_the_downstream_repository_is_the_directory_at_a_and_its_pin(tmp_path: Path) -> None:
    corpus, upgrade, _ = history_of(tmp_path)
    repo = downstream.downstream_repository(corpus, upgrade, tmp_path / "built")
    assert git(repo, "ls-files").split() == ["examples/run.sh", "examples/tuned.sh", "requirements-verl.txt"]
    assert (repo / "examples/tuned.sh").read_text() == RUN  # as at A, before the human edit
    assert (repo / "requirements-verl.txt").read_text() == (
        f"verl @ git+https://github.com/volcengine/verl@{upgrade['A']}\n")
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize("mode", ["given", "none"])
def test_the_runner_scores_the_bot_against_the_counted_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             mode: str) -> None:
    corpus, upgrade, change = history_of(tmp_path)
    rules = tmp_path / "replay-rules"
    rules.mkdir()
    (rules / "warm-steps-renamed.yaml").write_text(RULE)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    changes = {change.name: {"name": change.name, "rule": change.rule}}
    row = downstream.measure(corpus, changes, upgrade, mode, tmp_path / "keep", rules_from=rules)
    assert row["denominator"] == 2
    if mode == "none":
        assert (row["rules"], row["covered"], row["bot_lines"], row["right"]) == ([], 0, 0, 0)
        return
    # the given rule renames the key in both scripts: tuned.sh's two lines are the counted ones, covered;
    # run.sh's are the humans' too (C's own edit, left out of the count) and so right
    assert row["rules"] == ["warm-steps-renamed.yaml"]
    assert (row["covered"], row["bot_lines"], row["right"], row["missed_lines"], row["wrong"]) == (2, 4, 4, [], [])
    diff = (tmp_path / "keep" / "examples-a-to-c.given.diff").read_text()
    assert "tools/other.sh" not in diff and "+    trainer.warmup_steps=5" in diff


def test_the_committed_set_holds_at_least_six_upgrades_each_spanning_a_breaking_change() -> None:
    data = downstream_set.load_set(downstream_set.SET)
    changes = {c["name"]: c for c in data["changes"]}
    kept = [u for u in data["upgrades"] if u["kept"]]
    assert len(kept) >= 6 and data["query"]["pin"].startswith("requirements-verl.txt")
    for u in kept:
        assert u["dir"] in ("recipe", "examples") and u["changes"] and u["A"] != u["B"]
        assert u["denominator"] == len(u["counted"]) > 0
        for line in u["counted"]:
            assert set(line["changes"]) <= set(u["changes"])
    for c in changes.values():
        assert c["tokens"]["old"] or c["tokens"]["new"]  # a removed setting has no new form
    recipe = [u for u in kept if u["dir"] == "recipe"]
    assert recipe and all(u["B"] != downstream_set.SUBMODULE for u in recipe)
