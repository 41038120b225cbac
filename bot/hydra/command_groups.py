"""Command groups (a typer app, a click group) as the repository's Python source shows them, read with the stdlib's
`ast` (nothing of the repository is imported or run).

A group is bound once, at module level, as `NAME = typer.Typer(...)` or `@click.group(...) def NAME`. Its
commands are the `@NAME.command(...)` and `@NAME.group(...)` functions (their literal `name`, else the function's
name as typer or click spells it) and the sub-apps `NAME.add_typer(sub, name="x")` (a typer sub-app is a group of
its own, whatever its commands), in its own file and, for a console script, in every module of the repository
that runs when the script starts and imports the group from its module (`from .main import app`): the import
closure of the script's module and of the packages above it (module-level imports, followed in the repository).

A group is *complete* when nothing else can add a command: no other use of its name (`add_command`,
`registered_commands`, handed to a function, rebound), no custom class (`cls=`), no `context_settings` (a
`token_normalize_func` may match words otherwise), no callback that runs without a command
(`invoke_without_command=True`), no sub-app added without a literal name, and no module of the closure that
imports modules by name (`importlib.import_module`, `__import__`), whose modules could register more. A typer app
of one command and no callback or sub-app is no group (typer runs the command itself).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.hydra.entry import imported_module_file, source_roots
from bot.hydra.python_file import python_file

if TYPE_CHECKING:
    from bot.context import ScanContext

TYPER = "typer"
CLICK = "click"
MAX_CLOSURE = 400  # modules followed from a console script's start; past this the group is not complete
_SUFFIXES = ("_command", "_cmd", "_group", "_grp")  # click 8.2 drops these from a function's name
_GROUP_METHODS = {TYPER: {"command", "callback", "add_typer"}, CLICK: {"command", "group"}}
_DYNAMIC = {"import_module", "__import__"}
INCOMPLETE = "<reached as a module attribute>"  # not a name: the group is used in a way not read


@dataclass(frozen=True)
class Leaf:
    """A command: the function it runs, and the file it is defined in."""

    path: Path
    function: str


@dataclass(frozen=True)
class SubGroup:
    """A typer sub-app added with a literal name: bound as `sub = typer.Typer(...)` in `path`."""

    path: Path
    name: str


@dataclass
class Group:
    """A group's commands (None: a command that is read no further), where it is bound, and whether it is
    complete."""

    kind: str
    name: str
    path: Path
    line: int
    commands: dict[str, Leaf | SubGroup | None] = field(default_factory=dict)
    complete: bool = True
    single: bool = False  # a typer app of one command: typer runs it itself
    takes_words: bool = False  # its callback (or click's group function) takes positional words before a command


@dataclass(frozen=True)
class Start:
    """How a launch starts the group's file: `closure`, the modules that run first and may register commands
    (empty for a file run as `__main__`, whose group no other module sees); `dynamic`: one of them imports
    modules by name, or the closure was cut short."""

    closure: tuple[Path, ...]
    dynamic: bool


def read_group(context: ScanContext, path: Path, name: str, start: Start) -> Group | None:
    """The group `name` bound in the file at `path`, with the commands the file and the start's modules register."""
    file = python_file(context, path)
    if file.tree is None:
        return None
    bound = _bound(file.tree, name)
    if bound is None:
        return None
    kind, line, settings = bound
    group = Group(kind, name, path, line, complete=_plain_settings(settings) and not start.dynamic)
    if kind == CLICK:
        group.takes_words = _click_arguments(file.tree, name)
    callback = False
    registrars = [(path, name)] + [(other, alias) for other in start.closure if other != path
                                   for alias in _aliases(context, other, path, name)]
    for where, alias in registrars:
        tree = python_file(context, where).tree
        uses = _group_uses(tree, alias) if tree is not None and alias != INCOMPLETE else None
        if uses is None:
            group.complete = False
            continue
        for method, call, function in uses:
            if call is None and kind == CLICK:  # click's `@cli.command` with no parentheses
                call = ast.Call(func=ast.Name(id=alias), args=[], keywords=[])
            if call is None or method not in _GROUP_METHODS[kind] or not _plain_settings(call.keywords):
                group.complete = False
                continue
            if method == "callback":
                callback = True
                group.takes_words = group.takes_words or function is None or _typer_arguments(function)
            elif method == "add_typer":
                callback = True  # a sub-app makes the app a group whatever its commands
                _add_sub(group, where, call, tree)
            else:
                _add_command(group, where, call, function, kind, method)
    group.single = kind == TYPER and len(group.commands) == 1 and not callback
    return group


