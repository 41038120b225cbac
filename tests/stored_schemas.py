"""Shared by the tests of configs a repository registers in Hydra's ConfigStore: compose-check's findings on a
fixture repository, and Hydra's own verdict with the fixture's registering module imported and run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

_BY_HAND = '''\
import importlib
import sys
from hydra import compose, initialize_config_dir
importlib.import_module(sys.argv[1])  # the repository's own registrations, run
failing = []
with initialize_config_dir(config_dir=sys.argv[2], version_base=None):
    for line, overrides in enumerate(sys.argv[3:], 1):
        try:
            compose("config", overrides=overrides.split())
        except Exception:
            failing.append(line)
print(failing)
'''


def compose_check(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[list[int], str]:
    """The lines of compose-check's findings, and what it said on stderr (`--verbose`)."""
    code = main(["compose-check", "--repo", str(repo), "--format", "json", "--verbose"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return sorted({f["line"] for f in json.loads(out)["findings"]}), err


def hydra_by_hand(repo: Path, registering: str, config_dir: Path, launches: list[str]) -> list[int]:
    """The numbers (from 1) of the launches Hydra itself fails to compose, with `registering` imported first."""
    done = subprocess.run([sys.executable, "-c", _BY_HAND, registering, str(config_dir), *launches],
                          cwd=repo, capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout))
