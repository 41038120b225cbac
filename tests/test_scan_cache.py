"""The per-file result cache: a warm run reports exactly what a cold one does, and never goes stale."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bot.cache.reuse import CachedResults
from bot.cache.store import ResultCache, fingerprint
from bot.cli import main
from bot.engine.scan import scan
from bot.report.json_report import to_dict
from bot.rules.loader import load_rules
from tests.conftest import git, make_repo

CALLER = """\
#!/bin/bash
USE_MBRIDGE=False bash run_inner.sh
"""
INNER = """\
#!/bin/bash
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=${USE_MBRIDGE:-True} \\
    trainer.total_epochs=1
"""
PLAIN = """\
#!/bin/bash
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=False \\
    trainer.total_epochs=1
"""


def _tree(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"run_plain.sh": PLAIN, "run_caller.sh": CALLER,
                                         "run_inner.sh": INNER, "README.md": "docs\n"})


def _scan(root: Path, cache_dir: Path, reuse_changes: bool = True) -> tuple[dict[str, Any], dict[str, int]]:
    rules = load_rules()
    cache = ResultCache(cache_dir, root, fingerprint([r for r in rules if r.enabled]))
    report = scan(root, rules, memo=CachedResults(cache, reuse_changes=reuse_changes))
    assert report.cache is not None
    return to_dict(report), {"reused": report.cache.reused, "checked": report.cache.checked}


def _cold(root: Path) -> dict[str, Any]:
    return to_dict(scan(root, load_rules()))


def test_warm_run_reports_what_a_cold_run_does(tmp_path: Path) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    first, stats1 = _scan(root, cache_dir)
    second, stats2 = _scan(root, cache_dir)
    assert stats1["reused"] == 0
    assert stats2["reused"] == stats2["checked"] + stats2["reused"] > 0
    assert first == second == _cold(root)


def test_edited_file_is_checked_again(tmp_path: Path) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    _scan(root, cache_dir)
    (root / "run_plain.sh").write_text(PLAIN.replace("use_mbridge=False", "use_mbridge=True"))
    warm, stats = _scan(root, cache_dir)
    assert stats["checked"] >= 1
    assert warm == _cold(root)


def test_edit_hidden_from_git_status_is_checked_again(tmp_path: Path) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    fine = PLAIN.replace("use_mbridge=False \\", "use_mbridge=True  \\")
    assert len(fine) == len(PLAIN)  # the size alone cannot tell
    (root / "run_plain.sh").write_text(fine)
    git(root, "commit", "-qam", "fixed by hand")
    git(root, "update-index", "--assume-unchanged", "run_plain.sh")
    before, _ = _scan(root, cache_dir)
    (root / "run_plain.sh").write_text(PLAIN)  # broken again, and git status does not show it
    warm, stats = _scan(root, cache_dir)
    assert stats["checked"] >= 1
    assert warm == _cold(root) != before


def test_edit_git_stat_settings_hide_is_checked_again(tmp_path: Path) -> None:
    """core.checkStat=minimal, core.trustctime=false: a same-size edit with its old mtime looks clean to git."""
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    target = root / "run_plain.sh"
    fine = PLAIN.replace("use_mbridge=False \\", "use_mbridge=True  \\")
    target.write_text(fine)
    git(root, "commit", "-qam", "fixed by hand")
    git(root, "config", "core.checkStat", "minimal")
    git(root, "config", "core.trustctime", "false")
    os.utime(target, (1_000_000_000, 1_000_000_000))  # long before the index: not racily clean
    git(root, "update-index", "--refresh")
    before, _ = _scan(root, cache_dir)
    target.write_text(PLAIN)  # the same size, broken again
    os.utime(target, (1_000_000_000, 1_000_000_000))
    assert git(root, "status", "--porcelain") == ""
    warm, _ = _scan(root, cache_dir)
    assert warm == _cold(root) != before


def test_callee_change_reaches_the_caller(tmp_path: Path) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    before, _ = _scan(root, cache_dir)
    (root / "run_inner.sh").write_text(INNER.replace("use_mbridge=${USE_MBRIDGE:-True}", "trainer.x=1"))
    git(root, "commit", "-qam", "drop the knob")
    after, _ = _scan(root, cache_dir)
    assert after == _cold(root)
    assert after != before


def test_rule_change_makes_a_new_fingerprint() -> None:
    rules = load_rules()
    enabled = [r for r in rules if r.enabled]
    assert fingerprint(enabled) != fingerprint(enabled[:-1])


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"format": 99}', b"\xff\xfe"])
def test_damaged_cache_file_counts_as_empty(tmp_path: Path, damage: bytes) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    _scan(root, cache_dir)
    for file in cache_dir.iterdir():
        file.write_bytes(damage)
    warm, stats = _scan(root, cache_dir)
    assert stats["reused"] == 0
    assert warm == _cold(root)


def test_write_never_applies_cached_edits(tmp_path: Path) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    _, dry = _scan(root, cache_dir)
    _, write = _scan(root, cache_dir, reuse_changes=False)
    assert dry["reused"] == 0
    assert write["checked"] >= 2  # run_plain.sh and run_caller.sh change, so both are parsed again


def test_no_cache_leaves_no_cache_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    main(["run", "--repo", str(root), "--dry-run", "--no-cache", "--cache-dir", str(cache_dir)])
    assert not cache_dir.exists() or not any(cache_dir.iterdir())
    main(["run", "--repo", str(root), "--dry-run", "--cache-dir", str(cache_dir)])
    assert any(cache_dir.iterdir())


def test_unwritable_cache_directory_only_costs_time(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory\n")
    warm, _ = _scan(root, blocker / "cache")
    assert warm == _cold(root)


def test_untracked_and_non_git_trees_are_cached_by_content(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "run.sh").write_text(PLAIN)
    cache_dir = tmp_path / "cache"
    _scan(root, cache_dir)
    (root / "run.sh").write_text(PLAIN.replace("False", "True"))
    warm, _ = _scan(root, cache_dir)
    assert warm == _cold(root)


def _warm_equals_cold(root: Path, cache_dir: Path) -> dict[str, Any]:
    warm, _ = _scan(root, cache_dir)
    assert warm == _cold(root)
    return warm


def test_a_called_script_git_ignores_reaches_the_caller(tmp_path: Path) -> None:
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    (root / ".git" / "info" / "exclude").write_text("local/\n")
    (root / "local").mkdir()
    (root / "local" / "inner.sh").write_text(INNER)
    (root / "run_local.sh").write_text("#!/bin/bash\nUSE_MBRIDGE=False bash local/inner.sh\n")
    assert any(f["path"] == "run_local.sh" for f in _warm_equals_cold(root, cache_dir)["findings"])
    (root / "local" / "inner.sh").write_text("#!/bin/bash\npython3 -m verl.trainer.main_ppo trainer.x=${MB:-1}\n")
    assert not any(f["path"] == "run_local.sh" for f in _warm_equals_cold(root, cache_dir)["findings"])


def test_bytes_rewritten_under_the_same_blob_are_seen(tmp_path: Path) -> None:
    """CRLF written over LF under `text=auto`: the blob and `git status` stay the same, the bytes do not."""
    root, cache_dir = _tree(tmp_path), tmp_path / "cache"
    (root / ".gitattributes").write_text("* text=auto\n")
    git(root, "add", ".gitattributes")
    git(root, "commit", "-qm", "attributes")
    _warm_equals_cold(root, cache_dir)
    (root / "run_plain.sh").write_bytes(PLAIN.replace("\n", "\r\n").encode())
    git(root, "add", "run_plain.sh")
    assert git(root, "status", "--porcelain") == ""
    assert "\r" in "".join(f["diff"] for f in _warm_equals_cold(root, cache_dir)["files"])


def test_an_included_config_git_ignores_is_part_of_the_layout(tmp_path: Path) -> None:
    files = {"conf/ppo.yaml": "defaults:\n  - actor@actor_rollout_ref.actor: dp\n  - _self_\n",
             "conf/actor/megatron/m1.yaml": "use_mbridge: false\n", ".gitignore": "conf/actor/dp.yaml\n"}
    root, cache_dir = make_repo(tmp_path / "repo", files), tmp_path / "cache"
    (root / "conf" / "actor" / "dp.yaml").write_text("defaults:\n  - megatron: m1\n  - _self_\n")
    keys = {f["key"] for f in _warm_equals_cold(root, cache_dir)["findings"]}
    assert "actor_rollout_ref.actor.megatron.use_mbridge" in keys
    (root / "conf" / "actor" / "dp.yaml").write_text("defaults:\n  - megatron@engine_x: m1\n  - _self_\n")
    keys = {f["key"] for f in _warm_equals_cold(root, cache_dir)["findings"]}
    assert "actor_rollout_ref.actor.megatron.use_mbridge" not in keys