def start_of(context: ScanContext, path: Path, module: str | None) -> Start:
    """What runs when a console script starts `module` (the file at `path`): its packages' `__init__.py` and the
    module, and what they import, followed in the repository. None for `module`: a file run as `__main__`."""
    if module is None:
        return Start((), False)
    roots = source_roots(context)
    parts = module.split(".")
    todo = [found for index in range(1, len(parts) + 1)
            if (found := imported_module_file(context.root, roots, context.root / "-", 0,
                                              ".".join(parts[:index]))) is not None]
    if path not in todo:
        todo.append(path)
    seen: list[Path] = []
    dynamic = False
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        if len(seen) >= MAX_CLOSURE:
            return Start(tuple(seen), True)
        seen.append(current)
        tree = python_file(context, current).tree
        if tree is None:
            continue
        for node in _run_at_import(tree):
            if isinstance(node, ast.Call) and _called(node.func) in _DYNAMIC:
                dynamic = True
            for imported in _imported_files(context, roots, current, node):
                if imported not in seen:
                    todo.append(imported)
    return Start(tuple(seen), dynamic)


def _run_at_import(tree: ast.Module) -> list[ast.AST]:
    """The nodes of the module's code that runs when it is imported (not the bodies of its functions)."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                todo.append(child)
    return found


def _imported_files(context: ScanContext, roots: tuple[str, ...], path: Path, node: ast.AST) -> list[Path]:
    """The repository files an import statement runs: the module, its packages, and submodules it names."""
    names: list[tuple[int, str]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            names.extend((0, ".".join(parts[:index])) for index in range(1, len(parts) + 1))
    elif isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if node.level == 0:
            parts = module.split(".")
            names.extend((0, ".".join(parts[:index])) for index in range(1, len(parts) + 1))
        else:
            names.append((node.level, module))
        names.extend((node.level, f"{module}.{alias.name}" if module else alias.name) for alias in node.names
                     if alias.name != "*")
    found = []
    for level, module in names:
        file = imported_module_file(context.root, roots, path, level, module) if module else (
            _package_init(path, level))
        if file is not None:
            found.append(file)
    return found


def _package_init(path: Path, level: int) -> Path | None:
    """`from . import x`'s package: the `__init__.py` `level` dots above the file."""
    base = path.parent
    for _ in range(level - 1):
        base = base.parent
    init = base / "__init__.py"
    return init if init.is_file() else None


