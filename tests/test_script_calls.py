"""Values handed to a repository script through its environment are fixed where the caller writes them."""

from __future__ import annotations

from pathlib import Path

from bot.engine.scan import scan
from bot.engine.write import write_changes
from bot.model import Status
from bot.rules.loader import load_rules
from tests.conftest import make_repo

CALLEE = """#!/usr/bin/env bash
set -euo pipefail
USE_MBRIDGE=${USE_MBRIDGE:-True}
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=${USE_MBRIDGE} \\
    critic.megatron.use_mbridge="${CRITIC_MBRIDGE:-True}" \\
    trainer.total_epochs=1
"""

WORKFLOW = """name: e2e
on: [push]
jobs:
  e2e:
    runs-on: ubuntu-latest
    steps:
      - name: bridge off
        run: |
          USE_MBRIDGE=False bash tests/run_megatron.sh
      - name: critic off
        env:
          CRITIC_MBRIDGE: "false"
        run: bash tests/run_megatron.sh
"""

CALLERS = """#!/bin/bash
export CRITIC_MBRIDGE=False
bash tests/run_megatron.sh
CRITIC_MBRIDGE=True bash tests/run_megatron.sh
UNEXPORTED=False
USE_MBRIDGE=$UNKNOWN bash tests/run_megatron.sh
"""


def _scan(tmp_path: Path, files: dict[str, str]) -> tuple[Path, object]:
    root = make_repo(tmp_path / "repo", files)
    return root, scan(root, load_rules([]))


def test_env_prefix_and_workflow_env_are_fixed_in_the_caller(tmp_path: Path) -> None:
    root, report = _scan(tmp_path, {"tests/run_megatron.sh": CALLEE, ".github/workflows/e2e.yml": WORKFLOW,
                                    "tests/sweep.sh": CALLERS})
    found = {(f.path, f.line, f.key, f.status) for f in report.findings}  # type: ignore[attr-defined]
    assert found == {
        (".github/workflows/e2e.yml", 9, "actor_rollout_ref.actor.megatron.use_mbridge", Status.FIXABLE),
        (".github/workflows/e2e.yml", 12, "critic.megatron.use_mbridge", Status.FIXABLE),
        ("tests/sweep.sh", 2, "critic.megatron.use_mbridge", Status.FIXABLE),
    }
    write_changes(root, report)  # type: ignore[arg-type]
    workflow = (root / ".github/workflows/e2e.yml").read_text()
    assert "USE_MBRIDGE=True bash tests/run_megatron.sh" in workflow
    assert 'CRITIC_MBRIDGE: "true"' in workflow
    callers = (root / "tests/sweep.sh").read_text()
    assert callers.startswith("#!/bin/bash\nexport CRITIC_MBRIDGE=True\n")
    assert (root / "tests/run_megatron.sh").read_text() == CALLEE, "the called script is already right"
    again = scan(root, load_rules([]))
    assert again.findings == []


def test_unexported_variables_and_unknown_scripts_are_not_followed(tmp_path: Path) -> None:
    callers = ("#!/bin/bash\nCRITIC_MBRIDGE=False\nbash tests/run_megatron.sh\n"
               "USE_MBRIDGE=False bash tests/missing.sh\nUSE_MBRIDGE=False bash /opt/elsewhere/run.sh\n")
    _, report = _scan(tmp_path, {"tests/run_megatron.sh": CALLEE, "tests/callers.sh": callers})
    assert report.findings == []  # type: ignore[attr-defined]


def test_a_value_the_rule_accepts_is_left_alone_and_a_dynamic_callee_value_stays_manual(tmp_path: Path) -> None:
    callee = "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$CRITIC\n"
    callers = "CRITIC=True bash tests/run.sh\nCRITIC=0 bash tests/run.sh\n"
    _, report = _scan(tmp_path, {"tests/run.sh": callee, "tests/callers.sh": callers})
    found = sorted((f.path, f.line, f.status.value) for f in report.findings)  # type: ignore[attr-defined]
    assert found == [("tests/callers.sh", 2, "fixable"), ("tests/run.sh", 1, "manual")]


def test_overrides_handed_to_a_script_are_checked_but_nothing_is_added_to_them(tmp_path: Path) -> None:
    from dataclasses import replace

    from bot.engine.check import check_file

    rules = [replace(r, enabled=True) for r in load_rules([])]
    src = (b"bash examples/run_qwen_megatron.sh \\\n    actor_rollout_ref.actor.megatron.use_mbridge=False\n"
           b"./tests/run.sh --dry trainer.total_epochs=1\nbash tests/plain.sh\n")
    result = check_file("docs.sh", src, rules)
    assert [(f.rule, f.line) for f in result.findings] == [("megatron-use-mbridge", 2)]
    assert result.change is not None and result.launches == 2
    assert result.change.after == src.replace(b"use_mbridge=False", b"use_mbridge=True")
