"""Why a console script that hands its command line to another package's dispatcher is not followed.

A CLI such as `tool train a=b` often runs a function that only calls a dispatcher imported from a library
(`cli_main(__version__, __doc__, COMMANDS)` of some `x.utils.cli`): which subcommand runs, and which Hydra app
it reaches, is that library's to decide when it runs. The library is not the repository's, so the bot does not
read it or guess its conventions; the launch stays "not checked", naming the dispatcher and its module.

Read with the stdlib's `ast`: the console script's function, whose body (a docstring aside) is one call, as a
statement or returned, of a name the file imports from a module that is not in the repository.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from bot.hydra.entry import imported_module_file, source_roots
from bot.hydra.python_file import python_file

if TYPE_CHECKING:
    from bot.context import ScanContext


def outside_dispatcher(context: ScanContext, path: Path, function: str | None) -> str | None:
    """"`function` of the file at `path` hands the command line to `name` of `module`, which is not in the
    repository" (the reason the launch is not checked), or None when the function is not that shape."""
    if not function:
        return None
    file = python_file(context, path)
    if file.tree is None:
        return None
    tree = file.tree
    called = file.fact(("outside-dispatcher", function), lambda: _dispatcher(tree, function))
    if called is None:
        return None
    name, level, module = called
    if imported_module_file(context.root, source_roots(context), path, level, module) is not None:
        return None  # the repository's own: not this reason
    source = path.relative_to(context.root).as_posix()
    return (f"{source}: {function}() hands the command line to {name} of {module}, which is not in the repository: "
            "the subcommand it runs, and any Hydra app behind it, are that package's to choose when it runs")


def _dispatcher(tree: ast.Module, function: str) -> tuple[str, int, str] | None:
    """(name, import level, module) of the one call `function`'s body makes, if it calls an imported name."""
    defined = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == function]
    if len(defined) != 1:
        return None
    body = defined[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # its docstring
    if len(body) != 1 or not isinstance(body[0], (ast.Expr, ast.Return)):
        return None
    call = body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    name = call.func.id
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return alias.name, node.level, node.module
    return None
