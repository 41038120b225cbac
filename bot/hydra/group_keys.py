"""Which option of a config group sets a key: a launch that passes on its caller's arguments (`"$@"`) may be
run with that option chosen (`./train.sh model=large`), and then a key its own config lacks is there."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path, PurePosixPath
from typing import Any

from bot import confined

MAX_OPTIONS = 2000  # option files looked at, per config directory
MAX_BYTES = 512 * 1024


def option_setting(root: str, config_dirs: list[Path], key: str, chosen: Collection[str] = (),
                   memo: dict[tuple[object, ...], Any] | None = None) -> str | None:
    """The first option of a config group (a YAML file below a config directory) whose keys, at its package
    (its `# @package` header, else its group's path), hold `key`, as `group/option.yaml`; None when none does.
    `chosen`: groups (`model`, `db/engine`) the launch chooses itself, whose options a caller cannot pick;
    `root`: the repository (its real path), whose own files alone are read (bot.confined); `memo`: the scan's
    (ScanContext.apps), where each directory's options are kept once read: a scan's launches ask about the same."""
    from bot.hydra.config_files import parse_yaml

    memo = {} if memo is None else memo
    for base in config_dirs:
        ident = ("group options", root, str(base))
        if ident not in memo:
            memo[ident] = _options(root, base)
        options: list[tuple[PurePosixPath, str, bytes]] = memo[ident]
        for relative, package, data in options:
            if "/".join(relative.parts[:-1]) in chosen:
                continue  # an option the launch chooses itself
            if package and not key.startswith(package + "."):
                continue
            if _holds(parse_yaml(data), key[len(package) + 1 :] if package else key):
                return relative.as_posix()
    return None


def _options(root: str, base: Path) -> list[tuple[PurePosixPath, str, bytes]]:
    """The options below a config directory, in order: (name below it, package, bytes)."""
    from bot.lang.yaml.packages import header_package

    out = []
    for count, name in enumerate(sorted(confined.files_below(root, base, (".yaml",)), key=_parts)):
        if count >= MAX_OPTIONS:
            break
        relative = PurePosixPath(name)
        if len(relative.parts) < 2:
            continue  # a primary config
        data = confined.read(root, base / name, MAX_BYTES)
        if data is None:
            continue  # too large to be an option
        header = header_package(data)
        out.append((relative, ".".join(relative.parts[:-1]) if header is None else header, data))
    return out


def _parts(name: str) -> list[str]:
    return name.split("/")  # the order of the paths' parts, as sorted Paths are


def _holds(node: Any, key: str) -> bool:
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
