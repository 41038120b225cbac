"""The nodes a repository stores in Hydra's ConfigStore (`cs.store(name=..., group=..., node=...)`), read
statically so that a launch whose config names one composes with it (bot.hydra.structured_nodes).

A call is read where its name, group and package are literals, or f-strings of a loop's variables whose values
are literal (`for task in ["a", "b"]:`, a dict literal's `.items()`, a module constant bound to such a
literal, in this module or imported from another of the repository) or an Enum's members (`member.name`,
`member.value`, `.lower()` / `.upper()` of them); its node is a dataclass of the repository (`node=C`,
`node=C()` with literal keywords: bot.hydra.dataclass_spec) or a dict literal. Anything else is kept with why
it is not read: such a name may still be registered when the app runs, and a launch needing it stays "not
checked".
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.hydra.dataclass_spec import ClassSpec, DataclassReader, FieldSpec, Unread
from bot.hydra.py_modules import Defined, Modules

MAX_RUNS = 512  # ways through a call's loops read, at most
_POSITIONAL = ("name", "node", "group", "package")
_CHANGES = {"update", "append", "extend", "insert", "setdefault", "pop", "popitem", "remove", "clear", "add",
            "__setitem__"}


@dataclass(frozen=True)
class Member:
    """An Enum member a loop goes through."""

    name: str
    value: Any  # its literal value, or None when it is not one


@dataclass(frozen=True)
class Ref:
    """An expression a loop goes through, read where it is written (a class named in a list or dict)."""

    path: Path
    expr: ast.expr


@dataclass
class StoredNode:
    """One config a `.store(...)` call registers (one per run of its loops)."""

    where: str  # path:line of the call
    group: str | None
    name: str | None  # None: computed
    package: str | None
    node: ClassSpec | dict[str, Any] | None  # None: not read (`why`)
    why: str | None = None


_NOT_TEXT = object()


class StoreReader:
    """Reads the `.store(...)` calls of the repository's files."""

    def __init__(self, modules: Modules) -> None:
        self.modules = modules
        self.classes = DataclassReader(modules)
        self._local: dict[tuple[Path, str], Defined | Path | None] = {}  # the call's function's imports

    def nodes(self, path: Path) -> list[StoredNode]:
        tree = self.modules.tree(path)
        if tree is None:
            return []
        parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                parents[child] = parent
        found: list[StoredNode] = []
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "store":
                found += self._call(path, call, parents)
        return found

    def _call(self, path: Path, call: ast.Call, parents: dict[ast.AST, ast.AST]) -> list[StoredNode]:
        where = f"{path.relative_to(self.modules.root).as_posix()}:{call.lineno}"
        given: dict[str, ast.expr] = {}
        for index, value in enumerate(call.args):
            if index < len(_POSITIONAL) and not isinstance(value, ast.Starred):
                given[_POSITIONAL[index]] = value
        given.update({k.arg: k.value for k in call.keywords if k.arg})
        if "name" not in given and "node" not in given:
            return []  # some other `.store(...)`
        loops = _loops(call, parents)
        self._local = self._local_imports(path, call, parents)
        runs: list[dict[str, Any]] = [{}]
        for loop in loops:
            values = self._iterated(path, loop.iter)
            if values is None:
                why = f"its loop goes through {ast.unparse(loop.iter)}, not a literal or an Enum the bot reads"
                return [StoredNode(where, self._literal(path, given.get("group")), None, None, None, why)]
            runs = [{**run, **bound} for run, value in itertools.product(runs, values)
                    if (bound := _bind(loop.target, value)) is not None]
            if len(runs) > MAX_RUNS:
                return [StoredNode(where, None, None, None, None, "its loops run too many times")]
        return [self._run(path, where, given, run) for run in runs]

    def _run(self, path: Path, where: str, given: dict[str, ast.expr], run: dict[str, Any]) -> StoredNode:
        texts: dict[str, str | None] = {}
        for key in ("name", "group", "package"):
            value = self._text(path, given[key], run) if key in given else None
            if value is _NOT_TEXT or (value is None and key in given and not _is_none(given[key])):
                group = self._literal(path, given.get("group")) if key == "name" else None
                return StoredNode(where, group, None, None, None, f"its {key} is computed")
            texts[key] = value if isinstance(value, str) else None
        if texts["name"] is None:
            return StoredNode(where, texts["group"], None, None, None, "it is given no name")
        node, why = self._node(path, given.get("node"), run)
        return StoredNode(where, texts["group"], texts["name"], texts["package"], node, why)

    def _literal(self, path: Path, expr: ast.expr | None) -> str | None:
        """A group written as a literal (whatever the call's loops), or None: kept with a call that is not read,
        for the options it registers in that group under a name it computes (bot.hydra.stand_ins)."""
        value = self._text(path, expr, {}) if expr is not None else None
        return value if isinstance(value, str) else None

    def _node(self, path: Path, expr: ast.expr | None, run: dict[str, Any]) -> tuple[Any, str | None]:
        if expr is None:
            return None, "it is given no node"
        if isinstance(expr, ast.Name) and expr.id in run:
            bound = run[expr.id]
            if not isinstance(bound, Ref):
                return None, f"its node is {bound!r}"
            return self._node(bound.path, bound.expr, {})
        if isinstance(expr, ast.Dict) or (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
                                          and expr.func.id == "dict" and not expr.args):
            value = self._dict(path, expr, run)
            return (value, None) if value is not None else (None, "its node is a dict it computes")
        call = expr if isinstance(expr, ast.Call) else None
        target = call.func if call is not None else expr
        local = self._defined(path, target)
        defined = local if local is not None and isinstance(local.node, ast.ClassDef) else None
        if defined is None:
            return None, f"its node {ast.unparse(expr)} is not a class of the repository"
        if call is not None and (call.args or any(k.arg is None for k in call.keywords)):
            return None, f"its node {ast.unparse(expr)} is made with arguments the bot does not read"
        try:
            spec = self.classes.spec(defined)
        except Unread as exc:
            return None, str(exc)
        if call is not None and call.keywords:
            given = _with_keywords(spec, call)
            if given is None:
                return None, f"its node {ast.unparse(expr)} is made with values the bot does not read"
            return given, None
        return spec, None

    def _dict(self, path: Path, expr: ast.expr, run: dict[str, Any]) -> dict[str, Any] | None:
        """A dict display (or `dict(k=v)`) of literals and the loop's strings, nested; None when computed."""
        if isinstance(expr, ast.Dict):
            pairs = list(zip(expr.keys, expr.values))
        elif isinstance(expr, ast.Call):
            pairs = [(ast.Constant(k.arg) if k.arg else None, k.value) for k in expr.keywords]
        else:
            return None
        out: dict[str, Any] = {}
        for key, value in pairs:
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            if isinstance(value, (ast.Dict, ast.Call)) and self._dict(path, value, run) is not None:
                out[key.value] = self._dict(path, value, run)
                continue
            try:
                out[key.value] = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                text = self._text(path, value, run)
                if not isinstance(text, str):
                    return None
                out[key.value] = text
        return out

    def _text(self, path: Path, expr: ast.expr, run: dict[str, Any]) -> object:
        """A name, group or package as a string; None for a None literal; _NOT_TEXT when computed otherwise."""
        if isinstance(expr, ast.Constant):
            return expr.value if isinstance(expr.value, str) or expr.value is None else _NOT_TEXT
        if isinstance(expr, ast.Name):
            bound = run.get(expr.id, _NOT_TEXT)
            return bound if isinstance(bound, str) else _NOT_TEXT
        if isinstance(expr, ast.JoinedStr):
            parts = []
            for part in expr.values:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    parts.append(part.value)
                elif isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None:
                    inner = self._text(path, part.value, run)
                    if not isinstance(inner, str):
                        return _NOT_TEXT
                    parts.append(inner)
                else:
                    return _NOT_TEXT
            return "".join(parts)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            member = run.get(expr.value.id)
            if isinstance(member, Member):
                value = member.name if expr.attr == "name" else member.value if expr.attr == "value" else None
                return value if isinstance(value, str) else _NOT_TEXT
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args
                and not expr.keywords and expr.func.attr in ("lower", "upper")):
            inner = self._text(path, expr.func.value, run)
            return getattr(inner, expr.func.attr)() if isinstance(inner, str) else _NOT_TEXT
        return _NOT_TEXT

    def _iterated(self, path: Path, expr: ast.expr, hops: int = 0) -> list[Any] | None:
        """The values a loop goes through, or None when not read."""
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return [_element(path, e) for e in expr.elts]
        if isinstance(expr, ast.Dict):
            return [_element(path, k) if k is not None else None for k in expr.keys]
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args
                and expr.func.attr in ("items", "keys", "values")):
            mapping = self._mapping(path, expr.func.value, hops)
            if mapping is None:
                return None
            where, display = mapping
            keys = [_element(where, k) if k is not None else None for k in display.keys]
            values = [_element(where, v) for v in display.values]
            if expr.func.attr == "items":
                return [tuple(p) for p in zip(keys, values)]
            return keys if expr.func.attr == "keys" else values
        if isinstance(expr, (ast.Name, ast.Attribute)) and hops < 4:
            defined = self._defined(path, expr)
            if defined is None:
                return None
            node = defined.node
            if isinstance(node, ast.ClassDef):
                return self._members(defined) if self.classes.is_enum(defined) else None
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and not self._changed(defined):
                return self._iterated(defined.path, node.value, hops + 1)
        return None

    def _changed(self, defined: Defined) -> bool:
        """Whether the module that binds the name changes what it holds (`registry[k] = v`, `.update(...)`):
        then the literal is not all it holds."""
        tree = self.modules.tree(defined.path)
        for node in ast.walk(tree) if tree is not None else ():
            if (isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del))
                    and isinstance(node.value, ast.Name) and node.value.id == defined.name):
                return True
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == defined.name
                    and node.func.attr in _CHANGES):
                return True
        return False

    def _mapping(self, path: Path, expr: ast.expr, hops: int) -> tuple[Path, ast.Dict] | None:
        if isinstance(expr, ast.Dict):
            return path, expr
        if isinstance(expr, (ast.Name, ast.Attribute)) and hops < 4:
            defined = self._defined(path, expr)
            if (defined is not None and isinstance(defined.node, (ast.Assign, ast.AnnAssign)) and defined.node.value
                    and not self._changed(defined)):
                return self._mapping(defined.path, defined.node.value, hops + 1)
        return None

    def _defined(self, path: Path, expr: ast.expr) -> Defined | None:
        """What a name means where the call is: imported in its function (`from pkg import C` there), else as
        its module binds it."""
        if isinstance(expr, ast.Name) and (path, expr.id) in self._local:
            found: Defined | Path | None = self._local[(path, expr.id)]
        else:
            found = self.classes.class_or_module(path, expr)
        return found if isinstance(found, Defined) else None

    def _local_imports(self, path: Path, call: ast.Call,
                       parents: dict[ast.AST, ast.AST]) -> dict[tuple[Path, str], Defined | Path | None]:
        """The names the functions around the call import (`from pkg.mod import C` in its body)."""
        found: dict[tuple[Path, str], Defined | Path | None] = {}
        node: ast.AST | None = parents.get(call)
        while node is not None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom):
                        module = self.modules.module_file(path, inner.level, inner.module or "")
                        for alias in inner.names:
                            local = alias.asname or alias.name
                            if (path, local) not in found:
                                found[(path, local)] = (self.modules.lookup(module, alias.name)
                                                        if module is not None else None)
            node = parents.get(node)
        return found

    @staticmethod
    def _members(defined: Defined) -> list[Any] | None:
        node = defined.node
        assert isinstance(node, ast.ClassDef)
        members: list[Any] = []
        for statement in node.body:
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name) and not statement.targets[0].id.startswith("_")):
                value = statement.value
                literal = value.value if isinstance(value, ast.Constant) else None
                members.append(Member(statement.targets[0].id, literal))
        return members


