"""A dataclass of the repository read statically as a structured config's schema (bot.hydra.structured_nodes
makes it a class again for Hydra's ConfigStore): its fields in order, inherited ones first, each with a type
OmegaConf checks and a default. Never imported or run.

Read: `@dataclass` classes (also `dataclasses.dataclass(...)`), their dataclass bases in the repository, fields
`name: T = default`; a default that is a literal (`-1`, lists and dicts of literals too), a module constant
bound to a literal, `MISSING` (OmegaConf's or the dataclasses module's) or `"???"` or no default (a value
to be given), `field(default=...)`, `field(default_factory=list | dict | C | lambda: literal)`, `C()` of a
nested dataclass, `II("x")` / `SI("...")`, an Enum member (its name). Types: int, float, str, bool, bytes,
Optional / `X | None`, List / Dict of those (str keys), nested dataclasses of the repository; Any, Path, an
Enum of the repository, a Union and a Tuple are taken as Any, so a value is never refused where OmegaConf's
check is not known here. A class is not read (why) where a base is not the repository's dataclass (or a plain
marker such as ABC or Generic), a field's type is a class that is not the repository's (another package's
dataclass has keys the bot does not know), or a field's default is neither of the above while its type is not
a scalar one ("???" stands for a scalar default the bot cannot evaluate: composing reads no value).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.hydra.py_modules import Defined, Modules

MISSING = "???"
MAX_DEPTH = 8
SCALARS = ("int", "float", "str", "bool", "bytes")
_HARMLESS_BASES = {"object", "ABC", "Generic", "Protocol"}
_LISTS = {"List", "list", "Sequence", "MutableSequence"}
_DICTS = {"Dict", "dict", "Mapping", "MutableMapping"}
_SKIPPED = {"ClassVar", "InitVar"}

TypeSpec = tuple[Any, ...]  # ("int",) ... ("any",), ("optional", T), ("list", T), ("dict", T), ("node", ClassSpec)


@dataclass
class FieldSpec:
    name: str
    type: TypeSpec
    default: tuple[Any, ...]  # ("missing",), ("value", literal), ("node", ClassSpec, {keyword: literal})


@dataclass
class ClassSpec:
    """A dataclass as read: its name, where, and its fields (inherited first, as `dataclasses.fields` orders them)."""

    name: str
    where: str  # path:line, relative to the repository
    fields: list[FieldSpec] = field(default_factory=list)


class Unread(Exception):
    """Why a class is not read as a structured config's schema."""


