"""README.md is the user's path and stays true: at most ~200 lines; every command in its `sh` blocks is
run, here (the bot's, on a copy of examples/) or by CI (.ci/run and the scripts it runs: the installs,
which need the package registry); its sample summary is what the demo run prints today. (`bash` blocks
show a script's text, `sh` blocks commands to type.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent
RUN_BY_CI = ("pipx install .", "uv tool install .", "make demo", "make test")


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.M | re.S)


def lines(block: str) -> list[str]:
    """The block's commands, comments left out."""
    found = []
    for line in block.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if command and not command.startswith("#"):
            found.append(command)
    return found


def commands() -> list[str]:
    return [command for block in blocks("sh") for command in lines(block)]


def is_bot(command: str) -> bool:
    return re.search(r"(^|&& )bot ", command) is not None


def ci_text() -> str:
    return "\n".join((ROOT / p).read_text() for p in (".ci/run", "scripts/try_install.sh"))


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= 200


def test_every_install_command_is_run_by_ci() -> None:
    installs = [c for c in commands() if not is_bot(c)]
    assert installs, "the README names how to install"
    for command in installs:
        assert command in RUN_BY_CI, f"{command}: neither a bot command nor one CI runs"
        assert command in ci_text(), f"{command}: not run by .ci/run or scripts/try_install.sh"


@pytest.mark.parametrize("block", [b for b in blocks("sh") if any(is_bot(c) for c in lines(b))])
def test_every_bot_command_runs(block: str, tmp_path: Path) -> None:
    """Each block's commands in order, in one directory holding a copy of examples/."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GITHUB_ACTIONS", None)
    for command in lines(block):
        assert is_bot(command), f"{command}: a block of bot commands holds only bot commands"
        result = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                                check=False, timeout=300)
        expected = {0, 1} if "--check" in command else {0}
        assert result.returncode in expected, f"{command}: {result.stderr}"
        assert "error" not in result.stderr.lower(), f"{command}: {result.stderr}"


def test_the_sample_summary_is_what_the_demo_prints(tmp_path: Path) -> None:
    (sample,) = [b for b in blocks("text") if b.startswith("read ")]
    result = subprocess.run([str(BIN / "bot"), "run", "--repo", str(ROOT / "examples" / "demo-repo"), "--dry-run",
                             "--no-cache"], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    tail = result.stdout.rstrip("\n").splitlines()[-len(sample.splitlines()):]
    assert tail == sample.splitlines()
