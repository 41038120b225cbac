"""Files and parts of files without a rule's token are read only when they may run a script that has one."""

from __future__ import annotations

import re
from dataclasses import replace
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


def test_focus_on_text(tmp_path: Path) -> None:
    listed, hot = frozenset({"a/prepare.sh", "b/train.sh", "c/train.sh"}), frozenset({"b/train.sh"})
    scripts = Scripts(listed, hot, str(tmp_path))
    assert not may_run_hot(b"bash a/prepare.sh && ./a/prepare.sh; ls *.py", "run.sh", scripts)
    assert not may_run_hot(b"bash prepare.sh; bash ../c/train.sh", "a/run.sh", scripts)  # beside the caller
    assert may_run_hot(b"bash b/train.sh", "run.sh", scripts)
    # a name the listing lacks is read when the file is there (an ignored script), not when it is not
    assert not may_run_hot(b"bash c/train.sh; bash d/train.sh; curl https://x.sh/get.sh", "run.sh", scripts)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "train.sh").write_text("python3 -m a x.use_mbridge=$B\n")
    assert may_run_hot(b"bash c/train.sh; bash d/train.sh", "run.sh", scripts)
    assert may_run_hot(b"bash prepare.sh", "a/run.sh", Scripts(listed, hot))  # no root: an ignored one may be there
    # a glob is read for what it matches on disk; a `[` without `]` is a letter; basename's suffix names nothing
    for name in ["a/prepare.sh", "b/train.sh"]:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("#!/bin/bash\n")
    assert may_run_hot(b"for s in b/*.sh; do bash $s; done", "run.sh", scripts)
    assert not may_run_hot(b"bash a/*.sh; bash c/*.sh; see [prepare.sh](a/prepare.sh)", "run.sh", scripts)
    assert not may_run_hot(b'NAME="$(basename -- "${BASH_SOURCE[0]}" .sh)"', "run.sh", scripts)
    for built in [b'bash "run_${MODEL}.sh"', b"bash run_$m.sh",
                  b"bash \"my a/prepare.sh\"", b"EXT=.sh", b'bash "$DIR/train.sh"',
                  b"bash $D/new.sh", b"bash ${ROOT}/a/prepare.sh"]:
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


SETTLED = "#!/bin/bash\npython3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=True {}\n"


def test_settled_literals_follow_each_rules_value_test() -> None:
    from bot.rules.settled import SettledLiterals

    rules = [r for r in load_rules() if r.enabled]
    settle = SettledLiterals(rules)
    assert settle.tokens == {b"use_mbridge"}
    assert settle.settled(b"use_mbridge", "True") and settle.settled(b"use_mbridge", "true")
    for bad in ["False", "false", "null", "0", "True.x", "a-b"]:
        assert not settle.settled(b"use_mbridge", bad), bad
    every = replace(rules[0], id="every-use", match_value_not=None, fix=None)  # reports the key whatever its value
    assert not SettledLiterals([*rules, every]).settled(b"use_mbridge", "True")


def test_a_token_of_a_rule_that_adds_keys_is_held_whatever_its_value() -> None:
    from bot.engine.wanted import focus_for
    from bot.rules.globs import key_glob

    rules = load_rules()
    anchored = replace(next(r for r in rules if r.id == "megatron-flash-attn"), enabled=True, files=(),
                       when_sets=(key_glob("**.megatron.use_mbridge"),))
    focus = focus_for([r for r in rules if r.enabled] + [anchored])
    assert focus is not None and focus.holds(b"x.megatron.use_mbridge=True")
    assert not focus_for([r for r in rules if r.enabled]).holds(b"x.megatron.use_mbridge=True")  # type: ignore[union-attr]


