"""Files and parts of files without a rule's token are read only when they may run a script that has one."""

from __future__ import annotations

from pathlib import Path

from bot.engine.scan import scan
from bot.lang.focus import Focus, may_run_other_than, quiet_stems
from bot.model import Report
from bot.rules.loader import load_rules
from tests.conftest import make_repo

TRAIN = """#!/usr/bin/env bash
BRIDGE=${BRIDGE:-True}
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=${BRIDGE} trainer.n=1
"""
PREPARE = "#!/bin/bash\npython3 prepare_data.py --out /tmp/data\n"
WORKFLOW = """name: e2e
on: [push]
jobs:
  e2e:
    runs-on: ubuntu-latest
    steps:
      - name: prepare
        run: |
          bash scripts/prepare.sh
          python3 -m verl.trainer.main_ppo trainer.n=2
      - name: train without the bridge
        run: BRIDGE=False bash scripts/train.sh
      - name: again
        run: python3 -m verl.trainer.main_ppo trainer.n=3
"""


def _scan(root: Path, paths: set[str] | None = None) -> Report:
    return scan(root, load_rules(), paths=paths)


def _parsed(report: Report) -> set[str]:
    return set(report.file_kinds)


def test_a_caller_of_quiet_scripts_only_is_not_parsed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {
        "scripts/train.sh": TRAIN, "scripts/prepare.sh": PREPARE,
        "run_prepare.sh": "#!/bin/bash\nBRIDGE=False bash scripts/prepare.sh\n",
        "run_train.sh": "#!/bin/bash\nBRIDGE=False bash scripts/train.sh\n",
    })
    report = _scan(root)
    assert _parsed(report) == {"scripts/train.sh", "run_train.sh"}
    assert [(f.path, f.line) for f in report.findings] == [("run_train.sh", 2)]


def test_a_script_name_built_from_a_variable_or_not_listed_gets_the_caller_parsed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {
        "scripts/train_a.sh": TRAIN, "scripts/prepare.sh": PREPARE, ".gitignore": "local/\n",
        "built.sh": "#!/bin/bash\nfor m in a; do BRIDGE=False bash scripts/train_${m}.sh; done\n",
        "unlisted.sh": "#!/bin/bash\nBRIDGE=False bash local/inner.sh\n",
    })
    (root / "local").mkdir()
    (root / "local" / "inner.sh").write_text(TRAIN)
    report = _scan(root)
    assert {"built.sh", "unlisted.sh"} <= _parsed(report)
    assert ("unlisted.sh", 2) in [(f.path, f.line) for f in report.findings]


def test_only_the_workflow_steps_that_matter_are_analysed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"scripts/train.sh": TRAIN, "scripts/prepare.sh": PREPARE,
                                         ".github/workflows/e2e.yml": WORKFLOW})
    report = _scan(root)
    assert [(f.path, f.line) for f in report.findings] == [(".github/workflows/e2e.yml", 12)]
    assert report.launches == 1  # the script's; the workflow's steps with launches hold nothing for the rules


def test_a_caller_checked_alone_still_sees_the_scripts_of_the_repository(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"scripts/train.sh": TRAIN,
                                         "run_train.sh": "#!/bin/bash\nBRIDGE=False bash scripts/train.sh\n"})
    report = _scan(root, paths={"run_train.sh"})
    assert [(f.path, f.line) for f in report.findings] == [("run_train.sh", 2)]


def test_focus_on_text() -> None:
    quiet = quiet_stems([("a/prepare.sh", "shell", False), ("b/train.sh", "shell", True),
                         ("c/train.sh", "shell", False), ("docs/x.md", "markdown", False)])
    assert quiet == frozenset({b"prepare"})  # a name shared with a script that holds a token is not quiet
    assert not may_run_other_than(b"bash a/prepare.sh && ./prepare.sh", quiet)
    assert may_run_other_than(b"bash c/train.sh", quiet)
    assert may_run_other_than(b'bash "run_${MODEL}.sh"', quiet)
    assert not may_run_other_than(b"for f in run_*.sh; do echo; done; ls *.sh; echo .sh", quiet)
    focus = Focus((b"use_mbridge",), quiet)
    assert focus.wanted(b"x.use_mbridge=False") and not focus.wanted(b"python3 -m a.b trainer.n=1")
    assert Focus((b"use_mbridge",)).wanted(b"bash a/prepare.sh")  # before the scripts are known: any call


def test_a_cached_caller_checked_again_for_its_baseline(tmp_path: Path) -> None:
    import json

    from bot.cache.reuse import CachedResults
    from bot.cache.store import ResultCache, fingerprint

    root = make_repo(tmp_path / "repo", {
        "scripts/train.sh": TRAIN, "run_train.sh": "#!/bin/bash\nBRIDGE=False bash scripts/train.sh\n",
        ".followup-bot-baseline.json": json.dumps({"version": 1, "findings": [
            {"rule": "megatron-use-mbridge", "path": "run_train.sh",
             "key": "actor_rollout_ref.actor.megatron.use_mbridge", "value": "False"}]}),
    })
    rules = load_rules()
    for _ in range(2):  # the second scan takes the caller from the cache, then checks it again for its baseline
        memo = CachedResults(ResultCache(tmp_path / "cache", root, fingerprint(rules)), reuse_changes=True)
        report = scan(root, rules, memo=memo)
        assert report.findings == [] and [f.path for f in report.silenced] == ["run_train.sh"]