class DataclassReader:
    """Reads the repository's dataclasses, each once."""

    def __init__(self, modules: Modules) -> None:
        self.modules = modules
        self._read: dict[tuple[Path, str], ClassSpec | Unread] = {}
        self._busy: set[tuple[Path, str]] = set()

    def class_at(self, path: Path, expr: ast.expr) -> Defined | None:
        """The class a name or `module.Name` of the file at `path` means, if it is the repository's."""
        if isinstance(expr, ast.Name):
            found = self.modules.lookup(path, expr.id)
        elif isinstance(expr, ast.Attribute) and isinstance(expr.value, (ast.Name, ast.Attribute)):
            owner = self.class_or_module(path, expr.value)
            found = self.modules.lookup(owner, expr.attr) if isinstance(owner, Path) else None
        else:
            return None
        return found if isinstance(found, Defined) and isinstance(found.node, ast.ClassDef) else None

    def class_or_module(self, path: Path, expr: ast.expr) -> Path | Defined | None:
        if isinstance(expr, ast.Name):
            return self.modules.lookup(path, expr.id)
        if isinstance(expr, ast.Attribute):
            owner = self.class_or_module(path, expr.value)
            return self.modules.lookup(owner, expr.attr) if isinstance(owner, Path) else None
        return None

    def spec(self, defined: Defined) -> ClassSpec:
        """The dataclass as a schema; Unread when it is not read."""
        key = (defined.path, defined.name)
        if key not in self._read:
            if key in self._busy or len(self._busy) > MAX_DEPTH:
                raise Unread(f"{defined.name} nests itself, or nests too deeply")
            self._busy.add(key)
            try:
                self._read[key] = self._spec(defined)
            except Unread as exc:
                self._read[key] = exc
            finally:
                self._busy.discard(key)
        found = self._read[key]
        if isinstance(found, Unread):
            raise found
        return found

    def is_enum(self, defined: Defined, depth: int = 0) -> bool:
        node = defined.node
        assert isinstance(node, ast.ClassDef)
        for base in node.bases:
            if _last_name(base).endswith("Enum"):
                return True
            inner = self.class_at(defined.path, base)
            if inner is not None and depth < MAX_DEPTH and self.is_enum(inner, depth + 1):
                return True
        return False

    def _spec(self, defined: Defined) -> ClassSpec:
        node = defined.node
        assert isinstance(node, ast.ClassDef)
        where = f"{defined.path.relative_to(self.modules.root).as_posix()}:{node.lineno}"
        if not any(_last_name(d.func if isinstance(d, ast.Call) else d) == "dataclass" for d in node.decorator_list):
            raise Unread(f"{node.name} ({where}) is not a dataclass")
        spec = ClassSpec(node.name, where)
        for name, inherited in self._inherited(defined):
            _put(spec.fields, FieldSpec(name, inherited.type, inherited.default))
        for statement in node.body:
            if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
                continue
            annotation = _annotation(statement.annotation)
            if _last_name(annotation.value if isinstance(annotation, ast.Subscript) else annotation) in (
                    *_SKIPPED, "KW_ONLY"):
                continue
            kind = self._type(defined.path, annotation)
            default = self._default(defined.path, statement.value, kind, statement.target.id, where)
            _put(spec.fields, FieldSpec(statement.target.id, kind, default))
        return spec

    def _inherited(self, defined: Defined) -> list[tuple[str, FieldSpec]]:
        node = defined.node
        assert isinstance(node, ast.ClassDef)
        out: list[tuple[str, FieldSpec]] = []
        for base in reversed(node.bases):  # the MRO's later classes first: a nearer base's field wins
            base_name = _last_name(base.value if isinstance(base, ast.Subscript) else base)
            inner = self.class_at(defined.path, base)
            if inner is None:
                if base_name in _HARMLESS_BASES:
                    continue
                raise Unread(f"{node.name}'s base {ast.unparse(base)} is not a class of the repository")
            inner_node = inner.node
            assert isinstance(inner_node, ast.ClassDef)
            if any(_last_name(d.func if isinstance(d, ast.Call) else d) == "dataclass"
                   for d in inner_node.decorator_list):
                out += [(f.name, f) for f in self.spec(inner).fields]
            else:  # a plain class: the dataclass fields of its own bases
                out += self._inherited(inner)
        return out

    def _type(self, path: Path, expr: ast.expr) -> TypeSpec:
        expr = _annotation(expr)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            sides = [expr.left, expr.right]
            others = [s for s in sides if not _is_none(s)]
            return ("optional", self._type(path, others[0])) if len(others) == 1 else ("any",)
        if isinstance(expr, ast.Subscript):
            outer = _last_name(expr.value)
            args = list(expr.slice.elts) if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            if outer == "Optional" and len(args) == 1:
                return ("optional", self._type(path, args[0]))
            if outer == "Union":
                others = [a for a in args if not _is_none(a)]
                if len(others) == 1 and len(args) == 2:
                    return ("optional", self._type(path, others[0]))
                return ("any",)
            if outer == "Annotated":
                return self._type(path, args[0])
            if outer in _LISTS and len(args) == 1:
                return ("list", self._type(path, args[0]))
            if outer in _DICTS and len(args) == 2:
                key = self._type(path, args[0])
                return ("dict", self._type(path, args[1])) if key == ("str",) else ("any",)
            return ("any",)
        name = _last_name(expr)
        if isinstance(expr, ast.Name) and name in SCALARS:
            return (name,)
        if name in _LISTS:
            return ("list", ("any",))
        if name in _DICTS:
            return ("dict", ("any",))
        if name in ("Any", "Path", "PathLike", "object") or _is_none(expr):
            return ("any",)
        defined = self.class_at(path, expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        if defined is not None and self.is_enum(defined):
            return ("any",)  # its members are not checked here: any value is taken
        if defined is None:  # a class that may be another package's dataclass: its keys are not known here
            raise Unread(f"the type {ast.unparse(expr)} is not a class of the repository")
        return ("node", self.spec(defined))

    def _default(self, path: Path, value: ast.expr | None, kind: TypeSpec, name: str, where: str) -> tuple[Any, ...]:
        if value is None:
            return ("missing",)
        if isinstance(value, ast.Call) and _last_name(value.func) == "field":
            keywords = {k.arg: k.value for k in value.keywords if k.arg}
            if "default" in keywords:
                return self._default(path, keywords["default"], kind, name, where)
            if "default_factory" in keywords:
                return self._factory(path, keywords["default_factory"], kind, name, where)
            return ("missing",)
        found = self._value(path, value)
        if found is not None:
            return found
        if kind[0] in SCALARS or (kind[0] == "optional" and kind[1][0] in SCALARS):
            return ("missing",)  # a scalar default not evaluated here: no key hangs under it
        raise Unread(f"the default of {name} ({where}) is not read")

    def _factory(self, path: Path, factory: ast.expr, kind: TypeSpec, name: str, where: str) -> tuple[Any, ...]:
        if isinstance(factory, ast.Name) and factory.id in ("list", "dict"):
            return ("value", [] if factory.id == "list" else {})
        if isinstance(factory, ast.Lambda):
            return self._default(path, factory.body, kind, name, where)
        defined = self.class_at(path, factory)
        if defined is not None:
            return ("node", self.spec(defined), {})
        raise Unread(f"the default_factory of {name} ({where}) is not read")

    def _value(self, path: Path, value: ast.expr) -> tuple[Any, ...] | None:
        """A default's value: ("missing",), ("value", literal), ("node", spec, keywords); None when not read."""
        if _last_name(value) == "MISSING" or (isinstance(value, ast.Constant) and value.value == MISSING):
            return ("missing",)
        try:
            return ("value", _plain(ast.literal_eval(value)))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(value, ast.Call) and _last_name(value.func) in ("II", "SI") and len(value.args) == 1:
            text = value.args[0]
            if isinstance(text, ast.Constant) and isinstance(text.value, str):
                return ("value", f"${{{text.value}}}" if _last_name(value.func) == "II" else text.value)
        if isinstance(value, ast.Call) and not value.args:
            defined = self.class_at(path, value.func)
            if defined is not None:
                keywords: dict[str, Any] = {}
                for keyword in value.keywords:
                    inner = self._value(path, keyword.value) if keyword.arg else None
                    if inner is None or inner[0] != "value":
                        return None
                    keywords[str(keyword.arg)] = inner[1]
                try:
                    return ("node", self.spec(defined), keywords)
                except Unread:
                    return None
        if isinstance(value, ast.Attribute):
            owner = self.class_at(path, value.value)
            if owner is not None and self.is_enum(owner):
                return ("value", value.attr)  # an Enum member, by its name (the field is taken as Any)
        if isinstance(value, ast.Name):
            bound = self.modules.lookup(path, value.id)
            if isinstance(bound, Defined) and isinstance(bound.node, (ast.Assign, ast.AnnAssign)):
                assigned = bound.node.value
                try:
                    return ("value", _plain(ast.literal_eval(assigned))) if assigned is not None else None
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    return None
        return None


def _plain(value: Any) -> Any:
    """A literal as OmegaConf takes it: tuples as lists; sets and complex numbers are not read."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool, bytes, type(None))):
        return value
    raise ValueError(type(value).__name__)


def _put(fields: list[FieldSpec], new: FieldSpec) -> None:
    """A field added, or put in place of the inherited one of its name (which keeps its place)."""
    for index, old in enumerate(fields):
        if old.name == new.name:
            fields[index] = new
            return
    fields.append(new)


def _annotation(expr: ast.expr) -> ast.expr:
    """A string annotation (`"Sub"`, `"Optional[int]"`) as the expression it holds."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        try:
            return ast.parse(expr.value, mode="eval").body
        except SyntaxError:
            return expr
    return expr


def _is_none(expr: ast.expr) -> bool:
    return (isinstance(expr, ast.Constant) and expr.value is None) or _last_name(expr) == "NoneType"


def _last_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else ""
