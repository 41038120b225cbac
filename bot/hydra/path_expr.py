"""A `config_path` written as a path expression, read as the directory it names (never run).

`@hydra.main(config_path=str(Path(__file__).parent / "conf"))`, `os.path.join(os.path.dirname(__file__),
"..", "configs")` and a module-level `CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"` all
name a directory relative to the app's own file, which is how Hydra reads a relative config_path. What
depends on anything else (the working directory, the environment, another module) is not evaluated.
"""

from __future__ import annotations

import ast
import posixpath

from bot.hydra.markers import CWD
from bot.hydra.python_file import dotted

HERE = "."  # the app file's directory, the base of every path this module returns
_FILE = "\0file"  # `__file__` itself: only its directory is a path
_CWD_CALLS = {"os.getcwd", "Path.cwd", "pathlib.Path.cwd"}
_PATH_CALLS = {"str", "Path", "pathlib.Path", "os.fspath", "PurePath", "pathlib.PurePath",
               "os.path.abspath", "os.path.realpath", "os.path.normpath", "osp.abspath", "osp.realpath",
               "osp.normpath"}
_DIRNAME = {"os.path.dirname", "osp.dirname", "path.dirname", "posixpath.dirname"}
_JOIN = {"os.path.join", "osp.join", "path.join", "posixpath.join"}
_SAME = {"resolve", "absolute", "expanduser", "as_posix"}  # methods that keep the directory a path names


def _stores(tree: ast.Module) -> dict[str, int]:
    """How many times each name is bound anywhere in the module (every assignment form, `global`
    declarations counting twice, as a function may rebind it)."""
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

    def __init__(self, tree: ast.Module) -> None:
        self.bound: dict[str, ast.expr] = {}
        seen: dict[str, int] = {}
        for statement in tree.body:
            if not isinstance(statement, ast.Assign):
                continue
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    seen[target.id] = seen.get(target.id, 0) + 1
                    self.bound[target.id] = statement.value
        stored = _stores(tree)
        for name, count in seen.items():
            if count > 1 or stored.get(name, 0) != 1:
                del self.bound[name]  # assigned again (`+=`, in a block, a loop, a function's global): run time

    def directory(self, node: ast.expr) -> str | None:
        """The path, relative to the app file's directory (normalised), or None when it is not one."""
        found = self._read(node, 0)
        if found is None or found == _FILE:
            return None
        if found.startswith(CWD):  # kept in front: the rest is relative to where the launch runs
            return CWD + "/" + posixpath.normpath(found[len(CWD):].lstrip("/") or ".")
        return posixpath.normpath(found)

    def _read(self, node: ast.expr, depth: int) -> str | None:
        if depth > 20:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return _FILE
            bound = self.bound.get(node.id)
            return self._read(bound, depth + 1) if bound is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add)):
            return self._joined(node, depth)
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            return self._parent(self._read(node.value, depth + 1))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            index = node.slice
            if not (isinstance(index, ast.Constant) and type(index.value) is int):
                return None
            found = self._read(node.value.value, depth + 1)
            for _ in range(index.value + 1):
                found = self._parent(found)
            return found
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        return None

    def _joined(self, node: ast.BinOp, depth: int) -> str | None:
        left, right = self._read(node.left, depth + 1), self._read(node.right, depth + 1)
        if left is None or right is None or left == _FILE or right == _FILE:
            return None
        if isinstance(node.op, ast.Add):  # "conf" + "/x": strings joined as written
            return left + right
        return posixpath.join(left, right)

    def _call(self, node: ast.Call, depth: int) -> str | None:
        name = dotted(node.func)
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        if name in _CWD_CALLS and not node.args and not node.keywords:
            return CWD
        if isinstance(node.func, ast.Attribute) and node.func.attr in _SAME and not args:
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
