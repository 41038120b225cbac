"""Entry points that build their config with Hydra's compose API instead of `@hydra.main`.

    parser.add_argument("--config-path", default="conf")
    parser.add_argument("--config-name", default="train")
    args, overrides = parser.parse_known_args()
    with initialize(config_path=args.config_path, version_base=None):
        cfg = compose(config_name=args.config_name, overrides=overrides)

Read with libcst (nothing imported or run): the `initialize*` and `compose` calls, and for each of
their arguments either a string literal or the argparse option it comes from (`args.config_name`
-> `--config-name` / `--config_name`, with the option's default). `OmegaConf.load(args.config)` is
recognised too, so a launch can say why it is not composed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import libcst as cst

from bot.pyparse import parse_cst

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
    location: tuple[str, cst.BaseExpression] | None = None
    others: list[tuple[str, cst.BaseExpression]] = field(default_factory=list)
    name: cst.BaseExpression | None = None
    loads: cst.BaseExpression | None = None


def compose_api_app(path: Path) -> ApiApp | None:
    """The compose-API app of a Python file, or None when it does not call `initialize*` and `compose`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return _api_app(text)


@lru_cache(maxsize=256)
def _api_app(text: str) -> ApiApp | None:
    """The compose-API app of one Python text (cached by the text, never by a path)."""
    if "compose" not in text and "OmegaConf" not in text:
        return None
    try:
        module = parse_cst(text)
        reading = _Reading()
        module.visit(_Finder(reading))
    except (cst.ParserSyntaxError, RecursionError):  # not Python, or nested deeper than the bot reads
        return None

    def source(node: cst.BaseExpression | None) -> Source | None:
        if isinstance(node, cst.SimpleString):
            value = _literal(node)
            return Source(literal=value) if value is not None else None
        if isinstance(node, cst.Attribute):
            dest = node.attr.value
            flags, default = reading.options.get(dest, ((f"--{dest}", f"--{dest.replace('_', '-')}"), None))
            return Source(options=flags, default=default)
        return None

    if reading.location is not None and reading.name is not None:
        kind, node = reading.location
        location, name = source(node), source(reading.name)
        if location is not None and name is not None:
            others = tuple((k, s) for k, n in reading.others for s in [source(n)] if s is not None)
            return ApiApp(kind, location, name, others=others)
    if reading.loads is not None:
        loads = source(reading.loads)
        if loads is not None:
            return ApiApp("", Source(), Source(), loads)
    return None


def _literal(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _argument(call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
            return arg.value
    return None


class _Finder(cst.CSTVisitor):
    """Collects argparse options, the first `initialize*` and `compose` calls, and `OmegaConf.load`."""

    def __init__(self, reading: _Reading) -> None:
        super().__init__()
        self.reading = reading

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else (
            func.value if isinstance(func, cst.Name) else "")
        reading = self.reading
        if name == "add_argument":
            flags = tuple(v for a in node.args if a.keyword is None
                          for v in [_literal(a.value)] if v is not None and v.startswith("-"))
            if flags:
                dest = _literal(_argument(node, "dest", -1))
                longest = max(flags, key=len).lstrip("-").replace("-", "_")
                reading.options[dest or longest] = (flags, _literal(_argument(node, "default", -1)))
        elif name in LOCATIONS:
            value = _argument(node, LOCATIONS[name], 0)
            if value is not None and reading.location is None:
                reading.location = (LOCATIONS[name], value)
            elif value is not None:
                reading.others.append((LOCATIONS[name], value))
        elif name == "compose" and reading.name is None:
            reading.name = _argument(node, "config_name", 0)
        elif name == "load" and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value == "OmegaConf":
            reading.loads = reading.loads or _argument(node, "file_", 0)
