"""Which of a repository's classes an expression names or builds, for the data flow of config objects.

`Cls`, `ray.remote(Cls)`, `Cls.options(...)`, `a if c else b`, a name or parameter bound to one of
those, a role map's `mapping[Role.X]`, or a call of a function annotated `-> type[Base]` (any subclass of
Base) are class objects; calling one (or its `.remote(...)`, as Ray creates actors) makes an instance,
and `obj.method(...)` / `obj.method.remote(...)` on an instance calls that class's method. Read with
`ast`; nothing is imported.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field

from bot.pyparse import TooDeep, parse_ast

Scope = tuple[str | None, str | None]  # (class, function)
Names = dict[Scope, dict[str, set[str]]]


@dataclass
class ClassInfo:
    bases: list[str]
    params: dict[str, list[str]] = field(default_factory=dict)  # method -> parameter names (no self)
    fields: dict[str, str] = field(default_factory=dict)  # annotated class-level fields -> type name


def name_of(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def annotated(node: ast.expr | None) -> str | None:
    """The class an annotation names: `C`, `mod.C`, `Optional[C]`, `C | None`, `"C"`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = parse_ast(node.value, mode="eval").body
        except (SyntaxError, ValueError, TooDeep):
            return None
    if isinstance(node, ast.Subscript) and name_of(node.value) == "Optional":
        return annotated(node.slice)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [s for s in (node.left, node.right) if not (isinstance(s, ast.Constant) and s.value is None)]
        return annotated(sides[0]) if len(sides) == 1 else None
    return name_of(node)


def returned_type(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """`def f(...) -> type[Base]`: the function hands back Base or one of its subclasses."""
    ret = node.returns
    if isinstance(ret, ast.Subscript) and name_of(ret.value) in ("type", "Type"):
        return annotated(ret.slice)
    return None


class Values:
    """Class objects and instances along the code; mixed into Flow, which fills the tables."""

    classes: dict[str, ClassInfo]
    functions: dict[str, list[str]]
    roles: dict[str, set[str]]

    def __init__(self) -> None:
        self.kinds: Names = defaultdict(lambda: defaultdict(set))  # name -> classes it is bound to
        self.instances: Names = defaultdict(lambda: defaultdict(set))  # name -> classes of its instance
        self.attr_instances: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.returns_type: dict[str, str] = {}  # function -> the base class of what it returns

    def _mro(self, name: str) -> list[str]:
        out, todo = [], [name]
        while todo:
            current = todo.pop(0)
            if current in self.classes and current not in out:
                out.append(current)
                todo.extend(self.classes[current].bases)
        return out

    def subclasses(self, base: str) -> set[str]:
        return {name for name in self.classes if base in self._mro(name)}

    def class_values(self, node: ast.expr, scope: Scope) -> set[str]:
        """The repository classes an expression may be (as a class object, not an instance)."""
        if isinstance(node, ast.Name):
            found = set(self.kinds[scope].get(node.id, set()))
            return found | {node.id} if node.id in self.classes else found
        if isinstance(node, ast.Attribute):
            if node.attr in self.classes:
                return {node.attr}
            if node.attr == "options":  # Cls.options(...) as Ray configures an actor class
                return self.class_values(node.value, scope)
            return set()
        if isinstance(node, ast.IfExp):
            return self.class_values(node.body, scope) | self.class_values(node.orelse, scope)
        if isinstance(node, ast.Subscript):
            return set(self.roles.get(ast.unparse(node.slice), set()))
        if isinstance(node, ast.Call):
            func = node.func
            if node.args and name_of(func) == "remote" and not (
                    isinstance(func, ast.Attribute) and self.class_values(func.value, scope)):
                return self.class_values(node.args[0], scope)  # ray.remote(Cls)
            if isinstance(func, ast.Attribute) and func.attr == "options":
                return self.class_values(func.value, scope)
            base = self.returns_type.get(name_of(func) or "")
            if base is not None:
                return self.subclasses(base)
        return set()

    def instance_classes(self, node: ast.expr, scope: Scope) -> set[str]:
        """The repository classes an expression may be an instance of."""
        if isinstance(node, ast.Name):
            if node.id == "self" and scope[0]:
                return {scope[0]}
            return set(self.instances[scope].get(node.id, set()))
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
                and scope[0]):
            return {c for owner in self._mro(scope[0]) for c in self.attr_instances[owner].get(node.attr, set())}
        if isinstance(node, ast.Call):
            return self.constructed(node, scope)
        return set()

    def constructed(self, node: ast.Call, scope: Scope) -> set[str]:
        """The classes a call builds: `Cls(...)`, `Cls.remote(...)`, `Cls.options(...).remote(...)`."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "remote":
            return self.class_values(func.value, scope)
        return self.class_values(func, scope)

    def methods(self, node: ast.Call, scope: Scope) -> list[tuple[Scope, list[str]]]:
        """What a call runs besides constructors: a function (also `f.remote(...)`), `self.m(...)`,
        `obj.m(...)` and `obj.m.remote(...)` on an instance of a repository class."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "remote":
            func = func.value
        if isinstance(func, ast.Name):
            return [((None, func.id), self.functions[func.id])] if func.id in self.functions else []
        if not isinstance(func, ast.Attribute):
            return []
        out: list[tuple[Scope, list[str]]] = []
        for cls in self.instance_classes(func.value, scope):
            owner = next((c for c in self._mro(cls) if func.attr in self.classes[c].params), None)
            if owner is not None:
                out.append(((owner, func.attr), self.classes[owner].params[func.attr]))
        return out

    def bind_values(self, target: ast.expr, value: ast.expr, scope: Scope) -> None:
        """`x = Cls`, `x = Cls(...)`, `self.x = Cls.remote(...)`: what the name now holds."""
        kinds = self.class_values(value, scope)
        made = self.instance_classes(value, scope) if isinstance(value, (ast.Call, ast.Name)) else set()
        if isinstance(target, ast.Name):
            if kinds:
                self.kinds[scope][target.id].update(kinds)
            if made:
                self.instances[scope][target.id].update(made)
        elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
              and scope[0] and made):
            self.attr_instances[scope[0]][target.attr].update(made)

    def values_size(self) -> int:
        return sum(len(v) for table in (self.kinds, self.instances, self.attr_instances)
                   for names in table.values() for v in names.values())
