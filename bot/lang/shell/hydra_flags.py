"""Hydra's own command-line flags in a launch (`--config-name`, `-cp`, ...): which words they are, and
the config path, name or directory they give the launch.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from bot.lang.shell.directories import directory_of

if TYPE_CHECKING:
    from bot.lang.shell.launches import Launch
    from bot.lang.shell.text import Field


@lru_cache(maxsize=1)
def hydra_flags() -> dict[str, bool]:
    """Hydra's own command-line flags, from Hydra's argparse parser: flag -> takes a value."""
    try:
        from hydra._internal.utils import get_args_parser
    except ImportError:  # pragma: no cover - hydra-core is a dependency
        return {}
    flags: dict[str, bool] = {}
    for action in get_args_parser()._actions:
        for option in action.option_strings:
            flags[option] = action.nargs not in (0, "?")
    return flags


def record_flag(launch: Launch, name: str, values: list[tuple[str, Field]]) -> None:
    """A Hydra flag with the value(s) it takes in the script's branches; a run-time value is noted."""
    if not values:
        return
    texts = [text for text, _ in values]
    value: str | None = texts[0]
    dynamic = next((f for _, f in values if not f.static), None)
    if name in ("--config-path", "-cp") and dynamic is not None and len(values) == 1:
        start = len(dynamic.text) - len(texts[0])  # the value's place in its field (after `--config-path=`)
        directory = directory_of(dynamic.chars(start, len(dynamic.text)), launch.workdir)
        if directory is not None:  # `$(pwd)/conf`, `"$SCRIPT_DIR/conf"`: a directory the script names
            launch.config_path, launch.config_path_dir = value, directory
            return
    if name in ("--config-path", "-cp"):
        launch.config_path = value
    elif name in ("--config-name", "-cn"):
        launch.config_name = value
        launch.config_names = tuple(dict.fromkeys(texts))
    elif name in ("--config-dir", "-cd"):
        launch.config_dir = value
    else:
        return
    if dynamic is not None:
        launch.config_runtime = dynamic.text if dynamic.text.startswith(name) else f"{name} {dynamic.text}"

