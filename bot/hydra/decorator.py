"""The arguments of a file's `@hydra.main(...)`, read with libcst (the file is never imported)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

COMPUTED = "\0computed"  # a config_path or config_name given by an expression the bot does not evaluate


@lru_cache(maxsize=256)
def hydra_main_arguments(path: Path) -> tuple[str | None, str | None, bool]:
    """(config_path, config_name, found) of the first `@hydra.main(...)` in the file."""
    import libcst as cst

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None, None, False
    if "main" not in text:
        return None, None, False
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return None, None, False

    def literal(node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        if isinstance(node, cst.Name) and node.value == "None":
            return None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "join" \
                and module.code_for_node(node.func.value) in ("os.path", "osp", "path", "posixpath"):
            parts = [literal(arg.value) for arg in node.args]  # os.path.join("..", "config")
            if parts and all(p is not None and p != COMPUTED for p in parts):
                return os.path.join(*[p for p in parts if p is not None])
        return COMPUTED

    class Finder(cst.CSTVisitor):
        found: tuple[str | None, str | None, bool] | None = None

        def visit_Decorator(self, node: cst.Decorator) -> None:
            call = node.decorator
            if self.found is not None or not isinstance(call, cst.Call):
                return
            func = call.func
            name = func.attr.value if isinstance(func, cst.Attribute) else (
                func.value if isinstance(func, cst.Name) else "")
            owner = func.value.value if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else ""
            if name != "main" or owner not in ("hydra", ""):
                return
            values: dict[str, str | None] = {"config_path": None, "config_name": None}
            positional = ["config_path", "config_name"]
            for index, arg in enumerate(call.args):
                key = arg.keyword.value if arg.keyword else (positional[index] if index < 2 else "")
                if key in values:
                    values[key] = literal(arg.value)
            self.found = (values["config_path"], values["config_name"], True)

    finder = Finder()
    module.visit(finder)
    return finder.found or (None, None, False)
