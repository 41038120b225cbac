"""The validation checks (asserts, `if ...: raise`) of one Python file, with the guards they run under."""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider

from bot.pyparse import TooDeep, parse_ast, parse_cst
from bot.upstream.check import Check, NotUnderstood
from bot.upstream.conditions import Constraint, aliases, collection, conditions, dotted, reads_config, substitute
from bot.upstream.statements import entered

_READ = frozenset({cst.Param, cst.AnnAssign, cst.Assert})  # read by _ChecksVisitor, nothing inside them is


def _is_exit(statement: cst.BaseStatement, kinds: tuple[type, ...]) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(isinstance(x, kinds) for x in statement.body)


def checks_in(source: str, path: str) -> tuple[list[Check], dict[str, dict[str, str]], list[NotUnderstood]]:
    """The checks of one file, per class the annotations of its attributes, and checks not understood."""
    try:
        module = parse_cst(source)
    except cst.ParserSyntaxError:
        return [], {}, []
    visitor = _ChecksVisitor(module, path, _Lines(source))
    module.visit(visitor)
    if not visitor.lines.matched():  # the stdlib's statements are not libcst's: lines from libcst's positions
        wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)  # the module is this call's own: no copy
        visitor = _ChecksVisitor(module, path, _Lines(None, wrapper.resolve(PositionProvider)))
        module.visit(visitor)
    return visitor.found, visitor.types, visitor.unread


class _Lines:
    """The line of each assert and `if` as the visitor meets them, in source order: told by the stdlib's tree of
    the same text (libcst's position metadata prints the whole module again to find them, the larger part of
    reading a file), or by libcst's positions when given (`positions`: the stdlib could not read the text, or
    its statements did not pair with libcst's)."""

    def __init__(self, source: str | None, positions: Any = None) -> None:
        self.positions = positions
        self.asserts: list[int] = []
        self.ifs: list[int] = []
        self.seen = {"assert": 0, "if": 0}
        self.readable = source is not None
        if source is None:
            return
        try:
            tree = parse_ast(source)
        except (SyntaxError, ValueError, TooDeep, RecursionError, MemoryError):
            self.readable = False
            return
        asserts, ifs = [], []
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                asserts.append((node.lineno, node.col_offset))
            elif isinstance(node, ast.If):
                ifs.append((node.lineno, node.col_offset))
        self.asserts = [line for line, _ in sorted(asserts)]
        self.ifs = [line for line, _ in sorted(ifs)]

    def met(self, kind: str) -> None:
        """The visitor met the next statement of `kind` (assert, if)."""
        self.seen[kind] += 1

    def line(self, node: cst.CSTNode, kind: str) -> int:
        """The line of `node`, the statement of `kind` the visitor met last (0 until `matched` is checked)."""
        if self.positions is not None:
            return int(self.positions[node].start.line)
        found = self.asserts if kind == "assert" else self.ifs
        index = self.seen[kind] - 1
        return found[index] if self.readable and 0 <= index < len(found) else 0

    def matched(self) -> bool:
        """Whether every statement the visitor met paired with one of the stdlib's, and no more were there."""
        return self.positions is not None or (self.readable and self.seen["assert"] == len(self.asserts)
                                              and self.seen["if"] == len(self.ifs))


