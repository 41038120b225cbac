"""Values that reach a repository script through its environment, and where the caller writes them.

`USE_MBRIDGE=False bash tests/run.sh`, `export USE_MBRIDGE=False` before the call, or a workflow
`env:` entry feed run.sh's `...use_mbridge=${USE_MBRIDGE:-True}`. The value to fix is the
caller's, so the finding and the edit are in the caller's file.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.lang.shell.carried import exported_definitions
from bot.lang.shell.launches import Launch, Override
from bot.lang.shell.text import BARE, DOUBLE, SINGLE
from bot.model import Span

if TYPE_CHECKING:
    from tree_sitter import Node

    from bot.lang.shell.walk import CommandSite

RUNNERS = {"bash", "sh", "source", ".", "zsh"}
_NEVER_ASSIGNED = re.compile(r"^from ([A-Za-z_][A-Za-z0-9_]*), which this script never assigns")
_PLAIN = re.compile(rb"^[A-Za-z0-9_./:+,@%-]*$")


@dataclass(frozen=True)
class EnvValue:
    name: str
    text: str  # the value after quote removal
    span: Span  # the bytes to replace (inside the quotes, if quoted)
    ctx: str  # quoting context of those bytes
    line: int


@dataclass
class ScriptCall:
    target: str  # the script path as written
    line: int
    values: dict[str, EnvValue] = field(default_factory=dict)


@dataclass(frozen=True)
class EnvInput:
    """An override of a launch in the called script whose whole value is one environment variable."""

    variable: str
    override: Override
    launch: Launch
    default: str | None


def _literal(node: Node, src: bytes) -> tuple[str, Span, str] | None:
    start, end = node.start_byte, node.end_byte
    raw = src[start:end]
    if node.type in ("word", "number") and _PLAIN.match(raw):
        return raw.decode(), Span(start, end), BARE
    if node.type == "raw_string" and len(raw) >= 2 and b"'" not in raw[1:-1]:
        return raw[1:-1].decode(), Span(start + 1, end - 1), SINGLE
    if node.type == "string" and len(raw) >= 2 and not re.search(rb'[\\$`"]', raw[1:-1]):
        return raw[1:-1].decode(), Span(start + 1, end - 1), DOUBLE
    return None


def _assignment(node: Node, src: bytes) -> EnvValue | None:
    if len(node.children) < 3 or node.children[0].type != "variable_name" or node.children[1].type != "=":
        return None
    literal = _literal(node.children[2], src)
    if literal is None:
        return None
    name = (node.children[0].text or b"").decode()
    return EnvValue(name, literal[0], literal[1], literal[2], node.start_point[0] + 1)


def script_call(site: CommandSite, words: list[str], src: bytes, all_exported: bool) -> ScriptCall | None:
    """The call, if the command runs a script file, with the environment values it hands over."""
    if not words:
        return None
    if words[0] in RUNNERS:
        rest = [w for w in words[1:] if not w.startswith("-")]
        if not rest or not rest[0].endswith(".sh"):
            return None
        target = rest[0]
    elif words[0].endswith(".sh"):
        target = words[0]
    else:
        return None
    call = ScriptCall(target, site.node.start_point[0] + 1)
    for name, definition in exported_definitions(site.env, src, all_exported):
        assert definition.span is not None
        literal = _value_literal(src, definition.span)
        if literal is not None:
            call.values[name] = EnvValue(name, literal[0], literal[1], literal[2], definition.line)
    for child in site.node.children:
        if child.type == "variable_assignment":
            value = _assignment(child, src)
            if value is not None:
                call.values[value.name] = value
    return call


def _value_literal(src: bytes, span: Span) -> tuple[str, Span, str] | None:
    raw = src[span.start : span.end]
    if _PLAIN.match(raw):
        return raw.decode(), span, BARE
    if len(raw) >= 2 and raw[:1] == raw[-1:] == b"'" and b"'" not in raw[1:-1]:
        return raw[1:-1].decode(), Span(span.start + 1, span.end - 1), SINGLE
    if len(raw) >= 2 and raw[:1] == raw[-1:] == b'"' and not re.search(rb'[\\$`"]', raw[1:-1]):
        return raw[1:-1].decode(), Span(span.start + 1, span.end - 1), DOUBLE
    return None


def resolve(target: str, caller: str, exists: set[str] | None) -> str | None:
    """The repository path of the called script: relative to the repository root, or to the caller."""
    if target.startswith("/") or "$" in target:
        return None
    candidates = [posixpath.normpath(target), posixpath.normpath(posixpath.join(posixpath.dirname(caller), target))]
    for candidate in candidates:
        if not candidate.startswith("..") and (exists is None or candidate in exists):
            return candidate
    return None


def env_inputs(launches: list[Launch], keys: Callable[[str], bool] | None = None) -> list[EnvInput]:
    """The overrides whose whole value one environment variable gives (`keys`: of the keys it accepts)."""
    from bot.lang.shell.values import read_value

    out: list[EnvInput] = []
    for launch in launches:
        for override in launch.overrides:
            pieces = override.value_pieces
            if override.key_span is None or not pieces or (keys is not None and not keys(override.key)):
                continue
            names: set[str] = set()
            default_parts: list[str] = []
            for piece in pieces:
                match = _NEVER_ASSIGNED.match(piece.dynamic) if piece.dynamic is not None else None
                if match:
                    names.add(match.group(1))
                elif piece.default_of and piece.static:
                    names.add(piece.default_of)
                    default_parts.append(piece.text)
                elif piece.text.strip("'\""):
                    names.add("")  # a part that is not from the environment
                    break  # then the value is not one variable's, whatever its other parts are
            if len(names) == 1 and "" not in names:
                info = read_value(override)
                default = "".join(default_parts) if info.state == "static" else None
                out.append(EnvInput(names.pop(), override, launch, default))
    return out
