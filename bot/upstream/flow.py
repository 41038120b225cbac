"""Where config objects come from: Hydra key paths along the data flow of a repository's Python.

The root config enters at each `@hydra.main` function (its first parameter is the whole config,
path ""), and every class a YAML node's `_target_` names holds that node. From there the paths
follow the code, one step at a time, to a fixed point: assignments (`cfg = config.actor_rollout_ref`,
`self.config = config`), attribute, `.get("x")` and `["x"]` reads, conversions (`omega_conf_to_dataclass(x)`,
`OmegaConf.to_container(x)`, `deepcopy(x)`), and calls of the repository's own classes and
functions, directly or through the wrappers that distributed trainers use (`ray.remote(Cls)`,
`Cls.remote(...)`, a `cls=` keyword beside the constructor's arguments as in
`RayClassWithInitArgs(cls=..., config=...)`, and role -> class maps read as `mapping[Role.X]`), remote
functions and actor methods (`main_task.remote(config)`, `runner.run.remote(config)`), methods of
instances held in names or attributes, and classes handed around as values (bot.upstream.values).
Dataclass fields typed with another config class hold the nested node. Read with `ast`; nothing
is imported. Test files are not read.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict

from bot.pyparse import TooDeep, parse_ast
from bot.upstream.values import ClassInfo, Scope, Values, annotated, name_of, returned_type

CONVERSIONS = re.compile(r"(conf|dataclass|container|copy|instantiate|structured)", re.IGNORECASE)


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (any(p in ("tests", "test", "testing") for p in parts[:-1]) or name.startswith("test_")
            or name.endswith("_test.py") or name == "conftest.py")


def _key(node: ast.expr) -> str:
    return ast.unparse(node)


class Flow(Values):
    """Paths of config objects in one tree of Python files (path -> source)."""

    def __init__(self, sources: dict[str, str], targets: dict[str, list[str]]) -> None:
        super().__init__()
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, list[str]] = {}
        self.bindings: dict[Scope, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.attrs: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.roles: dict[str, set[str]] = defaultdict(set)
        self.bodies: list[tuple[Scope, ast.AST]] = []
        self.typed: list[tuple[Scope, str, str]] = []  # (scope, parameter, annotated class)
        self.maps: list[ast.Dict | ast.Assign] = []  # module-level role maps, read once every class is known
        for path, source in sources.items():
            if is_test_path(path):
                continue
            try:
                self._index(parse_ast(source))
            except (SyntaxError, ValueError, RecursionError):
                continue
        for mapping in self.maps:
            try:
                self._role(mapping, (None, None))
            except RecursionError:  # an expression nested deeper than the analysis follows: left out
                continue
        for cls, nodes in targets.items():
            for owner in self._mro(cls) or [cls]:  # a node of class C runs C's methods and its bases'
                self.attrs[owner]["__self__"].update(nodes)
        self._solve()

    def _index(self, module: ast.Module) -> None:
        for node in ast.walk(module):
            if isinstance(node, ast.ClassDef):
                info = self.classes.setdefault(node.name, ClassInfo([b for b in map(name_of, node.bases) if b]))
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        args = [a.arg for a in item.args.args + item.args.kwonlyargs]
                        info.params[item.name] = args[1:] if args[:1] in (["self"], ["cls"]) else args
                        self.bodies.append(((node.name, item.name), item))
                        self._typed((node.name, item.name), item)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        type_name = annotated(item.annotation)
                        if type_name:
                            info.fields[item.target.id] = type_name
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.col_offset == 0:
                self.functions[node.name] = [a.arg for a in node.args.args + node.args.kwonlyargs]
                self.bodies.append(((None, node.name), node))
                self._typed((None, node.name), node)
                base = returned_type(node)
                if base is not None:
                    self.returns_type[node.name] = base
                if any(name_of(d.func if isinstance(d, ast.Call) else d) == "main" and "hydra" in _key(d)
                       for d in node.decorator_list) and node.args.args:
                    self.bindings[(None, node.name)][node.args.args[0].arg].add("")
            elif isinstance(node, (ast.Dict, ast.Assign)) and node.col_offset == 0:
                self.maps.append(node)

    def _typed(self, scope: Scope, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for arg in node.args.args + node.args.kwonlyargs:
            type_name = annotated(arg.annotation)
            if type_name:
                self.typed.append((scope, arg.arg, type_name))

    def _role(self, node: ast.Dict | ast.Assign, scope: Scope) -> None:
        """`{Role.Actor: ray.remote(Cls)}` and `mapping[Role.Actor] = ray.remote(Cls)`."""
        pairs: list[tuple[ast.expr | None, ast.expr]] = []
        if isinstance(node, ast.Dict):
            pairs = list(zip(node.keys, node.values, strict=True))
        else:
            pairs = [(t.slice, node.value) for t in node.targets if isinstance(t, ast.Subscript)]
        for key, value in pairs:
            if key is None or isinstance(key, ast.Constant):
                continue
            classes = self.class_values(value, scope)
            if classes:
                self.roles[_key(key)].update(classes)

    def paths(self, node: ast.expr, scope: Scope) -> set[str]:
        """The Hydra paths an expression may hold, in a scope."""
        if isinstance(node, ast.Name):
            if node.id == "self" and scope[0]:
                return set(self.attrs[scope[0]].get("__self__", set()))
            return set(self.bindings[scope].get(node.id, set()))
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self" and scope[0]:
                found = {p for c in self._mro(scope[0]) for p in self.attrs[c].get(node.attr, set())}
                return found | {_join(p, node.attr) for p in self.paths(node.value, scope)}
            return {_join(p, node.attr) for p in self.paths(node.value, scope)}
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(
                node.slice.value, str):
            return {_join(p, node.slice.value) for p in self.paths(node.value, scope)}
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "get" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                return {_join(p, node.args[0].value) for p in self.paths(func.value, scope)}
            name = name_of(func) or ""
            if node.args and name not in self.classes and name not in self.functions and CONVERSIONS.search(name):
                return self.paths(node.args[0], scope)
        return set()

    def _solve(self) -> None:
        kinds = (ast.Assign, ast.AnnAssign, ast.Dict, ast.Call)
        steps = [(scope, [n for n in ast.walk(body) if isinstance(n, kinds)]) for scope, body in self.bodies]
        for _ in range(12):
            before = self._size()
            for scope, param, type_name in self.typed:
                self.bindings[scope][param].update(self.attrs[type_name].get("__self__", set()))
            for scope, nodes in steps:
                for node in nodes:
                    try:
                        self._step(node, scope)
                    except RecursionError:  # an expression nested deeper than the analysis follows: left out
                        continue
            self._nested_fields()
            if self._size() == before:
                return

    def _step(self, node: ast.AST, scope: Scope) -> None:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            self._assign(node, scope)
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets):
                self._role(node, scope)
        elif isinstance(node, ast.Dict):
            self._role(node, scope)
        elif isinstance(node, ast.Call):
            self._call(node, scope)

    def _size(self) -> int:
        return sum(len(v) for b in self.bindings.values() for v in b.values()) + sum(
            len(v) for a in self.attrs.values() for v in a.values()) + sum(
            len(v) for v in self.roles.values()) + self.values_size()

    def _assign(self, node: ast.Assign | ast.AnnAssign, scope: Scope) -> None:
        assert node.value is not None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            self.bind_values(target, node.value, scope)
        found = self.paths(node.value, scope)
        if not found:
            return
        for target in targets:
            if isinstance(target, ast.Name):
                self.bindings[scope][target.id].update(found)
            elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                  and target.value.id == "self" and scope[0]):
                self.attrs[scope[0]][target.attr].update(found)

    def _call(self, node: ast.Call, scope: Scope) -> None:
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        callees: list[tuple[Scope, list[str]]] = []
        wrapped = self.class_values(keywords.pop("cls"), scope) if "cls" in keywords else set()
        classes = wrapped or self.constructed(node, scope)
        for cls in classes:
            owner = next((c for c in self._mro(cls) if "__init__" in self.classes[c].params), None)
            if owner is not None:
                callees.append(((owner, "__init__"), self.classes[owner].params["__init__"]))
        if not classes:
            callees.extend(self.methods(node, scope))
        for callee, params in callees:
            args = [] if wrapped else node.args
            for param, arg in [*zip(params, args, strict=False), *keywords.items()]:
                if param not in params:
                    continue
                found = self.paths(arg, scope)
                if found:
                    self.bindings[callee][param].update(found)
                kinds, made = self.class_values(arg, scope), self.instance_classes(arg, scope)
                if kinds:
                    self.kinds[callee][param].update(kinds)
                if made and not (isinstance(arg, ast.Name) and arg.id == "self"):
                    self.instances[callee][param].update(made)

    def _nested_fields(self) -> None:
        """A dataclass field typed with another class holds the nested node."""
        for cls, info in self.classes.items():
            held = self.attrs[cls].get("__self__", set())
            for name, type_name in info.fields.items():
                if type_name in self.classes and held:
                    self.attrs[type_name]["__self__"].update(_join(p, name) for p in held)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def holder_paths(flow: Flow, holder: str, cls: str | None, func: str | None) -> set[str]:
    """The paths of the object a check reads (`self.config.actor`, `config.data`) in its scope."""
    try:
        node = parse_ast(holder, mode="eval").body
    except (SyntaxError, ValueError, TooDeep):
        return set()
    found = flow.paths(node, (cls, func))
    if not found and cls is not None and func is not None:
        found = flow.paths(node, (cls, "__init__"))  # a parameter stored on self in the constructor
    return found
