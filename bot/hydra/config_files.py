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


def parse_yaml(data: bytes) -> Any:
    """The data of one YAML document's bytes, parsed once per text (None when it is not one YAML document)."""
    return _parse_yaml(data)


@lru_cache(maxsize=1024)
def _parse_yaml(data: bytes) -> Any:
    """What ruamel.yaml's safe loader reads of one document (composed by libyaml where it can vouch:
    bot.lang.yaml.fast); None for a broken config (Hydra reports it when composing) or more than one document."""
    from bot.lang.yaml.fast import safe_documents

    try:
        documents = list(safe_documents(data.decode("utf-8")))
    except Exception:
        return None
    return documents[0] if len(documents) == 1 else None


MAX_CONFIG_BYTES = 4 * 1024 * 1024
