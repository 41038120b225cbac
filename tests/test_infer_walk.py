"""infer's reading of a changed file walks its statements only (bot.upstream.statements): libcst rebuilds every node a
visitor enters, so entering expressions and whitespace was most of reading a file. What it finds is what a walk
of every node finds."""

from __future__ import annotations

from typing import Any

import libcst as cst
import pytest

from bot.upstream import checks as checks_module
from bot.upstream import conditions
from bot.upstream.checks import _ChecksVisitor, _Lines, checks_in
from bot.upstream.statements import HOLDERS

# every kind of statement that holds others, checks under guards and early returns, annotations in classes
# (also in nested functions and classes), literal collections in functions, local aliases of config fields
SOURCE = '''\
MODES = ["a", "b"]
import os; assert os.sep


class Settings:
    size: int = 1
    self.depth: Depth
    def __init__(self, config: EngineConfig, *rest: Extra, flag: "Later" = None, **more: extra.More) -> None:
        self.engine_config: engine.McoreEngineConfig = config
        if config.debug:
            return
        assert self.engine_config.tp > 0, "tp must be positive"
        for item in rest:
            if self.engine_config.mode not in MODES:
                raise ValueError("unknown mode")
        else:
            pass
        while self.engine_config.pp < 1:
            assert self.engine_config.vpp is None
        try:
            assert self.engine_config.cp >= 1
        except* KeyError:
            pass
        try:
            pass
        except ValueError as error:
            if self.engine_config.ep > 8 and self.engine_config.strict:
                raise RuntimeError("too many experts") from error
        finally:
            assert self.engine_config.use_mbridge
        with open("x") as handle:
            allowed = ("x", "y")
            assert self.engine_config.layout in allowed
        match self.engine_config.kind:
            case "dense":
                assert self.engine_config.moe is False
            case _:
                pass
        apply = lambda value: value  # noqa: E731

        class Inner:
            width: Width

            def run(self, cfg: RunConfig):
                beta = cfg.loss.beta
                if beta < 0:
                    raise ValueError(f"beta {beta}")

        def helper(step: int):
            if step:
                assert self.engine_config.seq > step


def loose(config: TopConfig):
    limit = config.trainer.limit
    if limit is not None and limit > 3:
        raise ValueError("limit")
'''


class _Everything(_ChecksVisitor):
    """The walk as it was: every node entered but expressions (a check's test is read from its statement)."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseExpression):
            return False
        guard = self.after_return.get(id(node))
        if guard is not None:
            self.guards.append(guard)
        return cst.CSTVisitor.on_visit(self, node)


def _collections_everywhere(module: cst.Module) -> dict[str, tuple[Any, ...]]:
    found: dict[str, tuple[Any, ...]] = {}

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

        def visit_Assign(self, node: cst.Assign) -> None:
            values = conditions.collection(node.value, {})
            for target in node.targets:
                if values is not None and isinstance(target.target, cst.Name):
                    found[target.target.value] = values

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            values = conditions.collection(node.value, {}) if node.value is not None else None
            if values is not None and isinstance(node.target, cst.Name):
                found[node.target.value] = values

    module.visit(Finder())
    return found


def test_the_statement_walk_finds_what_a_walk_of_every_node_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    found, types, unread = checks_in(SOURCE, "settings.py")
    assert [c.field for c in found] == ["sep", "tp", "mode", "cp", "strict", "use_mbridge", "layout", "beta", "limit"]
    assert [u.line for u in unread] == [19, 36, 51]
    assert types == {"Settings": {"size": "int", "depth": "Depth", "config": "EngineConfig", "rest": "Extra",
                                  "more": "More", "engine_config": "McoreEngineConfig", "step": "int"},
                     "Inner": {"width": "Width", "cfg": "RunConfig"}}
    module = cst.parse_module(SOURCE)
    monkeypatch.setattr(checks_module, "_collections", _collections_everywhere)
    everything = _Everything(module, "settings.py", _Lines(SOURCE))
    module.visit(everything)
    assert (found, types, unread) == (everything.found, everything.types, everything.unread)


def test_the_walk_enters_no_expression_nor_whitespace() -> None:
    module = cst.parse_module(SOURCE)
    entered: set[type[cst.CSTNode]] = set()

    class Watched(_ChecksVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            inside = super().on_visit(node)
            if inside:
                entered.add(type(node))
            return inside

    module.visit(Watched(module, "settings.py", _Lines(SOURCE)))
    assert entered <= HOLDERS
    assert {cst.ClassDef, cst.FunctionDef, cst.If, cst.Try, cst.TryStar, cst.Match} <= entered


def test_aliases_are_read_without_entering_a_small_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    module = cst.parse_module("def f(cfg):\n    beta = cfg.loss.beta\n    n: int = cfg.get('n')\n    m = 1\n"
                              "    for k in cfg.items:\n        pass\n    step += 1\n")
    (function,) = [s for s in module.body if isinstance(s, cst.FunctionDef)]

    def entered(*_: object) -> None:
        raise AssertionError("an assignment was entered")

    for kind in (cst.Assign, cst.AnnAssign, cst.AugAssign):
        monkeypatch.setattr(kind, "_visit_and_replace_children", entered)
    assert sorted(conditions.aliases(function)) == ["beta", "n"]
