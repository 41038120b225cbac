"""A config file's data, parsed once per text of the file, from the repository's own files (bot.confined)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bot import confined


def load_yaml(root: object, path: object) -> Any:
    """A config file's data (None if missing, not the repository's, or not YAML), parsed once per text of the
    file; `root`: the tree it must be a regular file of (bot.confined), as a real path."""
    data = confined.read(str(root), path, MAX_CONFIG_BYTES)
    return _parse_yaml(data) if data is not None else None


@lru_cache(maxsize=1024)
def _parse_yaml(data: bytes) -> Any:
    from ruamel.yaml import YAML

    try:
        return YAML(typ="safe", pure=True).load(data.decode("utf-8"))
    except Exception:  # a broken config: Hydra reports it when composing; here it has no data
        return None


MAX_CONFIG_BYTES = 4 * 1024 * 1024
