"""The arguments of a file's `@hydra.main(...)`, read with the stdlib's `ast` (the file is never imported)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from bot.hydra.main_helper import HelperCall, helper_call
from bot.hydra.path_expr import PathReader
from bot.hydra.python_file import PythonFile, call_arguments, in_order, python_file, string

if TYPE_CHECKING:
    from bot.context import ScanContext

COMPUTED = "\0computed"  # a config_path or config_name given by an expression the bot does not evaluate
UNDECLARED = "1.1"  # Hydra's behaviour for an app that declares no version_base (its 1.1 defaults)


def version_base_of(context: ScanContext, path: Path, function: str | None = None) -> str | None:
    """The `version_base` of the file's `@hydra.main` (the one `hydra_main_arguments` reads): its string,
    None where it says None (the installed Hydra's own behaviour), "1.1" where it says nothing."""
    return main_arguments(python_file(context, path), function)[3]


def hydra_main_arguments(context: ScanContext, path: Path,
                         function: str | None = None) -> tuple[str | None, str | None, bool]:
    """(config_path, config_name, found) of the `@hydra.main(...)` on `function` (a console script's), else
    of the first in the file (the function may call it: `def cli_main(): hydra_main()`)."""
    return main_arguments(python_file(context, path), function)[:3]


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


NOT_FOUND: Arguments = (None, None, False, None)


def main_arguments(file: PythonFile, function: str | None = None) -> Arguments:
    """The arguments of the file's `@hydra.main` on `function`, else of the first one; read once per text.
    Given through a helper (`**helper(config_path=...)`: main_helper), its config_path reads COMPUTED."""
    return _main(file, function)[0]


def main_helper(file: PythonFile, function: str | None = None) -> HelperCall | None:
    """The `**helper(...)` that gives the arguments of the `@hydra.main` main_arguments reads, if any."""
    return _main(file, function)[1]


def _main(file: PythonFile, function: str | None) -> tuple[Arguments, HelperCall | None]:
    return file.fact(("hydra.main", function), lambda: _read(file, function))  # type: ignore[no-any-return]


def _read(file: PythonFile, function: str | None) -> tuple[Arguments, HelperCall | None]:
    text, tree = file.text, file.tree
    if text is None or tree is None or "main" not in text:
        return NOT_FOUND, None
    reader = _Decorators(tree, decorator_names(text))
    found: tuple[Arguments, HelperCall | None] | None = None  # the first in the file
    for node in in_order(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for decorator in node.decorator_list:
            arguments = reader.arguments(decorator)
            if arguments is None:
                continue
            if node.name == function:
                found = arguments  # the one on `function`
                break
            found = found or arguments
        else:
            continue
        break
    if found is None or file.too_deep is not None:  # weighed only for a file with an app: the costlier scan
        return NOT_FOUND, None
    return found


class _Decorators:
    """Reads a decorator of one file as Hydra's main: `names` are decorator_names of the file."""

    def __init__(self, tree: ast.Module, names: tuple[set[str], set[str]]) -> None:
        self.tree = tree
        self.names = names
        self._paths: PathReader | None = None  # made when a config_path is not a literal (it walks the module)

    def arguments(self, node: ast.expr) -> tuple[Arguments, HelperCall | None] | None:
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        if not (name in self.names[0] and owner == "") and not (name == "main" and owner in self.names[1]):
            return None
        values: dict[str, str | None] = {"config_path": None, "config_name": None, "version_base": UNDECLARED}
        positional = ["config_path", "config_name", "version_base"]
        spread = [k.value for k in node.keywords if k.arg is None]  # `**helper(...)`
        helper = helper_call(spread[0]) if len(spread) == 1 else None
        if spread:
            values["config_path"] = COMPUTED  # unless the helper is read (bot.hydra.app)
        given = [(k, v) for k, v in call_arguments(node) if not any(v is s for s in spread)]
        for index, (keyword, value) in enumerate(given):
            key = keyword if keyword else (positional[index] if index < 3 else "")
            if key == "version_base":
                values[key] = string(value)  # None, or an expression: the installed Hydra's behaviour
            elif key in values:
                values[key] = self.literal(value)
        return (values["config_path"], values["config_name"], True, values["version_base"]), helper

    def literal(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, type(None))):
            return node.value if isinstance(node.value, str) else None
        if self._paths is None:
            self._paths = PathReader(self.tree)
        found = self._paths.directory(node)  # `os.path.join("..", "conf")`, `Path(__file__).parent / "conf"`
        return found if found is not None else COMPUTED


def too_deep_to_read(context: ScanContext, path: Path) -> str | None:
    """Why the bot did not read the file's Python (bot.pyparse: nested deeper than it parses), or None."""
    from bot.pyparse import too_deep

    file = python_file(context, path)
    if file.text is not None:
        return file.too_deep
    try:
        return too_deep(path.read_bytes())
    except OSError:
        return None
