"""Which repositories one run covers: --repo (repeatable), a list file, and a shard of the list."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from bot.errors import UserError

SHARD = re.compile(r"^(\d+)/(\d+)$")


def read_list(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--repos {path}: cannot read the repository list: {exc}") from None
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]


def shard_of(name: str, count: int) -> int:
    """1-based shard of a repository: stable across runs and list edits (it hashes the name)."""
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % count + 1


def repositories(given: list[str], list_file: Path | None, shard: str | None) -> list[str]:
    names = list(dict.fromkeys([*given, *(read_list(list_file) if list_file else [])]))
    if not names:
        raise UserError("run: expected --repo REPO (repeatable) or --repos FILE")
    if shard is None:
        return names
    match = SHARD.match(shard)
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise UserError(f"--shard {shard}: expected I/N with 1 <= I <= N, like 2/4")
    index, count = int(match.group(1)), int(match.group(2))
    return [name for name in names if shard_of(name, count) == index]
