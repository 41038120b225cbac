"""The arguments of a file's `@hydra.main(...)`, read with libcst (the file is never imported)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

COMPUTED = "\0computed"  # a config_path or config_name given by an expression the bot does not evaluate
UNDECLARED = "1.1"  # Hydra's behaviour for an app that declares no version_base (its 1.1 defaults)


def version_base_of(path: Path, function: str | None = None) -> str | None:
    """The `version_base` of the file's `@hydra.main` (the one `hydra_main_arguments` reads): its string,
    None where it says None (the installed Hydra's own behaviour), "1.1" where it says nothing."""
    return _read(_source(path), function)[3]


def hydra_main_arguments(path: Path, function: str | None = None) -> tuple[str | None, str | None, bool]:
    """(config_path, config_name, found) of the `@hydra.main(...)` on `function` (a console script's), else
    of the first in the file (the function may call it: `def cli_main(): hydra_main()`)."""
    return _read(_source(path), function)[:3]


Arguments = tuple[str | None, str | None, bool, str | None]  # config_path, config_name, found, version_base

# `from hydra import main as X` (also inside parentheses over several lines), `import hydra as X`,
# `from dora import hydra_main [as X]`
_FROM_IMPORT = r"^[ \t]*from[ \t]+{module}[ \t]+import[ \t]*(?:\((?P<paren>[^)]*)\)|(?P<line>[^\n]*))"
_FROM_HYDRA = re.compile(_FROM_IMPORT.format(module="hydra"), re.MULTILINE)
_FROM_DORA = re.compile(_FROM_IMPORT.format(module="dora"), re.MULTILINE)
_HYDRA_AS = re.compile(r"^[ \t]*import[ \t]+hydra[ \t]+as[ \t]+(\w+)", re.MULTILINE)
_NAME_AS = r"(?:^|,)\s*{name}\s+as\s+(\w+)\s*(?:,|$)"


def decorator_names(text: str) -> tuple[set[str], set[str]]:
    """(names a bare decorator may call Hydra's main by, modules an attribute `main` may be Hydra's of):
    `main` and `hydra`, and what the file's imports bind them to (`from hydra import main as hydra_main`,
    `import hydra as h`, dora's `hydra_main`, which runs `hydra.main` with the same arguments)."""
    names, owners = {"main"}, {"hydra"}
    owners.update(_HYDRA_AS.findall(text))
    for pattern, name, plain in ((_FROM_HYDRA, "main", False), (_FROM_DORA, "hydra_main", True)):
        for found in pattern.finditer(text):
            imported = (found.group("paren") or found.group("line") or "").split("#")[0].strip()
            names.update(re.findall(_NAME_AS.format(name=name), imported))
            if plain and re.search(rf"(?:^|,)\s*{name}\s*(?:,|$)", imported):
                names.add(name)
    return names, owners


def _source(path: Path) -> str | None:
    """The file's text (None: not readable as UTF-8): what is read of it is cached by this text, never by its path."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


@lru_cache(maxsize=256)
def _read(text: str | None, function: str | None = None) -> Arguments:
    import libcst as cst

    from bot.hydra.path_expr import PathReader
    from bot.pyparse import TooDeep, parse_cst

    if text is None or "main" not in text:
        return None, None, False, None
    try:
        module = parse_cst(text)
    except (cst.ParserSyntaxError, TooDeep):
        return None, None, False, None

    paths = PathReader(module)
    names, owners = decorator_names(text)

    def literal(node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        if isinstance(node, cst.Name) and node.value == "None":
            return None
        found = paths.directory(node)  # `os.path.join("..", "conf")`, `Path(__file__).parent / "conf"`
        return found if found is not None else COMPUTED

    def version(node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
            return node.evaluated_value
        return None  # None, or an expression: the installed Hydra's behaviour

    def arguments(node: cst.Decorator) -> Arguments | None:
        call = node.decorator
        if not isinstance(call, cst.Call):
            return None
        func = call.func
        name = func.attr.value if isinstance(func, cst.Attribute) else (
            func.value if isinstance(func, cst.Name) else "")
        owner = func.value.value if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else ""
        if not (name in names and owner == "") and not (name == "main" and owner in owners):
            return None
        values: dict[str, str | None] = {"config_path": None, "config_name": None, "version_base": UNDECLARED}
        positional = ["config_path", "config_name", "version_base"]
        for index, arg in enumerate(call.args):
            key = arg.keyword.value if arg.keyword else (positional[index] if index < 3 else "")
            if key == "version_base":
                values[key] = version(arg.value)
            elif key in values:
                values[key] = literal(arg.value)
        return values["config_path"], values["config_name"], True, values["version_base"]

    class Finder(cst.CSTVisitor):
        found: Arguments | None = None  # the first in the file
        named: Arguments | None = None  # the one on `function`

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            for decorator in node.decorators:
                found = arguments(decorator)
                if found is None:
                    continue
                self.found = self.found or found
                if node.name.value == function and self.named is None:
                    self.named = found

    finder = Finder()
    try:
        module.visit(finder)
    except RecursionError:  # parsed, but nested deeper than a visit follows: read as no app
        return None, None, False, None
    return finder.named or finder.found or (None, None, False, None)


def too_deep_to_read(path: Path) -> str | None:
    """Why the bot did not read the file's Python (bot.pyparse: nested deeper than it parses), or None."""
    from bot.pyparse import too_deep

    try:
        return too_deep(path.read_bytes())
    except OSError:
        return None
