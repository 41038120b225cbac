"""The upgrade set of issue 43 (item 5): the stored set's shape, and scripts/upgrade_set.py's scoring and
downstream repository on small fixtures of our own (no corpus)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.downstream.requirement import requirement_pin
from tests.conftest import ROOT, git, make_repo

sys.path.insert(0, str(ROOT / "scripts"))

import upgrade_set
from replay_denominator import parse_diff

SHA = re.compile(r"^[0-9a-f]{40}$")


@pytest.fixture(scope="module")
def stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(upgrade_set.SET.read_text(encoding="utf-8"))
    return data


def test_the_set_states_its_query_and_labels_every_change(stored: dict[str, Any]) -> None:
    assert stored["issue"] == 43 and stored["item"] == 5
    assert {"versions", "dirs", "changes", "human_diff", "left_out", "pin", "baseline"} <= set(stored["query"])
    names = [c["name"] for c in stored["changes"]]
    assert len(names) == len(set(names))
    for c in stored["changes"]:
        assert SHA.match(c["sha"]) and SHA.match(c["parent"]), c["name"]
        assert c["pr"] is None or f"(#{c['pr']})" in c["subject"], c["name"]
        assert c["tokens"]["old"] or c["tokens"]["new"], c["name"]
        for pattern in c["tokens"]["old"] + c["tokens"]["new"]:
            re.compile(pattern)


def test_each_upgrade_spans_a_breaking_change_and_counts_lines_its_tokens_match(stored: dict[str, Any]) -> None:
    changes = {c["name"]: c for c in stored["changes"]}
    assert len(stored["upgrades"]) >= 6
    for u in stored["upgrades"]:
        assert u["dir"] in ("recipe", "examples") and u["name"].startswith(u["dir"] + "-")
        assert SHA.match(u["A"]) and SHA.match(u["B"]) and u["A"] != u["B"]
        assert u["pin"] == {"file": "requirements-verl.txt",
                            "line": f"verl @ git+https://github.com/volcengine/verl@{u['A']}"}
        span = [c["name"] for c in u["changes"]]
        assert span and set(span) <= set(changes)
        assert u["kept"] and u["denominator"] == len(u["counted"]) > 0
        assert sum(c["counted"] for c in u["changes"]) >= u["denominator"]  # a line two changes match: both
        for line in u["counted"]:
            assert line["path"].startswith(u["dir"] + "/") and line["sign"] in "+-"
            assert line["changes"] and set(line["changes"]) <= set(span)
            side = "old" if line["sign"] == "-" else "new"
            for name in line["changes"]:
                assert any(re.search(p, line["text"]) for p in changes[name]["tokens"][side]), (u["name"], line)


def test_the_pin_line_is_a_commit_pin_of_verl() -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert requirement_pin(upgrade_set.pin_line(sha), "verl", ("verl",)) == ("commit", sha)


def test_pr_number_is_the_last_one_of_the_subject() -> None:
    assert upgrade_set.pr_number("[trainer] fix: rename the warm key (#12) (#3739)") == 3739
    assert upgrade_set.pr_number("rename the warm key") is None


HUMAN = """\
--- a/examples/run.sh
+++ b/examples/run.sh
@@ -3 +3 @@
-    trainer.warm_steps=5
+    trainer.warmup_steps=5
@@ -6 +6 @@
-    trainer.steps=20
+    trainer.steps=30
--- a/examples/other.sh
+++ b/examples/other.sh
@@ -2 +2 @@
-    trainer.warm_steps=1
+    trainer.warmup_steps=1
"""

BOT_RENAME = """\
--- a/examples/run.sh
+++ b/examples/run.sh
@@ -3 +3 @@
-    trainer.warm_steps=5
+    trainer.warmup_steps=5
--- a/examples/other.sh
+++ b/examples/other.sh
@@ -2 +2 @@
-    trainer.warm_steps=1
+    trainer.warmup_steps=1 # renamed
"""

BOT_AGAIN = """\
--- a/examples/run.sh
+++ b/examples/run.sh
@@ -3 +3 @@
-    trainer.warm_steps=5
+    trainer.warmup_steps=5
"""

COUNTED = [{"path": "examples/run.sh", "sign": "-", "text": "    trainer.warm_steps=5", "changes": ["warm"]},
           {"path": "examples/run.sh", "sign": "+", "text": "    trainer.warmup_steps=5", "changes": ["warm"]},
           {"path": "examples/other.sh", "sign": "-", "text": "    trainer.warm_steps=1", "changes": ["warm"]},
           {"path": "examples/other.sh", "sign": "+", "text": "    trainer.warmup_steps=1", "changes": ["warm"]}]


def test_covered_counts_counted_lines_the_bot_wrote_and_right_the_bot_lines_the_humans_wrote() -> None:
    human = upgrade_set.diff_keys(parse_diff(HUMAN))
    bot = upgrade_set.diff_keys(parse_diff(BOT_RENAME))
    s = upgrade_set.score(COUNTED, human, bot)
    assert (s.counted, s.covered, s.bot_lines, s.right) == (4, 3, 4, 3)
    assert s.missed == ["examples/other.sh +    trainer.warmup_steps=1"]
    assert s.wrong == ["examples/other.sh +    trainer.warmup_steps=1 # renamed"]
    assert s.in_deleted == 0
    # the humans deleted other.sh later in the span: its wrong line is counted apart too, and still not right
    apart = upgrade_set.score(COUNTED, human, bot, frozenset({"examples/other.sh"}))
    assert (apart.right, apart.in_deleted) == (3, 1)


def test_two_changes_writing_the_same_line_count_it_once_in_the_upgrade() -> None:
    human = upgrade_set.diff_keys(parse_diff(HUMAN))
    runs = [upgrade_set.diff_keys(parse_diff(t)) for t in (BOT_RENAME, BOT_AGAIN)]
    s = upgrade_set.score(COUNTED, human, upgrade_set.merge(runs))
    assert (s.covered, s.bot_lines, s.right) == (3, 4, 3)
    assert upgrade_set.score(COUNTED, human, upgrade_set.merge([])).as_dict() == {
        "counted": 4, "covered": 0, "bot_lines": 0, "right": 0, "in_deleted": 0, "missed": sorted(
            f"{c['path']} {c['sign']}{c['text']}" for c in COUNTED), "wrong": []}


def test_the_downstream_is_the_directory_at_a_and_its_pin(tmp_path: Path) -> None:
    history = make_repo(tmp_path / "history", {"lab/main.py": "print()\n", "examples/run.sh": "python3 -m lab.main\n"})
    a = git(history, "rev-parse", "HEAD").strip()
    (history / "examples/run.sh").write_text("python3 -m lab.main trainer.steps=2\n")
    git(history, "commit", "-qam", "later")
    repo = upgrade_set.build(SimpleNamespace(history=history), {"A": a, "dir": "examples"},  # type: ignore[arg-type]
                             tmp_path / "downstream")
    assert git(repo, "ls-files").split() == ["examples/run.sh", "requirements-verl.txt"]
    assert (repo / "examples/run.sh").read_text() == "python3 -m lab.main\n"
    assert (repo / "requirements-verl.txt").read_text() == upgrade_set.pin_line(a)
    assert git(repo, "status", "--porcelain") == ""


def test_the_watch_command_runs_one_upstream_change_with_no_rule(tmp_path: Path) -> None:
    cmd = upgrade_set.watch_command(tmp_path / "history", {"parent": "p" * 40, "sha": "c" * 40}, tmp_path / "d")
    assert cmd[:2] == ["bot", "watch"] and "--rules" not in cmd
    assert cmd[cmd.index("--before") + 1] == "p" * 40 and cmd[cmd.index("--after") + 1] == "c" * 40
    assert {"--no-bundled", "--dry-run"} <= set(cmd) and cmd[cmd.index("--format") + 1] == "diff"