@pytest.mark.parametrize(("written", "held"), [
    ("x.use_mbridge=True", False), ("'x.use_mbridge=True'", False), ('"x.use_mbridge=True" y=1', False),
    ("X=(x.use_mbridge=True)", False), ("x.use_mbridge=True \\\n  y=1", False), ("x.use_mbridge=True;", False),
    ("# x.use_mbridge=True", False),
    ("x.use_mbridge=False", True), ("x.use_mbridge=True,False", True), ("x.use_mbridge=Truex", True),
    ("x.use_mbridge=True\\\ny=1", True), ("x.use_mbridge=True\r", True), ('x.use_mbridge=True"x"', True),
    ("${A:-x.use_mbridge=True}", True), ("x.use_mbridge=$B", True), ("use_mbridge: true", True),
    ("x.use_mbridge=True y.use_mbridge=${B}", True), ("x.use_mbridge='True'", True), ("use_mbridge", True),
    # the word goes on: a blank inside quotes, a string glued on, a quote left open (no clean parse)
    ('"x.use_mbridge=True False"', True), ("x.use_mbridge=True' 'False", True), ('"x.use_mbridge=True', True),
    ("cat <<EOF\nx.use_mbridge=True\nEOF", True), ('# "x.use_mbridge=True False"', True),
    # a packed string of overrides is split into words where every use of it is a bare argument
    ('E="x.use_mbridge=True \\\n  y=1"\npython3 -m a $E\npython3 -m b ${E} z=2', False),
    ('E="x.use_mbridge=True y=1"\npython3 -m a "$E"', True), ('E="x.use_mbridge=True y=1"\nX=$E\nrun "$X"', True),
    ('E="x.use_mbridge=True y=1"\nC="$E"\nD=${C}\nrun $D $C', False), ('E="x.use_mbridge=True y=1"\nC="-$E"', True),
    ('E="a="[1]" x.use_mbridge=True y"\nrun $E', False),
    ('E="x.use_mbridge=True y=1"\nexport E\npython3 -m a $E', True), ('E="x.use_mbridge=True y=1" bash t.sh', True),
    ('E="x.use_mbridge=True y=1"\nIFS=,\npython3 -m a $E', True), ('E="x.use_mbridge=True\\\ny=1"\nrun $E', True),
])
def test_a_token_written_with_a_value_every_rule_accepts_is_not_held(written: str, held: bool) -> None:
    from bot.engine.wanted import focus_for

    focus = focus_for([r for r in load_rules() if r.enabled])
    assert focus is not None
    assert focus.holds(written.encode()) is held
    assert focus.holds(written.encode(), "markdown") is ("use_mbridge" in written)  # only shell settles


def test_files_holding_only_settled_tokens_are_not_parsed_nor_their_callers(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {
        "scripts/settled.sh": SETTLED.format("trainer.n=${N}"),
        "scripts/train.sh": SETTLED.format("critic.megatron.use_mbridge=${BRIDGE}"),
        "run_settled.sh": "#!/bin/bash\nBRIDGE=False bash scripts/settled.sh\n",
        "run_train.sh": "#!/bin/bash\nBRIDGE=False bash scripts/train.sh\n",
    })
    report = _scan(root)
    assert _parsed(report) == {"scripts/train.sh", "run_train.sh"}
    assert [(f.path, f.line) for f in report.findings] == [("run_train.sh", 2), ("scripts/train.sh", 2)]


def test_a_settled_file_that_does_not_parse_is_read_and_reported(tmp_path: Path) -> None:
    slip = "#!/bin/bash\nGPUS=${GPUS:-$(((N + 1) * 4)}\n" + SETTLED.format("trainer.n=1").split("\n", 1)[1]
    workflow = WORKFLOW.replace("trainer.n=3", "actor_rollout_ref.actor.megatron.use_mbridge=True")
    root = make_repo(tmp_path / "repo", {"slip.sh": slip, "settled.sh": SETTLED.format(""),
                                         ".github/workflows/e2e.yml": re.sub(r"\S*bash \S*", "", workflow)})
    report = _scan(root)
    assert report.partly_parsed == ["slip.sh"] and _parsed(report) == {"slip.sh", ".github/workflows/e2e.yml"}
    assert report.launches == 1  # the slip's: the workflow's steps hold settled tokens only, or none


def test_a_caller_is_read_only_when_it_names_a_variable_the_script_hands_a_token_key(tmp_path: Path) -> None:
    from bot.cache.reuse import CachedResults
    from bot.cache.store import ResultCache, fingerprint

    train = TRAIN.replace("trainer.n=1", "data.path=${DATA} trainer.n=1")
    root = make_repo(tmp_path / "repo", {
        "scripts/train.sh": train,
        "run_data.sh": "#!/bin/bash\nDATA=/tmp/d bash scripts/train.sh\n",  # DATA feeds no key with a token
        "run_train.sh": "#!/bin/bash\nexport BRIDGE=False\nbash scripts/train.sh\n",
        ".github/workflows/e2e.yml": WORKFLOW.replace("BRIDGE=False bash", "DATA=/d bash"),
    })
    cold = _scan(root)
    assert _parsed(cold) == {"scripts/train.sh", "run_train.sh"}
    assert [(f.path, f.line) for f in cold.findings] == [("run_train.sh", 2)]
    rules = load_rules()
    for step in range(2):  # then a caller changes: the script's inputs come back from the cache
        if step:
            (root / "run_data.sh").write_text("#!/bin/bash\nDATA=/tmp/e bash scripts/train.sh\n")
            cold = _scan(root)
        memo = CachedResults(ResultCache(tmp_path / "cache", root, fingerprint(rules)), reuse_changes=True)
        warm = scan(root, rules, memo=memo)
        assert _parsed(warm) == _parsed(cold) == {"scripts/train.sh", "run_train.sh"}
        assert warm.findings == cold.findings
