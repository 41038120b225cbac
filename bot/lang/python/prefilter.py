"""Whether a Python file can hold an override list the Python front end reads, told by the stdlib parser.

libcst (slow, and slow to import) runs only on files where it can find something: a list or tuple
with a string that reads as an override, and a list that can launch (one of its strings is a
launcher word: python, torchrun, a wrapper, a runner, a `.sh` script, a console script the repository
declares; or `sys.executable`) or an
`overrides=[...]` (or `overrides=NAME`) argument. Every string libcst evaluates is a string constant of the stdlib tree,
so this is a necessary condition for a group: a file without it reads as no groups.
"""

from __future__ import annotations

import ast
import re

from bot.context import NO_CONSOLES, Consoles
from bot.lang.shell.launchers import PYTHON, RUNNERS, TORCHRUN, WRAPPERS
from bot.pyparse import TooDeep, parse_ast

# a string that starts like an override (a dotted key, or any key and `=`: a group choice `model=x`):
# without one, libcst (slow) is not run at all
LOOKS_LIKE_OVERRIDE = re.compile(
    rb"[\"'](?:\+\+|\+|~)?[A-Za-z_][\w\-]*(?:(?:\.[\w\-]+)+(?:@[\w.\-]+)?[=\"']|(?:@[\w.\-]+)?=)")
OVERRIDE_TEXT = re.compile(r"^(\+\+|\+|~)?[A-Za-z_][\w\-]*(\.[\w\-]+)*(@[\w.\-]+)?(=|$)")

_OTHER_LAUNCHERS = {"env", "ray", "bash", "sh"}


def _launcher(word: str, consoles: Consoles) -> bool:
    base = word.rsplit("/", 1)[-1]
    return bool(PYTHON.match(base) or TORCHRUN.match(base)) or base in RUNNERS or base in WRAPPERS \
        or base in _OTHER_LAUNCHERS or word.endswith(".sh") or base in consoles


def _executable(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "executable" and isinstance(node.value, ast.Name) \
        and node.value.id == "sys"


def stdlib_tree(data: bytes) -> ast.Module | None:
    """The stdlib's tree of the file; None when this Python cannot parse it (libcst decides then)."""
    try:
        return parse_ast(data)
    except (SyntaxError, ValueError, UnicodeDecodeError, TooDeep):
        return None


def _built_head(node: ast.expr) -> str | None:
    """The literal text an f-string, `"k=" + v`, `"k=%s" % v` or `"k={}".format(v)` starts with."""
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        head = node.values[0].value
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)) and isinstance(
            node.left, ast.Constant):
        head = node.left.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant):
        head = node.func.value.value
    else:
        return None
    return head if isinstance(head, str) else None


def may_hold_overrides(tree: ast.Module, consoles: Consoles = NO_CONSOLES) -> bool:
    """False only when no list of the file can be read as a group of overrides (see the module docstring)."""
    override = launcher = False
    listed = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
              and isinstance(node.value, (ast.List, ast.Tuple)) for target in node.targets
              if isinstance(target, ast.Name)}  # names a list is assigned to: `overrides=NAME` may be one
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "overrides" and (isinstance(
                node.value, (ast.List, ast.Tuple)) or (isinstance(node.value, ast.Name) and node.value.id in listed)):
            launcher = True
        elif isinstance(node, (ast.List, ast.Tuple)):
            for element in node.elts:
                if isinstance(element, ast.Constant) and isinstance(element.value, str):
                    override = override or bool(OVERRIDE_TEXT.match(element.value))
                    launcher = launcher or _launcher(element.value, consoles)
                elif "=" in (head := _built_head(element) or ""):  # `f"k={v}"`, `"k=" + v`
                    override = override or bool(OVERRIDE_TEXT.match(head))
                elif _executable(element):
                    launcher = True
        if override and launcher:
            return True
    return False
