"""Reading and writing override values exactly as Hydra does (hydra-core, imported lazily).

Comparison follows what the value becomes in the composed config: OmegaConf turns the string
"False" into the bool False for a bool field, so `False`, `false` and `"False"` compare alike.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bot.hydra.sweeps import sweep_of

_BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False}
_PLAIN = re.compile(r"^[A-Za-z_/][A-Za-z0-9_\-./:]*$")
_NUMBER = re.compile(r"^[+-]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


class HydraSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class Parsed:
    prefix: str
    key: str
    package: str | None
    value: Any
    has_value: bool


@lru_cache(maxsize=1)
def _parser() -> Any:
    from hydra.core.override_parser.overrides_parser import OverridesParser

    return OverridesParser.create()


# The plain overrides most launches hold (`a.b_c=1e-5`, `+x.y=a/b.json`, `~k`, `a=[0.9,0.95]`, `a="none"`,
# `a=`), read without Hydra's ANTLR parser: a key of identifiers, and a value that is empty, one quoted
# string without escapes or interpolations, words of characters that are each a whole token or part of an
# identifier or number (spaces between words; no brackets, commas, quotes, escapes or interpolations), or
# a flat list of such words and strings. tests/test_grammar_fast.py holds the result equal to Hydra's over
# generated texts.
_FAST = re.compile(r"(\+\+|\+|~)?([A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*)*)(?:=(.*))?", re.S)
_RUN = r"[A-Za-z0-9_\-/+.%*@?|:]+"
_WORDS = re.compile(rf" *({_RUN}(?: +{_RUN})*) *")
_QUOTED = re.compile(r""" *(?:'([^'"\\$]*)'|"([^'"\\$]*)") *""")
_DIGITS = r"[0-9](?:_?[0-9])*"
_UNSIGNED = r"(?:0|[1-9](?:_?[0-9])*)"
_POINT = rf"(?:{_UNSIGNED}\.|{_UNSIGNED}?\.{_DIGITS})"
_TOKENS = (  # Hydra's value tokens, in the lexer's order (a tie goes to the first)
    (re.compile(rf"[+-]?(?:{_POINT}|(?:{_UNSIGNED}|{_POINT})[eE][+-]?{_DIGITS}|[Ii][Nn][Ff]|[Nn][Aa][Nn])"), float),
    (re.compile(rf"[+-]?{_UNSIGNED}"), int),
    (re.compile(r"[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]"), lambda t: t.lower() == "true"),
    (re.compile(r"[Nn][Uu][Ll][Ll]"), lambda t: None),
    (re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*|[/\-+.%*@?|:]"), str),
)
_NOT_PLAIN = object()


def _fast(text: str) -> Parsed | None:
    """Hydra's reading of a plain override, or None when the text is not plain (Hydra's parser reads it)."""
    match = _FAST.fullmatch(text)
    if match is None:
        return None
    prefix, key, value = match.group(1) or "", match.group(2), match.group(3)
    if value is None:
        return Parsed(prefix, key, None, None, False) if prefix == "~" and "=" not in text else None
    if value.startswith("[") and value.endswith("]"):
        items = _items(value[1:-1])
        return Parsed(prefix, key, None, items, True) if items is not None else None
    if value.startswith(" ") or value.endswith(" "):
        return None  # Hydra strips spaces around some values, keeps them after others, refuses some
    plain = _element(value) if value else ""
    return Parsed(prefix, key, None, plain, True) if plain is not _NOT_PLAIN else None


def _items(inner: str) -> list[Any] | None:
    """A flat list's elements, or None when one is not plain."""
    if not inner.strip(" "):
        return []
    items = [_element(part) for part in inner.split(",")]
    return None if any(item is _NOT_PLAIN for item in items) else items


def _element(text: str) -> Any:
    """One quoted string or run of words, typed as Hydra types it; _NOT_PLAIN for anything else."""
    quoted = _QUOTED.fullmatch(text)
    if quoted is not None:
        return quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
    words = _WORDS.fullmatch(text)
    if words is None or (":" in text and " " in text):  # Hydra keeps the spaces around a colon
        return _NOT_PLAIN
    value = words.group(1)
    for pattern, convert in _TOKENS:  # one token: typed; several: the text (the lexer never fails here)
        if pattern.fullmatch(value):
            return convert(value)
    return value


LEADING_DASH = "token recognition error at: '-'"  # Hydra's lexer on `--flag=x`: no key starts with `-`


def parse_override(text: str) -> Parsed:
    """Parse one override as Hydra's command line would; raises HydraSyntaxError."""
    if text.startswith("-"):  # a script's own option (`--local_dir=x`), refused as Hydra refuses it
        raise HydraSyntaxError(LEADING_DASH)
    fast = _fast(text)
    return fast if fast is not None else _parse_override(text)


@lru_cache(maxsize=8192)
def _parse_override(text: str) -> Parsed:
    from hydra.core.override_parser.types import OverrideType
    from hydra.errors import HydraException

    try:
        override = _parser().parse_override(text)
    except HydraException as exc:
        message = " ".join(str(exc).split())
        raise HydraSyntaxError(message) from None
    prefix = {OverrideType.ADD: "+", OverrideType.FORCE_ADD: "++", OverrideType.DEL: "~"}.get(
        override.type, ""
    )
    has_value = override.value_type is not None
    value = _plain(override.value()) if has_value else None
    return Parsed(prefix, override.key_or_group, override.package, value, has_value)


MISSING = "???"  # OmegaConf's mandatory value: each run must supply it


def _plain(value: Any) -> Any:
    """Hydra's sweeps become Sweep strings; other objects strings; lists and dicts stay plain."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    sweep = sweep_of(value, _plain)
    return sweep if sweep is not None else str(value)


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _BOOL_WORDS.get(value.strip().lower())
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    return None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        try:
            return float(value.strip().replace("_", ""))
        except ValueError:
            return None
    return None


def values_equal(rule_value: Any, actual: Any) -> bool:
    """Would `actual` (a parsed override value) land as `rule_value` in a typed config field?"""
    if isinstance(rule_value, bool):
        return _as_bool(actual) is rule_value
    if rule_value is None:
        return actual is None or (isinstance(actual, str) and actual.strip().lower() in ("null", "none"))
    if isinstance(rule_value, (int, float)):
        number = _as_number(actual)
        return number is not None and (
            number == rule_value or (math.isnan(number) and math.isnan(float(rule_value)))
        )
    if isinstance(rule_value, (list, tuple)):
        return isinstance(actual, (list, tuple)) and len(actual) == len(rule_value) and all(
            values_equal(a, b) for a, b in zip(rule_value, actual)
        )
    return isinstance(actual, (str, int, float)) and not isinstance(actual, bool) and str(actual) == str(
        rule_value
    )


def bool_style(old_text: str | None) -> str:
    """`True`, `true` or `TRUE`: the case the file already uses for this value."""
    if old_text is None:
        return "title"
    core = old_text.strip().strip("'\"")
    if core.lower() in _BOOL_WORDS:
        if core.islower():
            return "lower"
        if core.isupper() and len(core) > 1:
            return "upper"
    return "title"


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")  # a dict key Hydra reads as written


def format_value(value: Any, style: str = "title") -> str:
    """Hydra override text for a plain value, read back by Hydra as the same value."""
    if isinstance(value, bool):
        word = "True" if value else "False"
        return word.lower() if style == "lower" else word.upper() if style == "upper" else word
    if value is None:
        return "null"
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(format_value(v, style) for v in value) + "]"
    if isinstance(value, dict) and all(isinstance(k, str) and _KEY.fullmatch(k) and k.lower() not in _BOOL_WORDS
                                       and k.lower() not in ("null", "nan", "inf") for k in value):
        return "{" + ",".join(f"{k}:{format_value(v, style)}" for k, v in value.items()) + "}"
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _BOOL_WORDS and text.lower() not in ("null", "nan", "inf"):
        return text
    if _reads_as_itself(text):  # `16-mixed`, `1e-4x`: several tokens Hydra joins back into the string
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


_EXPONENT_ZEROS = re.compile(r"e([+-]?)0+(?=\d)")


def float_text(value: float) -> str:
    """A float as people write it: `1e-5`, not Python's `1e-05`."""
    return _EXPONENT_ZEROS.sub(r"e\1", repr(value))


_UNQUOTED_SAFE = re.compile(r"^[A-Za-z0-9_\-./:+%@]+$")  # no quotes, spaces, brackets, commas, `$` or `=`


def _reads_as_itself(text: str) -> bool:
    """Whether Hydra reads the text, unquoted after `k=`, as the same string."""
    if not _UNQUOTED_SAFE.match(text):
        return False
    try:
        parsed = parse_override("k=" + text)
    except HydraSyntaxError:
        return False
    return isinstance(parsed.value, str) and parsed.value == text


def sibling_key(key: str, name: str) -> str:
    """The key `name` beside `key` (same parent); a dotted `name` is already a full key path."""
    if "." in name or "." not in key:
        return name
    return key.rsplit(".", 1)[0] + "." + name


_REFERENCE = re.compile(r"\$\{\s*(?:(oc\.select)\s*:\s*)?([A-Za-z_][\w\-]*(?:\.[\w\-]+)*)\s*(?:,(.*))?\}", re.S)


@dataclass(frozen=True)
class Reference:
    """A value that is another config key's: `${a.b}`, or `${oc.select:a.b,fallback}`."""

    key: str  # absolute key path
    fallback: str | None  # oc.select's fallback as written, used where the key is not in the config


def config_reference(text: str) -> Reference | None:
    """The key a whole-value interpolation refers to; None for anything else (resolvers, relative keys, text)."""
    match = _REFERENCE.fullmatch(text.strip())
    if match is None or (match.group(3) is not None and match.group(1) is None):
        return None
    fallback = match.group(3)
    if fallback is not None and ("${" in fallback or "}" in fallback.replace("{}", "")):
        return None  # a nested interpolation or a second value: not read here
    return Reference(match.group(2), fallback.strip() if fallback is not None else None)


def with_reference(text: str, key: str) -> str:
    """The whole-value interpolation `text` (config_reference reads it) pointing at `key` instead."""
    stripped = text.strip()
    match = _REFERENCE.fullmatch(stripped)
    assert match is not None
    start, end = match.span(2)
    at = text.index(stripped)
    return text[: at + start] + key + text[at + end :]


def fallback_value(text: str) -> tuple[bool, Any]:
    """(True, value) of an oc.select fallback read as an override value; (False, None) when unreadable."""
    try:
        parsed = parse_override(f"k={text}")
    except HydraSyntaxError:
        return False, None
    return parsed.has_value, parsed.value

