"""benchmarks/replay.py in watch mode (issue 42): `bot watch` sees the framework part only, and is scored.

A tiny real history stands in for verl's: one Hydra app whose config renames a key, and one launch script
the human commit migrates. A stand-in for the corpus's `verl-tree` tool (the same two calls: `--history`,
and a one-commit tree of a commit) points the benchmark at it. The real `bot` console script runs.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, git, make_repo

sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))

import replay
from replay_denominator import Corpus

APP = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="train", version_base=None)\n'
       'def main(cfg):\n    pass\n')
CONFIG_BEFORE = "trainer:\n  steps: 10\n  warm_steps: 0\n"
CONFIG_AFTER = "trainer:\n  steps: 10\n  warmup_steps: 0\n"
SCRIPT_BEFORE = "#!/bin/bash\npython3 -m lab.main \\\n    trainer.steps=20 \\\n    trainer.warm_steps=5\n"
SCRIPT_AFTER = "#!/bin/bash\npython3 -m lab.main \\\n    trainer.steps=20 \\\n    trainer.warmup_steps=5\n"

TOOL = """#!/usr/bin/env bash
set -euo pipefail
if [ "$1" = --history ]; then echo "{history}"; exit 0; fi
full=$(git -C "{history}" rev-parse --verify "$1^{{commit}}")
dir="{trees}/$full"
if [ ! -d "$dir/.git" ]; then
  mkdir -p "$dir"
  git -C "{history}" archive "$full" | tar -x -C "$dir"
  (cd "$dir" && git init -q && git add -A && git commit -qm "tree at $full") >&2