class _ChecksVisitor(cst.CSTVisitor):
    """Walks one module: the classes and functions it is in, the guards (tests of the enclosing ifs and of the
    early returns before it) that hold where a check is, and each assert or `if ...: raise` read as checks."""

    def __init__(self, module: cst.Module, path: str, lines: _Lines) -> None:
        super().__init__()
        self.module, self.path, self.lines = module, path, lines
        self.names = _collections(module)
        self.found: list[Check] = []
        self.unread: list[NotUnderstood] = []
        self.types: dict[str, dict[str, str]] = {}  # per class, the annotations of its attributes
        self.classes: list[str] = []
        self.functions: list[str] = []
        self.defs: list[cst.FunctionDef] = []
        self.aliases: dict[int, dict[str, cst.BaseExpression]] = {}  # per function, read when a check needs it
        self.guards: list[tuple[str, list[Constraint] | None]] = []
        self.after_return: dict[int, tuple[str, list[Constraint] | None]] = {}  # after an early return

    def shown(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node).strip().splitlines()[0]

    def on_visit(self, node: cst.CSTNode) -> bool:
        if not entered(node):  # no statement is inside it (a check's test is read from the statement)
            if type(node) in _READ:
                super().on_visit(node)
            return False
        guard = self.after_return.get(id(node))
        if guard is not None:
            self.guards.append(guard)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if id(original_node) in self.after_return:
            self.guards.pop()
        super().on_leave(original_node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node.name.value)
        self.defs.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.defs.pop()

    def local(self, test: cst.BaseExpression) -> cst.BaseExpression:
        """The test with the function's local aliases of config fields read as those fields."""
        if not self.defs:
            return test
        key = id(self.defs[-1])
        if key not in self.aliases:
            self.aliases[key] = aliases(self.defs[-1])
        return substitute(test, self.aliases[key])

    def read(self, test: cst.BaseExpression, negate: bool) -> list[Constraint] | None:
        return conditions(self.local(test), negate, self.names)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        guard: tuple[str, list[Constraint] | None] | None = None
        for statement in node.body:
            if guard is not None:
                self.after_return[id(statement)] = guard
            if (isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock)
                    and statement.orelse is None and statement.body.body
                    and all(_is_exit(s, (cst.Return, cst.Continue)) for s in statement.body.body[-1:])):
                guard = (f"not ({self.module.code_for_node(statement.test)})", self.read(statement.test, True))

    def _note_type(self, name: str, annotation: cst.Annotation | None) -> None:
        if annotation is not None and self.classes:
            type_name = dotted(annotation.annotation)
            if type_name:
                self.types.setdefault(self.classes[-1], {})[name] = type_name.rsplit(".", 1)[-1]

    def visit_Param(self, node: cst.Param) -> None:
        self._note_type(node.name.value, node.annotation)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        target = dotted(node.target)
        if target:
            self._note_type(target.removeprefix("self."), node.annotation)

    def _add(self, node: cst.CSTNode, kind: str, test: cst.BaseExpression, negate: bool, message: str,
             implied: tuple[str, list[Constraint] | None] | None = None) -> None:
        read = conditions(self.local(test), negate, self.names, partial=True)
        line = self.lines.line(node, kind)
        if read is None and implied is None and negate and isinstance(test, cst.BooleanOperation) and isinstance(
                test.operator, cst.And):
            # `if a and bad: raise`: when a holds, bad must not
            guard_text = self.module.code_for_node(test.left)
            self._add(node, kind, test.right, True, message, (guard_text, self.read(test.left, False)))
            return
        if read is None:
            if reads_config(test):
                self.unread.append(NotUnderstood(self.path, line, self.shown(node), message,
                                            "the condition is not one the bot can turn into a rule"))
            return
        active = [g for g in self.guards if g[0]] + ([implied] if implied else [])
        guard = " and ".join(text for text, _ in active)
        guard_reads: tuple[Constraint, ...] | None = ()
        for _, reads in active:
            guard_reads = None if reads is None or guard_reads is None else (*guard_reads, *reads)
        for chain, kind, values in read:
            holder, _, leaf = chain.rpartition(".")
            self.found.append(Check(self.path, line, self.classes[-1] if self.classes else None, holder, leaf,
                                    kind, values, self.shown(node), message, guard, guard_reads,
                                    self.functions[-1] if self.functions else None))

    def visit_Assert(self, node: cst.Assert) -> None:
        self.lines.met("assert")
        self._add(node, "assert", node.test, False, _text(node.msg))

    def visit_If(self, node: cst.If) -> None:
        self.lines.met("if")
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
        if body and _is_exit(body[0], (cst.Raise,)):
            self._add(node, "if", node.test, True, _raise_message(body[0]))

    def visit_If_body(self, node: cst.If) -> None:
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
        raises = bool(body) and _is_exit(body[0], (cst.Raise,))
        self.guards.append(("", []) if raises else (self.module.code_for_node(node.test), self.read(node.test, False)))

    def leave_If_body(self, node: cst.If) -> None:
        self.guards.pop()

    def visit_If_orelse(self, node: cst.If) -> None:
        self.guards.append((f"not ({self.module.code_for_node(node.test)})", self.read(node.test, True)))

    def leave_If_orelse(self, node: cst.If) -> None:
        self.guards.pop()


def _collections(module: cst.Module) -> dict[str, tuple[Any, ...]]:
    """Names assigned a literal list, tuple or set anywhere in the file (`valid_modes = ["a", "b"]`)."""
    found: dict[str, tuple[Any, ...]] = {}

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if entered(node):
                return super().on_visit(node)
            if type(node) in (cst.Assign, cst.AnnAssign):  # read; nothing inside it is
                super().on_visit(node)
            return False

        def visit_Assign(self, node: cst.Assign) -> None:
            values = collection(node.value, {})
            for target in node.targets:
                if values is not None and isinstance(target.target, cst.Name):
                    found[target.target.value] = values

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            values = collection(node.value, {}) if node.value is not None else None
            if values is not None and isinstance(node.target, cst.Name):
                found[node.target.value] = values

    module.visit(Finder())
    return found


def _raise_message(statement: cst.BaseStatement) -> str:
    assert isinstance(statement, cst.SimpleStatementLine)
    for item in statement.body:
        if isinstance(item, cst.Raise) and isinstance(item.exc, cst.Call) and item.exc.args:
            return _text(item.exc.args[0].value)
    return ""


def _text(node: cst.BaseExpression | None) -> str:
    """A string literal's text, implicit concatenations too (`"a " "b"`); "" for anything else."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else ""
    return ""