def _element(path: Path, expr: ast.expr) -> Any:
    """A value a loop binds: a literal string, a tuple of such, or the expression where it is written."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Tuple):
        return tuple(_element(path, e) for e in expr.elts)
    return Ref(path, expr)


def _bind(target: ast.expr, value: Any) -> dict[str, Any] | None:
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, tuple) and len(value) == len(target.elts):
        out: dict[str, Any] = {}
        for inner, item in zip(target.elts, value):
            bound = _bind(inner, item)
            if bound is None:
                return None
            out.update(bound)
        return out
    return None


def _loops(call: ast.Call, parents: dict[ast.AST, ast.AST]) -> list[ast.For]:
    """The `for` loops around the call in its function (outermost first)."""
    loops: list[ast.For] = []
    node: ast.AST | None = parents.get(call)
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(node, ast.For):
            loops.append(node)
        node = parents.get(node)
    return loops[::-1]


def _with_keywords(spec: ClassSpec, call: ast.Call) -> ClassSpec | None:
    """The class's schema with the literal keywords of `C(x=1)` as its defaults."""
    fields = {f.name: f for f in spec.fields}
    out = ClassSpec(spec.name, spec.where, list(spec.fields))
    for keyword in call.keywords:
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if keyword.arg not in fields:
            return None
        index = [f.name for f in out.fields].index(str(keyword.arg))
        out.fields[index] = FieldSpec(str(keyword.arg), fields[str(keyword.arg)].type, ("value", value))
    return out


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None
