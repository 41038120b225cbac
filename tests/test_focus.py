"""Files and parts of files without a rule's token are read only when they may run a script that has one."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.scan import scan
from bot.lang.focus import Focus, Scripts, may_run_hot
from bot.model import Report
from bot.rules.loader import load_rules
from tests.conftest import git, make_repo

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
    scripts = Scripts(listed=frozenset({"a/prepare.sh", "b/train.sh", "c/train.sh"}), hot=frozenset({"b/train.sh"}))
    assert not may_run_hot(b"bash a/prepare.sh && ./a/prepare.sh; ls *.py", "run.sh", scripts)
    assert not may_run_hot(b"bash prepare.sh; bash ../c/train.sh", "a/run.sh", scripts)  # beside the caller
    assert may_run_hot(b"bash b/train.sh", "run.sh", scripts)
    assert may_run_hot(b"bash c/train.sh; bash d/train.sh", "run.sh", scripts)  # d/ is not listed: ignored?
    for built in [b'bash "run_${MODEL}.sh"', b"bash run_$m.sh", b"for f in b/*.sh; do bash $f; done",
                  b"bash \"my a/prepare.sh\"", b"EXT=.sh"]:
        assert may_run_hot(built, "run.sh", scripts), built
    for spelled in [b'bash "b/train".sh', b"bash b/train.\"sh\"", b"bash 'b/train'.sh", b"bash b/tr\\ain.sh"]:
        assert may_run_hot(spelled, "run.sh", scripts), spelled
    assert not may_run_hot(b"bash /opt/tools/b/train.sh; bash ~/b/train.sh", "run.sh", scripts)  # not the repo's
    focus = Focus((b"use_mbridge",), scripts)
    assert focus.wanted(b"x.use_mbridge=False", "run.sh") and not focus.wanted(b"python3 -m a.b n=1", "run.sh")
    assert Focus((b"use_mbridge",)).wanted(b"bash a/prepare.sh", "run.sh")  # before the scripts are known: any call


CALLER = "#!/bin/bash\nBRIDGE=False bash {}\n"


@pytest.mark.parametrize(("files", "call"), [
    ({"scripts/train.sh": TRAIN.replace("trainer.n=1", "trainer.n=1  # caf\xe9")}, "scripts/train.sh"),
    ({"scripts/train.sh": TRAIN}, '"scripts/train".sh'),
    ({"scripts/train.sh": TRAIN}, "scripts/train.\"sh\""),
    ({"scripts/train.sh": TRAIN, "env.sh": PREPARE}, "scripts/train$EXT"),
    ({"run,x.sh": TRAIN, "x.sh": PREPARE}, "run,x.sh"),
    ({"a/train.sh": PREPARE, "local/train.sh": TRAIN, ".gitignore": "local/\n"}, "local/train.sh"),
], ids=["callee not utf-8", "quoted stem", "quoted suffix", "suffix from a variable", "comma", "ignored twin"])
def test_callers_the_shell_resolves_are_parsed(tmp_path: Path, files: dict[str, str], call: str) -> None:
    caller = CALLER.format(call) if "$EXT" not in call else "#!/bin/bash\nEXT=.sh\nsource env.sh\n" + \
        CALLER.format(call).split("\n", 1)[1]
    encoded = {k: v.encode("latin-1") if "\xe9" in v else v for k, v in files.items()}
    root = make_repo(tmp_path / "repo", {**encoded, "caller.sh": caller}, commit=False)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "x")
    if "local/train.sh" in files:
        assert "local/train.sh" not in git(root, "ls-files")
    report = _scan(root)
    assert "caller.sh" in [f.path for f in report.findings]


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
