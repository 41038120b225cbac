"""Publishing trusts nothing the repository controls: rule ids git cannot take as branch names are
refused when rules load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest


def test_rule_ids_git_cannot_take_as_branch_names_are_refused_when_rules_load(tmp_path: Path) -> None:
    import subprocess

    from bot.errors import UserError
    from bot.rules.loader import parse_rule

    body = {"match": {"key": ["a.b"], "value": [1]}, "fix": {"set": 2}}
    for bad in ("a..b", "x.lock", "x.", "v1..2.lock"):
        with pytest.raises(UserError, match=rf"{re.escape(bad)}\.yaml: id: expected a name git takes for a branch"):
            parse_rule({"id": bad, **body}, tmp_path / f"{bad}.yaml")
    accepted = []
    for good in ("a.b", "x.lock.y", "x-lock", "v1.2", "a_b.c-d", "lock", "9.lockx"):
        accepted.append(parse_rule({"id": good, **body}, tmp_path / f"{good}.yaml").id)
    for rule_id in accepted:  # what the loader takes, git takes as the branch `bot/<id>`
        subprocess.run(["git", "check-ref-format", "--branch", f"bot/{rule_id}"], check=True, capture_output=True)


def test_a_bad_rule_id_stops_the_command_with_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "drop.lock.yaml").write_text("id: drop.lock\nmatch: {key: [a.b], value: [1]}\nfix: {set: 2}\n")
    done = subprocess.run([sys.executable, "-m", "bot", "rules", "list", "--rules", str(folder)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert f"{folder / 'drop.lock.yaml'}: id:" in line and "'drop.lock'" in line