def _aliases(context: ScanContext, path: Path, defined: Path, name: str) -> list[str]:
    """The names under which the file at `path` imports the group `name` from its module (the file `defined`);
    a file that reaches it as a module's attribute (`import pkg.cli.main as m; m.app.command()`) makes the group
    incomplete: `_Incomplete` is among the names then."""
    file = python_file(context, path)
    tree = file.tree
    if tree is None or file.text is None or name not in file.text:
        return []
    modules = {alias.asname or alias.name.partition(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    if any(isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.value, (ast.Name, ast.Attribute))
           and _base(node.value) in modules for node in ast.walk(tree)):
        return [INCOMPLETE]
    roots = source_roots(context)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(alias.name == name for alias in node.names):
            source = imported_module_file(context.root, roots, path, node.level, node.module or "") \
                if node.module else _package_init(path, node.level)
            if source is not None and os.path.samefile(source, defined):
                found.extend(alias.asname or alias.name for alias in node.names if alias.name == name)
    return found


def _base(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _called(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _add_sub(group: Group, where: Path, call: ast.Call, tree: ast.Module | None) -> None:
    sub = _literal_keyword(call, "name")
    if sub is None:
        group.complete = False  # the sub-app's own name, or its commands merged in: not read
        return
    target = call.args[0] if call.args else None
    local = isinstance(target, ast.Name) and tree is not None and _bound(tree, target.id) is not None
    group.commands[sub] = SubGroup(where, target.id) if local and isinstance(target, ast.Name) else None


def _add_command(group: Group, where: Path, call: ast.Call, function: ast.FunctionDef | None, kind: str,
                 method: str) -> None:
    named = _command_names(call, function, kind)
    if named is None:
        group.complete = False
        return
    for name in named:
        group.commands[name] = Leaf(where, function.name) if function is not None and method == "command" else None


def _typer_arguments(function: ast.FunctionDef) -> bool:
    """Whether a typer callback takes positional words: a parameter with no default, a `typer.Argument(...)`
    default, or an `Annotated[...]` type (which may hold one)."""
    arguments = function.args
    if arguments.vararg or arguments.posonlyargs:
        return True
    plain = arguments.args[: len(arguments.args) - len(arguments.defaults)]
    defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if plain or any(d is None for d in arguments.kw_defaults):
        return True
    if any(isinstance(d, ast.Call) and _called(d.func) == "Argument" for d in defaults):
        return True
    return any(isinstance(a.annotation, ast.Subscript) and "Annotated" in ast.dump(a.annotation.value)
               for a in (*arguments.args, *arguments.kwonlyargs))


def _click_arguments(tree: ast.Module, name: str) -> bool:
    """Whether click's group function takes positional words (`@click.argument(...)` on it)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return any(_called(d.func if isinstance(d, ast.Call) else d) == "argument" for d in node.decorator_list)
    return False


def _bound(tree: ast.Module, name: str) -> tuple[str, int, list[ast.keyword]] | None:
    """(kind, line, the constructor's keywords) of the group `name`: bound once, at module level, as
    `typer.Typer(...)` or a function decorated `@click.group(...)`."""
    typer_names, click_names = _imported(tree)
    found: list[tuple[str, int, list[ast.keyword]]] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            call = node.value
            if len(node.targets) == 1 and isinstance(call, ast.Call) and _names(call.func, typer_names, "Typer"):
                found.append((TYPER, node.lineno, call.keywords))
            else:
                return None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            decorators = [d for d in node.decorator_list
                          if _names(d.func if isinstance(d, ast.Call) else d, click_names, "group")]
            if not isinstance(node, ast.FunctionDef) or len(decorators) != 1:
                return None
            made = decorators[0]
            found.append((CLICK, node.lineno, made.keywords if isinstance(made, ast.Call) else []))
    if len(found) != 1 or _rebound(tree, name):
        return None
    return found[0]


def _imported(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """The names under which the file reaches typer and click: modules (`import typer as t`: "t" -> "") and
    names taken from them (`from click import group`: "group" -> "group")."""
    typer_names: dict[str, str] = {}
    click_names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                table = {TYPER: typer_names, CLICK: click_names}.get(alias.name)
                if table is not None:
                    table[alias.asname or alias.name] = ""
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            taken = {TYPER: typer_names, CLICK: click_names}.get(node.module or "")
            if taken is not None:
                for alias in node.names:
                    taken[alias.asname or alias.name] = alias.name
    return typer_names, click_names


def _names(func: ast.expr, names: dict[str, str], wanted: str) -> bool:
    """`func` is the library's `wanted` (`typer.Typer`, or `Typer` imported from typer)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return names.get(func.value.id) == "" and func.attr == wanted
    return isinstance(func, ast.Name) and names.get(func.id) == wanted


def _rebound(tree: ast.Module, name: str) -> bool:
    """The name is bound anywhere but by a module-level assignment (a function's `global`, a loop, an import)."""
    top = {id(target) for node in tree.body if isinstance(node, ast.Assign) for target in node.targets}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            if id(node) not in top:
                return True
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            if name in node.names:
                return True
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


Use = tuple[str, "ast.Call | None", "ast.FunctionDef | None"]


def _group_uses(tree: ast.Module, name: str) -> list[Use] | None:
    """Each use of the group under `name` in a file: (method, its call, None for a decorator written without one
    (`@cli.command`), the function it decorates); None when the name is used otherwise than by calling one of
    its methods, or calling it (`app()`), or when it adds a command only when a function runs."""
    uses: list[Use] = []
    allowed: set[int] = set()
    nested = {id(inner) for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              for statement in node.body for inner in ast.walk(statement)}
    for node in ast.walk(tree):
        decorators = node.decorator_list if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        for decorator in decorators:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call is not None else decorator
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == name:
                if not isinstance(node, ast.FunctionDef) or id(node) in nested:
                    return None
                uses.append((target.attr, call, node))
                allowed.add(id(target.value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name \
                    and func.attr == "add_typer":
                if id(node) in nested:
                    return None
                uses.append(("add_typer", node.value, None))
                allowed.add(id(func.value))
            elif isinstance(func, ast.Name) and func.id == name and not node.value.args and not node.value.keywords:
                allowed.add(id(func))  # `app()`: runs it
            elif isinstance(func, ast.Attribute) and func.attr == "add_typer" and node.value.args \
                    and isinstance(node.value.args[0], ast.Name) and node.value.args[0].id == name:
                allowed.add(id(node.value.args[0]))  # `parent.add_typer(sub, ...)`: added to a parent, unchanged
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) \
                and id(node) not in allowed:
            return None
    return uses


def _plain_settings(keywords: list[ast.keyword]) -> bool:
    """No keyword that changes which words name a command: a custom class, context settings, a callback that
    runs without a command, or keywords unpacked from a mapping."""
    for keyword in keywords:
        if keyword.arg is None or keyword.arg in ("cls", "context_settings"):
            return False
        if keyword.arg == "invoke_without_command" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False):
            return False
    return True


def _literal_keyword(call: ast.Call, name: str) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            value = keyword.value
            return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
    return None


def _command_names(call: ast.Call, function: ast.FunctionDef | None, kind: str) -> set[str] | None:
    """The names a `@NAME.command(...)` (or `.group(...)`) gives its function: the literal `name`, else the
    function's name as typer spells it (lower case, `_` as `-`) and as click 8.2 does (also without a suffix
    such as `_cmd`); None when the name is computed."""
    given = _literal_keyword(call, "name")
    if any(k.arg == "name" for k in call.keywords) and given is None:
        return None
    if call.args:
        first = call.args[0]
        if len(call.args) != 1 or not (isinstance(first, ast.Constant) and isinstance(first.value, (str, type(None)))):
            return None
        given = first.value if first.value is not None else given
    if given is not None:
        return {given}
    if function is None:
        return None
    spelt = function.name.lower().replace("_", "-")
    names = {spelt}
    for suffix in _SUFFIXES:
        if function.name.lower().endswith(suffix) and function.name.lower() != suffix:
            names.add(function.name.lower()[: -len(suffix)].replace("_", "-"))
    return names
