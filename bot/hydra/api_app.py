"""Entry points that build their config with Hydra's compose API instead of `@hydra.main`.

    parser.add_argument("--config-path", default="conf")
    parser.add_argument("--config-name", default="train")
    args, overrides = parser.parse_known_args()
    with initialize(config_path=args.config_path, version_base=None):
        cfg = compose(config_name=args.config_name, overrides=overrides)

Read with the stdlib's `ast`, from the file's one tree of the scan (bot.hydra.python_file; nothing imported
or run): the `initialize*` and `compose` calls, and for each of
their arguments either a string literal or the argparse option it comes from (`args.config_name`
-> `--config-name` / `--config_name`, with the option's default). `OmegaConf.load(args.config)` is
recognised too, so a launch can say why it is not composed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.hydra.python_file import PythonFile, argument, called_name, in_order, python_file, string

if TYPE_CHECKING:
    from bot.context import ScanContext

LOCATIONS = {"initialize": "config_path", "initialize_config_dir": "config_dir",
             "initialize_config_module": "config_module"}


@dataclass(frozen=True)
class Source:
    """A literal value, or the argparse options a value is read from (and their default)."""

    literal: str | None = None
    options: tuple[str, ...] = ()
    default: str | None = None


@dataclass(frozen=True)
class ApiApp:
    location_kind: str  # config_path (relative to the file) | config_dir (a directory) | config_module
    location: Source
    name: Source
    loads: Source | None = None  # `OmegaConf.load(...)` without the compose API
    others: tuple[tuple[str, Source], ...] = ()  # later `initialize*` calls: an `else` where the first has none


@dataclass
class _Reading:
    options: dict[str, tuple[tuple[str, ...], str | None]] = field(default_factory=dict)  # dest -> (flags, default)
    location: tuple[str, ast.expr] | None = None
    others: list[tuple[str, ast.expr]] = field(default_factory=list)
    name: ast.expr | None = None
    loads: ast.expr | None = None

    def source(self, node: ast.expr | None) -> Source | None:
        """A literal, or the argparse option `args.x` is read from (with its default)."""
        if isinstance(node, ast.Constant):
            value = string(node)
            return Source(literal=value) if value is not None else None
        if isinstance(node, ast.Attribute):
            dest = node.attr
            flags, default = self.options.get(dest, ((f"--{dest}", f"--{dest.replace('_', '-')}"), None))
            return Source(options=flags, default=default)
        return None

    def call(self, node: ast.Call) -> None:
        """Collects argparse options, the first `initialize*` and `compose` calls, and `OmegaConf.load`."""
        func = node.func
        name = called_name(func)
        if name == "add_argument":
            flags = tuple(v for a in node.args for v in [string(a)] if v is not None and v.startswith("-"))
            if flags:
                dest = string(argument(node, "dest", -1))
                longest = max(flags, key=len).lstrip("-").replace("-", "_")
                self.options[dest or longest] = (flags, string(argument(node, "default", -1)))
        elif name in LOCATIONS:
            value = argument(node, LOCATIONS[name], 0)
            if value is not None and self.location is None:
                self.location = (LOCATIONS[name], value)
            elif value is not None:
                self.others.append((LOCATIONS[name], value))
        elif name == "compose" and self.name is None:
            self.name = argument(node, "config_name", 0)
        elif name == "load" and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id == "OmegaConf":
            self.loads = self.loads or argument(node, "file_", 0)


def compose_api_app(context: ScanContext, path: Path) -> ApiApp | None:
    """The compose-API app of a Python file, or None when it does not call `initialize*` and `compose`."""
    file = python_file(context, path)
    return file.fact(("compose-api",), lambda: _api_app(file))  # type: ignore[no-any-return]


def _api_app(file: PythonFile) -> ApiApp | None:
    """The compose-API app of one Python text."""
    text, tree = file.text, file.tree
    if text is None or ("compose" not in text and "OmegaConf" not in text):
        return None
    if tree is None or file.too_deep is not None:  # not Python, or nested deeper than the bot reads
        return None
    reading = _Reading()
    for call in in_order(tree, ast.Call):
        reading.call(call)
    return _app_of(reading)


def function_api_app(context: ScanContext, path: Path, function: str, overrides: str) -> ApiApp | None:
    """The compose-API app that one function of the file is (a CLI's command: bot.hydra.command_gate): its own
    `initialize*` and `compose` calls, the first `compose` given the function's parameter `overrides` as its
    overrides; None otherwise."""
    file = python_file(context, path)
    found: ApiApp | None = file.fact(("compose-api", function, overrides),
                                     lambda: _function_app(file, function, overrides))
    return found


def _function_app(file: PythonFile, function: str, overrides: str) -> ApiApp | None:
    tree = file.tree
    if tree is None or file.too_deep is not None:
        return None
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
    if len(defined) != 1:
        return None
    calls = in_order(defined[0], ast.Call)
    composes = [call for call in calls if called_name(call.func) == "compose"]
    given = argument(composes[0], "overrides", 1) if composes else None
    if not (isinstance(given, ast.Name) and given.id == overrides):
        return None
    reading = _Reading()
    for call in calls:
        reading.call(call)
    app = _app_of(reading)
    return app if app is not None and app.loads is None else None


def _app_of(reading: _Reading) -> ApiApp | None:
    """The app the calls read make: a location and a name, each a literal or an argparse option; else a load."""
    if reading.location is not None and reading.name is not None:
        kind, node = reading.location
        location, name = reading.source(node), reading.source(reading.name)
        if location is not None and name is not None:
            others = tuple((k, s) for k, n in reading.others for s in [reading.source(n)] if s is not None)
            return ApiApp(kind, location, name, others=others)
    if reading.loads is not None:
        loads = reading.source(reading.loads)
        if loads is not None:
            return ApiApp("", Source(), Source(), loads)
    return None