fi
echo "$dir"
"""


def corpus_of(root: Path) -> tuple[Corpus, dict[str, Any]]:
    """A history of two commits (the parent, the human migration) and the set entry describing it."""
    history = make_repo(root / "history", {"lab/__init__.py": "", "lab/main.py": APP,
                                            "lab/conf/train.yaml": CONFIG_BEFORE, "examples/run.sh": SCRIPT_BEFORE})
    parent = git(history, "rev-parse", "HEAD").strip()
    (history / "lab/conf/train.yaml").write_text(CONFIG_AFTER)
    (history / "examples/run.sh").write_text(SCRIPT_AFTER)
    git(history, "commit", "-qam", "rename trainer.warm_steps to trainer.warmup_steps")
    sha = git(history, "rev-parse", "HEAD").strip()
    tool = root / "corpus" / "verl-tree"
    tool.parent.mkdir()
    tool.write_text(TOOL.format(history=history, trees=root / "trees"))
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    entry = {"name": "warm-steps-renamed", "sha": sha, "parent": parent, "format": "current",
             "rule": "none.yaml", "kind": "rename", "gaps": [],
             "tokens": {"old": [r"\bwarm_steps\s*[=:]"], "new": [r"\bwarmup_steps\s*[=:]"]}}
    return Corpus(tool.parent), entry


def test_the_scratch_repository_holds_the_framework_part_only(tmp_path: Path) -> None:
    corpus, entry = corpus_of(tmp_path)
    repo = replay.watch_repository(corpus, entry, tmp_path / "scratch")
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "2"
    assert git(repo, "show", "HEAD~1:lab/conf/train.yaml") == CONFIG_BEFORE
    # the second commit is the config change alone; the script the humans migrated is as the parent had it
    assert git(repo, "diff", "--name-only", "HEAD~1", "HEAD").split() == ["lab/conf/train.yaml"]
    assert (repo / "lab/conf/train.yaml").read_text() == CONFIG_AFTER
    assert (repo / "examples/run.sh").read_text() == SCRIPT_BEFORE
    assert git(repo, "status", "--porcelain") == ""
    assert "warmup_steps" not in git(repo, "log", "-p", "--all", "--", "examples")


def test_watch_mode_runs_watch_and_scores_its_diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, entry = corpus_of(tmp_path)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    keep = tmp_path / "keep"
    row = replay.measure(corpus, entry, "watch", keep)
    assert row["denominator"] == 2  # the removed and the added script line
    assert row["seconds"] is not None  # it ran, although no rule of the set is loaded
    # compose-check's drift (hydra/renames.py) already fixes a plain key the config renamed: the scored diff
    # is the humans' own, both lines covered and right
    assert (row["covered"], row["bot_lines"], row["right"], row["missed_lines"]) == (2, 2, 2, [])
    assert "+    trainer.warmup_steps=5" in (keep / "warm-steps-renamed.watch.diff").read_text()
    stderr = (keep / "warm-steps-renamed.watch.stderr").read_text()
    assert "local repository" in stderr  # watch read the scratch repository where it is, as a dry run
    # the command the benchmark states: no --rules, no bundled rule, a dry run, a diff
    cmd = replay.bot_command(corpus, entry, "watch", tmp_path / "again")
    assert cmd[:2] == ["bot", "watch"] and "--rules" not in cmd
    assert cmd[-4:] == ["--no-bundled", "--dry-run", "--format", "diff"]


def followup_corpus(root: Path) -> tuple[Corpus, dict[str, Any]]:
    """U renames the key and migrates one script; a later commit F migrates the other one, which U missed."""
    corpus, _ = corpus_of(root)  # its history: the parent, then U (the rename, examples/run.sh migrated)
    history = corpus.history
    upstream = git(history, "rev-parse", "HEAD").strip()
    upstream_parent = git(history, "rev-parse", "HEAD~1").strip()
    (history / "examples/late.sh").write_text(SCRIPT_BEFORE.replace("steps=20", "steps=30"))
    git(history, "add", "-A")
    git(history, "commit", "-qm", "add a launch written in the old form")
    parent = git(history, "rev-parse", "HEAD").strip()
    (history / "examples/late.sh").write_text(SCRIPT_AFTER.replace("steps=20", "steps=30"))
    git(history, "commit", "-qam", "fix: the late launch uses trainer.warmup_steps")
    sha = git(history, "rev-parse", "HEAD").strip()
    entry = {"name": "warm-steps-late", "upstream": upstream, "upstream_parent": upstream_parent, "sha": sha,
             "parent": parent, "format": "watch",
             "tokens": {"old": [r"\bwarm_steps\s*[=:]"], "new": [r"\bwarmup_steps\s*[=:]"]}}
    return corpus, entry


def test_a_followup_is_replayed_as_watch_over_u_at_fs_parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, entry = followup_corpus(tmp_path)
    repo = replay.followup_repository(corpus, entry, tmp_path / "scratch")
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "3"
    # HEAD~2..HEAD~1 is U whole (its own launch edit too); the work tree is F's parent; F is nowhere
    assert git(repo, "diff", "--name-only", "HEAD~2", "HEAD~1").split() == ["examples/run.sh", "lab/conf/train.yaml"]
    assert (repo / "examples/late.sh").read_text() == SCRIPT_BEFORE.replace("steps=20", "steps=30")
    assert git(repo, "status", "--porcelain") == ""
    assert "warmup_steps" not in git(repo, "log", "-p", "--all", "--", "examples/late.sh")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    row = replay.measure(corpus, entry, "followups", tmp_path / "keep")
    # scored against F's lines only: the late launch's removed and added line, both in the bot's diff
    assert (row["denominator"], row["covered"], row["bot_lines"], row["right"]) == (2, 2, 2, 2)
    cmd = replay.bot_command(corpus, entry, "followups", tmp_path / "again")
    assert cmd[:2] == ["bot", "watch"] and cmd[cmd.index("--before") + 1] == "HEAD~2" and "--rules" not in cmd


def test_the_followup_set_is_fixed_with_no_rules() -> None:
    """The set's rules directory is empty: the evaluation runs no hand-written rule."""
    rules = ROOT / "tests" / "realworld" / "followups" / "rules"
    assert [p.name for p in rules.iterdir()] == [".gitkeep"]
    data = replay.load_set(replay.FOLLOWUPS / "set.json")
    assert len(data["pairs"]) >= 8
    for pair in data["pairs"]:
        assert pair["upstream"] != pair["sha"] and pair["tokens"]["old"] and pair["tokens"]["new"] and pair["why"]
        assert pair["denominator"] == len(pair["counted"]) > 0
