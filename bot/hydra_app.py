"""A launch's Hydra app: the `@hydra.main(config_path=..., config_name=...)` of its entry point.

Read with libcst from the target repository's source; nothing is imported or executed. The
launch's own `--config-path` / `--config-name` flags win over the decorator, as they do in Hydra.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bot.sources.launches import Launch


@dataclass(frozen=True)
class HydraApp:
    source: str  # the Python file, relative to the repository
    config_dir: Path | None
    config_name: str | None


@dataclass(frozen=True)
class AppProblem:
    reason: str


def entry_file(root: Path, launch: Launch) -> Path | None:
    if launch.entry is None:
        return None
    if launch.entry_kind == "module":
        base = root.joinpath(*launch.entry.split("."))
        for candidate in (base.with_suffix(".py"), base / "__main__.py"):
            if candidate.is_file():
                return candidate
        return None
    candidate = (root / launch.entry).resolve()
    return candidate if candidate.is_file() and candidate.is_relative_to(root.resolve()) else None


@lru_cache(maxsize=256)
def _decorator(path: Path) -> tuple[str | None, str | None, bool]:
    """(config_path, config_name, found) of the first `@hydra.main(...)` in the file."""
    import libcst as cst

    try:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, cst.ParserSyntaxError):
        return None, None, False

    def literal(node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        return None

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


def resolve_app(root: Path, launch: Launch) -> HydraApp | AppProblem:
    path = entry_file(root, launch)
    if path is None:
        return AppProblem(f"entry point {launch.entry} not found in the repository")
    config_path, config_name, found = _decorator(path)
    if not found:
        return AppProblem(f"{path.relative_to(root).as_posix()} has no @hydra.main decorator")
    config_path = launch.config_path if launch.config_path is not None else config_path
    config_name = launch.config_name if launch.config_name is not None else config_name
    if config_path is None:
        return AppProblem("the app declares no config_path")
    directory = Path(config_path) if Path(config_path).is_absolute() else (path.parent / config_path)
    if not directory.resolve().is_dir():
        return AppProblem(f"config directory {config_path} not found (relative to {path.name})")
    return HydraApp(path.relative_to(root).as_posix(), directory.resolve(), config_name)
