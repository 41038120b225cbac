"""A value that is another config key's is checked where that key is set; oc.select's fallback that
breaks a rule is a note: it never fails --check and is never a problem in a pull request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.scan import scan
from bot.rules.loader import load_rules
from tests.conftest import make_repo

REF = """\
megatron:
  seed: ${oc.select:actor_rollout_ref.actor.megatron.seed,42}
  use_mbridge: %s
"""


def _findings(tmp_path: Path, value: str, name: str = "conf/ref/megatron_ref.yaml") -> list[tuple[str, str, str]]:
    root = make_repo(tmp_path / "repo", {name: REF % value})
    return [(f.status.value, f.severity, f.message) for f in scan(root, load_rules()).findings]


def test_a_fallback_that_breaks_the_rule_is_a_note(tmp_path: Path) -> None:
    ((status, severity, message),) = _findings(
        tmp_path, "${oc.select:actor_rollout_ref.actor.megatron.use_mbridge,False}")
    assert (status, severity) == ("manual", "note")
    assert "or the fallback False where the config has no actor_rollout_ref.actor.megatron.use_mbridge" in message


@pytest.mark.parametrize("value", [
    "${oc.select:actor_rollout_ref.actor.megatron.use_mbridge,True}",  # the fallback keeps the rule
    "${oc.select:actor_rollout_ref.actor.megatron.use_mbridge, true}",
    "${actor_rollout_ref.actor.megatron.use_mbridge}",  # no fallback: checked where that key is set
])
def test_a_value_checked_where_it_comes_from_is_no_finding(tmp_path: Path, value: str) -> None:
    assert _findings(tmp_path, value) == []


@pytest.mark.parametrize("value", [
    "${oc.env:USE_MBRIDGE,False}",  # the environment decides: a person must check
    "${oc.select:trainer.some_flag,False}",  # a key the rule does not check
    "${.sibling}",  # relative: not read here
    "prefix_${actor_rollout_ref.actor.megatron.use_mbridge}",
])
def test_other_interpolations_stay_manual_errors(tmp_path: Path, value: str) -> None:
    ((status, severity, _),) = _findings(tmp_path, value)
    assert (status, severity) == ("manual", "error")


def test_notes_pass_check_and_say_note_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path / "repo", {"conf/ref/megatron_ref.yaml":
                                         REF % "${oc.select:actor_rollout_ref.actor.megatron.use_mbridge,False}"})
    assert main(["run", "--repo", str(root), "--dry-run", "--check", "--no-cache"]) == 0
    assert " note megatron.use_mbridge" in capsys.readouterr().out
    main(["run", "--repo", str(root), "--dry-run", "--no-cache", "--format", "sarif"])
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["level"] == "note"
    main(["run", "--repo", str(root), "--dry-run", "--no-cache", "--format", "github"])
    assert capsys.readouterr().out.startswith("::notice ")


def test_the_same_reference_in_a_python_override_list_is_a_note(tmp_path: Path) -> None:
    code = ('from hydra import compose\n\ncfg = compose("ppo", overrides=[\n'
            '    "actor_rollout_ref.ref.megatron.use_mbridge=${oc.select:actor_rollout_ref.actor.megatron.use_mbridge,'
            'False}",\n])\n')
    root = make_repo(tmp_path / "repo", {"tools/check.py": code})
    ((finding),) = scan(root, load_rules()).findings
    assert finding.severity == "note"
