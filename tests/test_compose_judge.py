"""Every edit composes: a launch that composed before the bot's edits composes after them (Hydra judges)."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.engine.compose_check import compose_scan
from bot.engine.scan import scan
from bot.model import Reason, Status
from bot.rules.loader import parse_rule
from bot.rules.model import Rule
from tests.conftest import make_repo

APP = '''\
import hydra


@hydra.main(config_path="config", config_name="train", version_base=None)
def main(config):
    pass
'''
CONFIG = """\
policy:
  engine:
    tuning: {}
    layers: 2
reference:
  engine:
    tuning: ${oc.select:policy.engine.tuning,{}}
    layers: 2
"""
SCRIPT = """\
#!/bin/bash
python3 -m trainer.main \\
    policy.engine.layers=4 \\
    reference.engine.layers=4
"""


def _rule(ref_prefix: str) -> Rule:
    return parse_rule(yaml.safe_load(f"""
id: tuning-flag
title: Turn the tuning flag on
when: {{sets: ["policy.engine.**"]}}
ensure:
  - {{key: policy.engine.tuning.flag, value: true, prefix: "+"}}
  - {{key: reference.engine.tuning.flag, value: true, prefix: "{ref_prefix}"}}
"""), Path("tuning-flag.yaml"))


def _repo(tmp_path: Path, script: str = SCRIPT) -> Path:
    return make_repo(tmp_path / "repo", {"trainer/main.py": APP, "trainer/config/train.yaml": CONFIG,
                                         "run.sh": script})


def test_an_edit_that_would_break_a_composing_launch_is_not_made(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert compose_scan(root)[0].findings == []  # the launch composes as written
    report = scan(root, [_rule("+")])
    assert report.changes == []
    assert report.findings and all(f.status is Status.MANUAL and f.reason is Reason.UNVERIFIED for f in report.findings)
    assert "would no longer compose" in report.findings[0].message
    assert "An item is already at 'reference.engine.tuning.flag'" in report.findings[0].message


def test_the_prefix_that_composes_is_written(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    report = scan(root, [_rule("++")])
    (change,) = report.changes
    assert b"++reference.engine.tuning.flag=True" in change.after
    (root / "run.sh").write_bytes(change.after)
    assert compose_scan(root)[0].findings == []  # and the edited launch still composes


def test_a_launch_that_did_not_compose_before_is_not_judged(tmp_path: Path) -> None:
    root = _repo(tmp_path, SCRIPT.replace("policy.engine.layers=4", "policy.engine.missing=4"))
    assert compose_scan(root)[0].findings  # Hydra rejects it as written
    report = scan(root, [_rule("+")])
    assert report.changes and all(f.status is Status.FIXABLE for f in report.findings)


def test_another_rules_fix_in_the_same_file_is_still_made(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    layers = parse_rule(yaml.safe_load("""
id: layers-eight
title: Eight layers
match: {key: ["policy.engine.layers"], value_not: [8]}
fix: {set: 8}
"""), Path("layers-eight.yaml"))
    report = scan(root, [_rule("+"), layers])
    status = {f.rule: f.status for f in report.findings}
    assert status == {"tuning-flag": Status.MANUAL, "layers-eight": Status.FIXABLE}  # not "a second run would ..."
    (change,) = [c for c in report.changes if c.path == "run.sh"]
    assert b"policy.engine.layers=8" in change.after and b"tuning" not in change.after


def test_a_second_scan_in_one_process_sees_the_app_as_it_is_now(tmp_path: Path) -> None:
    """What a scan learnt of the repository's files (the app's decorator, where its module is) is not
    kept for the next: a process that scans again after the files changed reports what a new one would."""
    root = _repo(tmp_path)

    def judged() -> list[bool]:
        return [f.reason is Reason.UNVERIFIED for f in scan(root, [_rule("+")]).findings if f.path == "run.sh"]

    assert judged() == [True, True]  # Hydra refused the edits
    (root / "trainer" / "main.py").write_text("def main(config):\n    pass\n")  # no longer a Hydra app
    assert judged() == [False, False]
    (root / "trainer" / "main.py").unlink()  # no module at all
    assert judged() == [False, False]
    (root / "trainer" / "main.py").write_text(APP)
    assert judged() == [True, True]


def test_each_refused_fix_names_hydras_message_for_its_own_launch(tmp_path: Path) -> None:
    script = ("python3 -m trainer.main policy.engine.layers=4\n"
              "python3 -m trainer.main \\\n    reference.engine.layers=8\n")
    root = _repo(tmp_path, script)
    rule = parse_rule(yaml.safe_load("""
id: layers-renamed
title: layers became depth
match: {key: ["**.engine.layers"]}
fix: {rename: depth}
"""), Path("layers-renamed.yaml"))
    report = scan(root, [rule])
    by_line = {f.line: f.message for f in report.findings if f.path == "run.sh"}
    assert "(line 1: policy.engine.depth:" in by_line[1]
    assert "(line 2: reference.engine.depth:" in by_line[3]
