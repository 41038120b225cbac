"""An entry that is a command group (a typer app, a click group): its first word names the command it runs, and a
word that names none of its commands fails there (click's `No such command 'X'.`), before any Hydra app runs.

Read with the stdlib's `ast` (nothing of the repository is imported or run): the group the console script (or
the file's `if __name__ == "__main__":` block, `app()`) runs, bound once at module level as
`NAME = typer.Typer(...)` or `@click.group(...) def NAME`, and the commands of the same file: `@NAME.command(...)`
and `@NAME.group(...)` functions (their literal `name`, else the function's name as typer or click spells it),
`NAME.add_typer(sub, name="x")`. The group is certain only where the file shows all of it: any other use of
its name (`NAME.add_command(...)`, `NAME.registered_commands`, handed to a function, rebound), a custom class
(`cls=`), `context_settings` (a `token_normalize_func` may match words otherwise), or a callback that runs
without a command (`invoke_without_command=True`) is not read: no gate, no finding. A typer app of one
command and no callback or sub-app is no group (typer runs the command itself): no gate either.

Only the launch's first word is judged, and only a word written out that is not an option (`--help`, the
group's own options): a word naming a command passes, whatever follows it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.hydra.python_file import PythonFile, python_file
from bot.ir import Launch

if TYPE_CHECKING:
    from bot.context import ScanContext

TYPER = "typer"
CLICK = "click"
_SUFFIXES = ("_command", "_cmd", "_group", "_grp")  # click 8.2 drops these from a function's name
_GROUP_METHODS = {TYPER: {"command", "callback", "add_typer"}, CLICK: {"command", "group"}}


@dataclass(frozen=True)
class Group:
    """A command group the entry runs: which library's, its name in the file, where it is bound, its commands."""

    kind: str
    name: str
    line: int
    commands: frozenset[str]


def group(file: PythonFile, name: str | None) -> Group | None:
    """The group `name` of the file (None: the one its `__main__` block calls), read once per text of the file."""
    if file.tree is None:
        return None
    tree = file.tree
    found: Group | None = file.fact(("command-group", name), lambda: _read(tree, name))
    return found


def command_failure(context: ScanContext, launch: Launch, path: Path, function: str | None) -> str | None:
    """click's error for the launch's first word when the entry file (`path`) is a command group none of whose
    commands it names; None when it names one, is not judged, or the group is not read. `function`: the console
    script's target in the file (None: a script or module run as `__main__`)."""
    if launch.caller_args or not launch.args:
        return None
    word, static = launch.args[0]
    if not static or not word or word.startswith("-"):
        return None
    found = group(python_file(context, path), function)
    if found is None or word in found.commands:
        return None
    commands = ", ".join(sorted(found.commands))
    where = path.relative_to(context.root).as_posix() if path.is_relative_to(context.root) else path.name
    return (f"Error: No such command '{word}'. ({found.kind}: `{found.name}` at {where}:{found.line} has the "
            f"commands {commands}; it refuses the word before Hydra composes)")


def _read(tree: ast.Module, name: str | None) -> Group | None:
    name = name or _main_call(tree)
    if name is None:
        return None
    bound = _bound(tree, name)
    if bound is None:
        return None
    kind, line, settings = bound
    if not _plain_settings(settings):
        return None
    commands: set[str] = set()
    callback = False
    uses = _group_uses(tree, name)
    if uses is None:
        return None
    for method, call, function in uses:
        if call is None and kind == CLICK:  # click's `@cli.command` with no parentheses
            call = ast.Call(func=ast.Name(id=name), args=[], keywords=[])
        if call is None or method not in _GROUP_METHODS[kind] or not _plain_settings(call.keywords):
            return None
        if method == "callback":
            callback = True
            continue
        if method == "add_typer":
            sub = _literal_keyword(call, "name")
            if sub is None:
                return None  # the sub-app's own name, or its commands merged in: not read
            commands.add(sub)
            callback = True  # a sub-app makes the app a group whatever its commands
            continue
        named = _command_names(call, function, kind)
        if named is None:
            return None
        commands.update(named)
    if not commands or (kind == TYPER and len(commands) == 1 and not callback):
        return None  # typer runs its one command itself: no group
    return Group(kind, name, line, frozenset(commands))


def _main_call(tree: ast.Module) -> str | None:
    """`NAME` of a `NAME()` statement the file's `if __name__ == "__main__":` block runs, if it is its only call."""
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test):
            calls = [s.value for s in node.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]
            if len(calls) == 1 and isinstance(calls[0].func, ast.Name) and not calls[0].args \
                    and not calls[0].keywords:
                return calls[0].func.id
    return None


def _is_main_test(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


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
    """Each use of the group: (method, its call, None for a decorator written without one (`@cli.command`),
    the function it decorates); None when the name is used otherwise than by calling one of its methods, or
    calling it (`app()`)."""
    uses: list[Use] = []
    allowed: set[int] = set()
    for node in ast.walk(tree):
        decorators = node.decorator_list if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        for decorator in decorators:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call is not None else decorator
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == name:
                if not isinstance(node, ast.FunctionDef):
                    return None
                uses.append((target.attr, call, node))
                allowed.add(id(target.value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name \
                    and func.attr == "add_typer":
                uses.append(("add_typer", node.value, None))
                allowed.add(id(func.value))
            elif isinstance(func, ast.Name) and func.id == name and not node.value.args and not node.value.keywords:
                allowed.add(id(func))  # `app()`: runs it
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
