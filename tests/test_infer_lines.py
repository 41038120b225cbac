"""Where infer says each check is: the line of its assert or `if`, read from the stdlib's tree of the text, without
libcst's position metadata (which prints the whole module again: the larger part of reading a changed file)."""

from __future__ import annotations

import libcst.metadata
import pytest

from bot.upstream.checks import checks_in

SOURCE = '''\
LIMITS = (1, 2)


class Worker:
    def __init__(self, config: EngineConfig):
        if config.debug:
            pass
        elif self.config.mode == "a":
            raise ValueError("mode a is gone")
        assert self.config.tp > 0; assert self.config.pp > 0
        if (
            self.config.cp <= 0
        ):
            raise ValueError("cp")
        assert valid(self.config.layout), "a layout"

        def inner():
            assert self.config.ep in LIMITS
'''


def _refused(*_: object, **__: object) -> None:
    raise AssertionError("libcst's positions were asked for")


def test_checks_are_placed_on_their_lines_without_libcsts_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(libcst.metadata.PositionProvider, "_gen_impl", _refused)
    checks, _, unread = checks_in(SOURCE, "w.py")
    assert [(c.field, c.line) for c in checks] == [("mode", 8), ("tp", 10), ("pp", 10), ("cp", 11), ("ep", 18)]
    assert [(u.line, u.text) for u in unread] == [(15, 'assert valid(self.config.layout), "a layout"')]
    (limits,) = [c for c in checks if c.field == "ep"]
    assert limits.values == (1, 2)
