"""The Python front end: override strings in argv lists that launch a trainer, and `overrides=[...]` lists."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from bot.context import NO_CONSOLES, Consoles
from bot.ir import Plan
from bot.lang.front import UNREADABLE, Reading, SourceUnreadable, Unit


def _nothing_to_realise(plans: list[Plan]) -> None:
    for plan in plans:
        plan.refusal = "no override list was read in this file"


@dataclass
class PythonFront:
    path: str
    consoles: Consoles = NO_CONSOLES  # the repository's console scripts: a list that runs one launches

    def read(self, data: bytes) -> Reading:
        from bot.lang.python.prefilter import LOOKS_LIKE_OVERRIDE, may_hold_overrides, stdlib_tree

        tree = stdlib_tree(data)
        if tree is not None and (not LOOKS_LIKE_OVERRIDE.search(data) or not may_hold_overrides(tree, self.consoles)):
            return Reading([Unit([], _nothing_to_realise)])  # no list libcst could read as overrides
        from bot.lang.python.launch import parse, read_groups
        from bot.lang.python.writer import realise

        module = parse(data)
        if module is None:
            raise SourceUnreadable("Python that libcst cannot parse")
        return Reading([Unit(read_groups(data, module, self.consoles), partial(realise, data))])

    def errors(self, data: bytes) -> int:
        from bot.lang.python.launch import python_errors

        return UNREADABLE if python_errors(data) else 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        return None
