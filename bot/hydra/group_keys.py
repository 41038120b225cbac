"""Which option of a config group sets a key: a launch that passes on its caller's arguments (`"$@"`) may be
run with that option chosen (`./train.sh model=large`), and then a key its own config lacks is there."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

MAX_OPTIONS = 2000  # option files looked at, per config directory
MAX_BYTES = 512 * 1024


def option_setting(config_dirs: list[Path], key: str, chosen: Collection[str] = ()) -> str | None:
    """The first option of a config group (a YAML file below a config directory) whose keys, at its package
    (its `# @package` header, else its group's path), hold `key`, as `group/option.yaml`; None when none does.
    `chosen`: groups (`model`, `db/engine`) the launch chooses itself, whose options a caller cannot pick."""
    from bot.hydra.app import load_yaml
    from bot.lang.yaml.packages import header_package

    for base in config_dirs:
        for count, path in enumerate(sorted(base.rglob("*.yaml"))):
            if count >= MAX_OPTIONS:
                break
            relative = path.relative_to(base)
            if len(relative.parts) < 2 or not path.is_file() or path.stat().st_size > MAX_BYTES:
                continue  # a primary config, or too large to be an option
            if "/".join(relative.parts[:-1]) in chosen:
                continue
            data = path.read_bytes()
            header = header_package(data)
            package = ".".join(relative.parts[:-1]) if header is None else header
            if package and not key.startswith(package + "."):
                continue
            if _holds(load_yaml(path), key[len(package) + 1 :] if package else key):
                return relative.as_posix()
    return None


def _holds(node: Any, key: str) -> bool:
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
