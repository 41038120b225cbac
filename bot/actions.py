"""GitHub Actions: the event payload, the step summary, workflow outputs. Read at call time."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from bot.errors import UserError

# the step outputs every command writes in Actions (action.yml declares the same)
OUTPUTS = ("findings", "notes", "pr-urls", "triggered", "sarif-file")


def in_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def event() -> dict[str, Any]:
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"GITHUB_EVENT_PATH {path}: expected the event's JSON payload: {exc}") from None
    if not isinstance(data, dict):
        raise UserError(f"GITHUB_EVENT_PATH {path}: expected a JSON object")
    return data


def push_range(payload: dict[str, Any]) -> tuple[str, str] | None:
    before, after = payload.get("before"), payload.get("after")
    if isinstance(before, str) and isinstance(after, str) and after:
        return before, after
    return None


def _append(variable: str, text: str) -> None:
    path = os.environ.get(variable)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def write_summary(markdown: str) -> None:
    _append("GITHUB_STEP_SUMMARY", markdown if markdown.endswith("\n") else markdown + "\n")


def set_outputs(values: dict[str, str]) -> None:
    lines = []
    for name, value in values.items():
        if "\n" in value:
            marker = f"EOF_{uuid.uuid4().hex}"
            lines.append(f"{name}<<{marker}\n{value}\n{marker}\n")
        else:
            lines.append(f"{name}={value}\n")
    _append("GITHUB_OUTPUT", "".join(lines))
