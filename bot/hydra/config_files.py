"""A config file's data, read once per version of the file, from the repository's own files (bot.confined)."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

from bot import confined


def load_yaml(root: object, path: object) -> Any:
    """A config file's data (None if missing, not the repository's, or not YAML), read once per version of the
    file; `root`: the tree it must be a regular file of (bot.confined), as a real path."""
    top = str(root)
    if not confined.is_file(top, path):
        return None
    try:
        stat = os.stat(os.path.join(top, confined.relative(top, path) or ""))
    except OSError:
        return None
    return _load_yaml(top, os.fspath(path), stat.st_mtime_ns, stat.st_size)  # type: ignore[call-overload]


@lru_cache(maxsize=1024)
def _load_yaml(root: str, path: str, mtime_ns: int, size: int) -> Any:
    from ruamel.yaml import YAML

    data = confined.read(root, path, MAX_CONFIG_BYTES)
    try:
        return YAML(typ="safe", pure=True).load(data.decode("utf-8")) if data is not None else None
    except Exception:  # a broken config: Hydra reports it when composing; here it has no data
        return None


MAX_CONFIG_BYTES = 4 * 1024 * 1024
