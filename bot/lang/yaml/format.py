"""Plain values written as YAML text that ruamel.yaml reads back as the same value."""

from __future__ import annotations

import json
import math
import re
from typing import Any

PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def yaml_key(key: str, old: str | None) -> str:
    """A mapping key, quoted like the old key was (or only where YAML needs it)."""
    quote = old[0] if old and old[0] in "'\"" else None
    if quote is None and PLAIN_KEY.match(key) and _reads_back(key, key, flow=False):
        return key
    return _quoted(key, quote or "'")


def yaml_word_key(key: str, old: str | None) -> str:
    """A key that is any one word (`model.optimizer.lr`, `+extra`), plain where YAML reads it back as itself."""
    quote = old[0] if old and old[0] in "'\"" else None
    if quote is None and key and not key[0].isspace() and _reads_back(key, key, flow=False):
        return key
    return _quoted(key, quote or "'")


def yaml_value(value: Any, old: str | None, style: str = "title", flow: bool = False) -> str:
    """`value` in YAML syntax, in the old text's style: bool case, quotes kept around a scalar."""
    quote = old[0] if old and old[0] in "'\"" else None
    if quote is not None and value is not None and not isinstance(value, (list, dict)):
        return _quoted(_scalar_word(value, style), quote)
    text = _plain(value, style, old)
    if text is not None and _reads_back(text, value, flow):
        return text
    return json.dumps(value, ensure_ascii=False)


def _scalar_word(value: Any, style: str) -> str:
    if isinstance(value, bool):
        word = "True" if value else "False"
        return word.lower() if style == "lower" else word.upper() if style == "upper" else word
    if isinstance(value, float):
        return _float(value)
    return str(value)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    from bot.hydra.grammar import float_text

    return float_text(value)


def _plain(value: Any, style: str, old: str | None) -> str | None:
    if value is None:
        return "~" if old == "~" else "null"
    if isinstance(value, (bool, int, float, str)):
        return _scalar_word(value, style)
    if isinstance(value, list):
        items = [yaml_value(v, None, style, flow=True) for v in value]
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        pairs = [f"{yaml_key(str(k), None)}: {yaml_value(v, None, style, flow=True)}" for k, v in value.items()]
        return "{" + ", ".join(pairs) + "}"
    return None


def _quoted(text: str, quote: str) -> str:
    if quote == "'" and text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)


def _reads_back(text: str, value: Any, flow: bool) -> bool:
    from ruamel.yaml import YAML

    source = "{_: " + text + "}\n" if flow else "_: " + text + "\n"
    try:
        read = YAML(typ="safe", pure=True).load(source)
    except Exception:  # not valid YAML in this place
        return False
    return isinstance(read, dict) and list(read) == ["_"] and _same(read["_"], value)


def _same(read: Any, value: Any) -> bool:
    if type(read) is not type(value):
        return False
    if isinstance(value, float) and math.isnan(value):
        return math.isnan(read)
    if isinstance(value, list):
        return len(read) == len(value) and all(_same(a, b) for a, b in zip(read, value))
    if isinstance(value, dict):
        return list(read) == list(value) and all(_same(read[k], value[k]) for k in value)
    return bool(read == value)
