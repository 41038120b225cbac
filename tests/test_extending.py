"""Extending the bot: a new source kind is one package plus one registry line; a new forge is one
module behind the Forge protocol (tests/memory_forge.py, used by test_publish_decisions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.scan import scan
from bot.lang import FRONT_ENDS, Registration, kind_for_path
from bot.report.json_report import to_dict
from bot.rules.loader import load_rules
from tests.conftest import make_repo
from tests.extension_kind import front

BEFORE = "# tuned for 8 GPUs\nactor_rollout_ref.actor.megatron.use_mbridge=False\ntrainer.total_epochs=3\n"
AFTER = "# tuned for 8 GPUs\nactor_rollout_ref.actor.megatron.use_mbridge=True\ntrainer.total_epochs=3\n"


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FRONT_ENDS, "overrides", Registration(front.make, (".overrides",)))  # the one line


def test_unregistered_the_kind_is_not_read(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"train.overrides": BEFORE})
    assert kind_for_path("train.overrides") is None
    assert scan(root, load_rules()).findings == []


def test_a_registered_kind_is_found_checked_fixed_and_verified(tmp_path: Path, registered: None) -> None:
    root = make_repo(tmp_path / "repo", {"conf/train.overrides": BEFORE, "conf/ok.overrides": AFTER})
    report = scan(root, load_rules())
    (finding,) = report.findings
    assert (finding.path, finding.line, finding.status.value) == ("conf/train.overrides", 2, "fixable")
    (change,) = report.changes
    assert change.after == AFTER.encode()
    data = to_dict(report)
    assert data["findings"][0]["kind"] == "overrides" and data["summary"]["kinds"]["overrides"]["files"] == 2

    (root / "conf/train.overrides").write_bytes(change.after)
    assert scan(root, load_rules()).changes == []  # a second run changes nothing


def test_what_the_kind_cannot_write_is_manual(tmp_path: Path, registered: None) -> None:
    from dataclasses import replace

    rules = [replace(r, enabled=True) for r in load_rules()]  # recompute adds keys: not in an overrides file
    root = make_repo(tmp_path / "repo", {"train.overrides": AFTER})
    report = scan(root, rules)
    added = [f for f in report.findings if f.rule == "megatron-recompute-uniform"]
    assert added and all(f.status.value == "manual" and "value changes only" in f.message for f in added)
    assert report.changes == []
