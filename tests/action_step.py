"""Run the action's entry point as action.yml declares it: the `Run the bot` step's `env:` with each
`${{ inputs.X }}` replaced by the input given (else its default), and its `run:` line, with the bot's
console script where the install step puts it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ACTION = Path(__file__).resolve().parents[1] / "action.yml"
_INPUT = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def action() -> dict[str, Any]:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def run_step() -> dict[str, Any]:
    (step,) = [s for s in action()["runs"]["steps"] if s.get("id") == "bot"]
    return dict(step)


def step_env(inputs: dict[str, str]) -> dict[str, str]:
    """The step's environment for these inputs (the others at their defaults)."""
    declared = action()["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"not inputs of action.yml: {unknown}"

    def value(match: re.Match[str]) -> str:
        name = match[1]
        return inputs.get(name, str(declared[name].get("default", "")))

    return {name: _INPUT.sub(value, str(text)) for name, text in run_step()["env"].items()}


def start(inputs: dict[str, str], env: dict[str, str], runner_temp: Path) -> subprocess.Popen[str]:
    """The step's `run:` in bash, where `$RUNNER_TEMP/followup-bot/bin/bot` is this interpreter's `bot`."""
    bin_dir = runner_temp / "followup-bot" / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    link = bin_dir / "bot"
    if not link.exists():
        link.symlink_to(Path(sys.executable).parent / "bot")
    full = {**env, **step_env(inputs), "RUNNER_TEMP": str(runner_temp)}
    return subprocess.Popen(["bash", "-c", run_step()["run"]], cwd=env["GITHUB_WORKSPACE"], env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
