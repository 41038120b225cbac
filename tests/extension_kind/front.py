"""The front end of `.overrides` files: each `key=value` line a setting of one group; values rewritten in place."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from bot.context import ScanContext
from bot.hydra.grammar import HydraSyntaxError, parse_override
from bot.ir import LAUNCH, Plan, Setting, SettingGroup, SetValue
from bot.lang.front import Reading, SourceUnreadable, Unit
from bot.model import Span


@dataclass
class OverridesFront:
    path: str

    def read(self, data: bytes) -> Reading:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SourceUnreadable("an overrides file that is not UTF-8") from None
        settings, offset = [], 0
        for number, line in enumerate(text.splitlines(keepends=True), start=1):
            body = line.strip()
            if body and not body.startswith("#"):
                settings.append(_setting(body, number, offset + len(line) - len(line.lstrip())))
            offset += len(line.encode("utf-8"))
        group = SettingGroup(settings, 1, 1, label="overrides file", role=LAUNCH)
        return Reading([Unit([group], partial(_realise, data))] if settings else [], launches=1 if settings else 0)

    def errors(self, data: bytes) -> int:
        try:
            self.read(data)
        except SourceUnreadable:
            return 1
        return 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        return None


def _setting(body: str, line: int, start: int) -> Setting:
    try:
        parsed = parse_override(body)
    except HydraSyntaxError as exc:
        key = body.partition("=")[0]
        return Setting(key, "", body, None, "invalid", line, 1, reason=str(exc))
    text = body.partition("=")[2] if parsed.has_value else None
    value_start = start + len(body.partition("=")[0].encode("utf-8")) + 1
    handle = Span(value_start, value_start + len((text or "").encode("utf-8")))
    return Setting(parsed.key, parsed.prefix, text, parsed.value, "static", line, 1, handle=handle)


def _realise(data: bytes, plans: list[Plan]) -> None:
    for plan in plans:
        edits: list[tuple[Span, str]] = []
        for action in plan.actions:
            if not isinstance(action, SetValue):
                plan.refusal = f"an overrides file takes value changes only, not {type(action).__name__}"
                break
            edits.append((action.setting.handle, action.text))
        else:
            plan.edits = edits


def make(path: str, kind: str, context: ScanContext | None, packages: Any) -> OverridesFront:
    return OverridesFront(path)
