"""Entry points of the repository that are no Hydra app, told apart from apps behind a wrapper of their own.

The bot knows `@hydra.main` and the compose API; an entry without either may still be a Hydra app (NeMo's
`@hydra_runner`, `main = hydra.main(...)(train)`). Only one that neither carries a Hydra-named decorator nor
calls anything Hydra-named is taken for no Hydra app: `+`/`++` are no part of what it reads, and to one
that reads OmegaConf's `from_cli`, `a,b` is a string.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_ENTRY_BYTES = 1024 * 1024  # an entry file read for how it takes its arguments
_HYDRA_CALL = re.compile(rb"(?i)@\s*[\w.]*hydra|hydra[\w.]*\s*\(")  # `@hydra_runner(...)`, `hydra.main(...)(f)`
_FROM_CLI = re.compile(rb"\bfrom_(?:cli|dotlist)\s*\(")


def no_hydra_reason(path: Path | None, entry: str | None) -> str | None:
    """Why the entry file (one without `@hydra.main` or the compose API) is no Hydra app; None: it may be one."""
    try:
        text = path.read_bytes()[:MAX_ENTRY_BYTES] if path is not None else b""
    except OSError:
        return None
    if _HYDRA_CALL.search(text):
        return None
    name = path.name if path is not None else entry
    if _FROM_CLI.search(text):
        return f"{name} reads its arguments with OmegaConf, not Hydra"
    return f"{name} is no Hydra app (no @hydra.main, nothing Hydra-named called)"
