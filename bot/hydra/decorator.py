"""The arguments of a file's `@hydra.main(...)`, read with libcst (the file is never imported)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

COMPUTED = "\0computed"  # a config_path or config_name given by an expression the bot does not evaluate


@lru_cache(maxsize=256)
def hydra_main_arguments(path: Path, function: str | None = None) -> tuple[str | None, str | None, bool]:
    """(config_path, config_name, found) of the `@hydra.main(...)` on `function` (a console script's), else
    of the first in the file (the function may call it: `def cli_main(): hydra_main()`)."""
    import libcst as cst

    from bot.hydra.path_expr import PathReader

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

    paths = PathReader(module)

    def literal(node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        if isinstance(node, cst.Name) and node.value == "None":
            return None
        found = paths.directory(node)  # `os.path.join("..", "conf")`, `Path(__file__).parent / "conf"`
        return found if found is not None else COMPUTED

    def arguments(node: cst.Decorator) -> tuple[str | None, str | None, bool] | None:
        call = node.decorator
        if not isinstance(call, cst.Call):
            return None
        func = call.func
        name = func.attr.value if isinstance(func, cst.Attribute) else (
            func.value if isinstance(func, cst.Name) else "")
        owner = func.value.value if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else ""
        if name != "main" or owner not in ("hydra", ""):
            return None
        values: dict[str, str | None] = {"config_path": None, "config_name": None}
        positional = ["config_path", "config_name"]
        for index, arg in enumerate(call.args):
            key = arg.keyword.value if arg.keyword else (positional[index] if index < 2 else "")
            if key in values:
                values[key] = literal(arg.value)
        return values["config_path"], values["config_name"], True

    class Finder(cst.CSTVisitor):
        found: tuple[str | None, str | None, bool] | None = None  # the first in the file
        named: tuple[str | None, str | None, bool] | None = None  # the one on `function`

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            for decorator in node.decorators:
                found = arguments(decorator)
                if found is None:
                    continue
                self.found = self.found or found
                if node.name.value == function and self.named is None:
                    self.named = found

    finder = Finder()
    module.visit(finder)
    return finder.named or finder.found or (None, None, False)
