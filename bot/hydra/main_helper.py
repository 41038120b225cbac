"""`@hydra.main(**helper(config_path="config", config_name="app"))`: the decorator's arguments made by a
function of the repository (often one that adds `version_base` only where the installed Hydra knows it).

Read with `ast`, never imported or run. The rule: the helper is a function defined at the top level of the
decorator's file, or imported into it from a module of the repository (`from pkg.util import helper`, also
relative); its body returns a dict display, or one name bound once to a dict display. Each of the dict's
`config_path`, `config_name` and `version_base` is read where the display gives it a literal or one of the
helper's own parameters, passed through: that parameter takes the call's literal argument (by keyword or
position), else its literal default. A key the body sets afterwards (`args["version_base"] = None` under a
version test) is computed: for `version_base` that is the installed Hydra's behaviour, as for a version_base
the decorator computes; a computed `config_path` or `config_name` leaves the app "not checked". Any other
use of the dict (`update`, `**`, a second binding, handing it to a call) and any other helper are not read:
the reason says which.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.hydra.entry import source_roots
from bot.hydra.py_modules import Modules
from bot.hydra.python_file import python_file

if TYPE_CHECKING:
    from bot.context import ScanContext

KEYS = ("config_path", "config_name", "version_base")
PASSED = "\0passed"  # a key the display does not give and nothing sets: Hydra's default for it
COMPUTED_VALUE = "\0set"  # a key the body sets after the display: known at run time


@dataclass(frozen=True)
class HelperCall:
    """`**name(...)` in a `@hydra.main(...)`: the function's name and its arguments as written."""

    name: str
    call: ast.Call


@dataclass(frozen=True)
class HelperArguments:
    """What the helper returns for the call: each key's literal (None for Python's None), COMPUTED_VALUE, or
    absent; `unread`: why the helper is not read (then nothing else is known)."""

    values: dict[str, str | None]
    unread: str | None = None


def helper_call(node: ast.expr) -> HelperCall | None:
    """`helper(...)` of a `**helper(...)` argument (a plain name called), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return HelperCall(node.func.id, node)
    return None


def helper_arguments(context: ScanContext, path: Path, helper: HelperCall) -> HelperArguments:
    """The decorator's arguments as the helper, called as written in the file at `path`, returns them."""
    found = _definition(context, path, helper.name)
    if isinstance(found, str):
        return HelperArguments({}, found)
    definition, where = found
    arguments = _call_values(helper.call, definition)
    if isinstance(arguments, str):
        return HelperArguments({}, f"{helper.name} of {where}: {arguments}")
    returned = _returned(definition)
    if isinstance(returned, str):
        return HelperArguments({}, f"{helper.name} of {where} {returned}")
    display, later = returned
    values: dict[str, str | None] = {}
    for key_node, value_node in zip(display.keys, display.values):
        key = _literal(key_node) if key_node is not None else None
        if not isinstance(key, str):
            return HelperArguments({}, f"{helper.name} of {where} builds its dict with keys it computes")
        if key not in KEYS:
            continue
        if isinstance(value_node, ast.Name) and value_node.id in arguments:
            value = arguments[value_node.id]
        else:
            value = _literal(value_node)
        values[key] = value if value is None or isinstance(value, str) else COMPUTED_VALUE
    for key in later:
        values[key] = COMPUTED_VALUE
    return HelperArguments(values)


_NOT_LITERAL = object()


def _literal(node: ast.expr | None) -> object:
    """A string or None literal's value; _NOT_LITERAL for anything else."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
        return node.value
    return _NOT_LITERAL


def _call_values(call: ast.Call, definition: ast.FunctionDef) -> dict[str, object] | str:
    """Each parameter's value in the call: its literal argument, else its literal default (_NOT_LITERAL else)."""
    params = [*definition.args.posonlyargs, *definition.args.args]
    defaults: dict[str, ast.expr] = dict(zip([p.arg for p in params][len(params) - len(definition.args.defaults):],
                                             definition.args.defaults))
    defaults.update({p.arg: d for p, d in zip(definition.args.kwonlyargs, definition.args.kw_defaults)
                     if d is not None})
    values: dict[str, object] = {name: _literal(node) for name, node in defaults.items()}
    for param in [*params, *definition.args.kwonlyargs]:
        values.setdefault(param.arg, _NOT_LITERAL)
    for index, given in enumerate(call.args):
        if isinstance(given, ast.Starred) or index >= len(params):
            return "called with arguments it does not name"
        values[params[index].arg] = _literal(given)
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in values:
            return "called with arguments it does not name"
        values[keyword.arg] = _literal(keyword.value)
    return values


def _returned(definition: ast.FunctionDef) -> tuple[ast.Dict, list[str]] | str:
    """The dict display the function returns and the keys of KEYS its body sets after it, or why not read."""
    returns = [n for n in ast.walk(definition) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return "does not end in one return of a dict"
    value = returns[0].value
    if isinstance(value, ast.Dict):
        return value, []
    if not isinstance(value, ast.Name):
        return "returns something other than a dict it builds"
    name = value.id
    display: ast.Dict | None = None
    later: list[str] = []
    for node in ast.walk(definition):
        if isinstance(node, ast.Name) and node.id == name and node is not value:
            if isinstance(node.ctx, ast.Store):
                if display is not None:
                    return f"binds {name} more than once"
                display = _bound_display(definition, node)
                if display is None:
                    return f"binds {name} to something other than a dict display"
            elif not _subscript_set(definition, node, later):
                return f"uses {name} otherwise than setting its keys"
    if display is None:
        return f"returns {name}, which it does not bind to a dict display"
    return display, [k for k in later if k in KEYS]


def _bound_display(definition: ast.FunctionDef, target: ast.Name) -> ast.Dict | None:
    for node in ast.walk(definition):
        if isinstance(node, ast.Assign) and node.targets == [target] and isinstance(node.value, ast.Dict):
            return node.value
        if isinstance(node, ast.AnnAssign) and node.target is target and isinstance(node.value, ast.Dict):
            return node.value
    return None


def _subscript_set(definition: ast.FunctionDef, name: ast.Name, later: list[str]) -> bool:
    """Whether `name` is the object of `name["key"] = value` (the key noted in `later`)."""
    for node in ast.walk(definition):
        if isinstance(node, ast.Subscript) and node.value is name and isinstance(node.ctx, ast.Store):
            key = _literal(node.slice)
            if isinstance(key, str):
                later.append(key)
                return True
            later.extend(KEYS)  # a key it computes may be any
            return True
    return False


def _definition(context: ScanContext, path: Path, name: str) -> tuple[ast.FunctionDef, str] | str:
    """The helper's definition and the file it is in (relative to the repository), or why it is not read."""
    root = context.root
    source = path.relative_to(root).as_posix()
    tree = python_file(context, path).tree
    if tree is None:
        return f"{name} of {source} is not read"
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node, source
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    modules = Modules(root, source_roots(context))  # as an entry's imports are looked for
                    target = modules.module_file(path, node.level, node.module or "")
                    if target is None:
                        return f"{name} is imported from {node.module or '.'}, which is not in the repository"
                    other = python_file(context, target).tree
                    for inner in other.body if other is not None else []:
                        if isinstance(inner, ast.FunctionDef) and inner.name == alias.name:
                            return inner, target.relative_to(root).as_posix()
                    return f"{name} is not a function defined in {target.relative_to(root).as_posix()}"
    return f"{name} is not a function defined in or imported into {source}"
