"""A `config_path` written as a path expression, read as the directory it names (never run).

`@hydra.main(config_path=str(Path(__file__).parent / "conf"))`, `os.path.join(os.path.dirname(__file__),
"..", "configs")` and a module-level `CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"` all
name a directory relative to the app's own file, which is how Hydra reads a relative config_path. What
depends on anything else (the working directory, the environment, another module) is not evaluated.
"""

from __future__ import annotations

import posixpath
from typing import Any

import libcst as cst

from bot.hydra.markers import CWD

HERE = "."  # the app file's directory, the base of every path this module returns
_FILE = "\0file"  # `__file__` itself: only its directory is a path
_CWD_CALLS = {"os.getcwd", "Path.cwd", "pathlib.Path.cwd"}
_PATH_CALLS = {"str", "Path", "pathlib.Path", "os.fspath", "PurePath", "pathlib.PurePath",
               "os.path.abspath", "os.path.realpath", "os.path.normpath", "osp.abspath", "osp.realpath",
               "osp.normpath"}
_DIRNAME = {"os.path.dirname", "osp.dirname", "path.dirname", "posixpath.dirname"}
_JOIN = {"os.path.join", "osp.join", "path.join", "posixpath.join"}
_SAME = {"resolve", "absolute", "expanduser", "as_posix"}  # methods that keep the directory a path names


def _stores(code: str) -> dict[str, int]:
    """How many times each name is bound anywhere in the module (every assignment form, `global`
    declarations counting twice, as a function may rebind it)."""
    import ast

    from bot.pyparse import parse_ast

    try:
        tree = parse_ast(code)
    except (SyntaxError, ValueError, RecursionError):  # RecursionError: bot.pyparse.TooDeep too
        return {}
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.Global):
            for name in node.names:
                counts[name] = counts.get(name, 0) + 2
    return counts


class PathReader:
    """Reads path expressions of one module; `bound` are its module-level names assigned once."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.bound: dict[str, Any] = {}
        seen: dict[str, int] = {}
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not isinstance(small, cst.Assign):
                    continue
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        name = target.target.value
                        seen[name] = seen.get(name, 0) + 1
                        self.bound[name] = small.value
        stored = _stores(module.code)
        for name, count in seen.items():
            if count > 1 or stored.get(name, 0) != 1:
                del self.bound[name]  # assigned again (`+=`, in a block, a loop, a function's global): run time

    def directory(self, node: cst.BaseExpression) -> str | None:
        """The path, relative to the app file's directory (normalised), or None when it is not one."""
        found = self._read(node, 0)
        if found is None or found == _FILE:
            return None
        if found.startswith(CWD):  # kept in front: the rest is relative to where the launch runs
            return CWD + "/" + posixpath.normpath(found[len(CWD):].lstrip("/") or ".")
        return posixpath.normpath(found)

    def _read(self, node: cst.BaseExpression, depth: int) -> str | None:
        if depth > 20:
            return None
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        if isinstance(node, cst.Name):
            if node.value == "__file__":
                return _FILE
            bound = self.bound.get(node.value)
            return self._read(bound, depth + 1) if bound is not None else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Divide, cst.Add)):
            left, right = self._read(node.left, depth + 1), self._read(node.right, depth + 1)
            if left is None or right is None or left == _FILE or right == _FILE:
                return None
            if isinstance(node.operator, cst.Add):  # "conf" + "/x": strings joined as written
                return left + right
            return posixpath.join(left, right)
        if isinstance(node, cst.Attribute) and node.attr.value == "parent":
            return self._parent(self._read(node.value, depth + 1))
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) \
                and node.value.attr.value == "parents" and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                found = self._read(node.value.value, depth + 1)
                for _ in range(int(index.value.value) + 1):
                    found = self._parent(found)
                return found
            return None
        if isinstance(node, cst.Call):
            return self._call(node, depth)
        return None

    def _call(self, node: cst.Call, depth: int) -> str | None:
        name = self.module.code_for_node(node.func)
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if name in _CWD_CALLS and not node.args:
            return CWD
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _SAME and not args:
            return self._read(node.func.value, depth + 1)
        if name in _PATH_CALLS and len(args) == 1:
            return self._read(args[0], depth + 1)
        if name in _DIRNAME and len(args) == 1:
            return self._parent(self._read(args[0], depth + 1))
        if name in _JOIN and args:
            parts = [self._read(a, depth + 1) for a in args]
            if any(p is None or p == _FILE for p in parts):
                return None
            return posixpath.join(*[p for p in parts if p is not None])
        return None

    @staticmethod
    def _parent(path: str | None) -> str | None:
        if path is None:
            return None
        if path == _FILE:
            return HERE
        if path.startswith("/"):
            return posixpath.dirname(path.rstrip("/")) or "/"
        return path + "/.." if path.startswith(CWD) else posixpath.join(path, "..")
