"""The Python front end: override strings in argv lists that launch a trainer, and `overrides=[...]` lists."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from bot.lang.front import UNREADABLE, Reading, SourceUnreadable, Unit


@dataclass
class PythonFront:
    path: str

    def read(self, data: bytes) -> Reading:
        from bot.lang.python.launch import python_errors, read_groups, realise

        if python_errors(data):
            raise SourceUnreadable("Python that libcst cannot parse")
        return Reading([Unit(read_groups(data), partial(realise, data))])

    def errors(self, data: bytes) -> int:
        from bot.lang.python.launch import python_errors

        return UNREADABLE if python_errors(data) else 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        return None
