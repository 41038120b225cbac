"""Hydra's own command-line flags in a launch (`--config-name`, `-cp`, ...): which words they are, and
the config path, name or directory they give the launch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.lang.shell.directories import directory_of

if TYPE_CHECKING:
    from bot.lang.shell.launches import Launch
    from bot.lang.shell.text import Field


# Hydra's own command-line flags (hydra._internal.utils.get_args_parser): flag -> takes a value. Written
# out, not read from Hydra's parser, so that reading a launch does not import Hydra (a tenth of a second);
# tests/test_shell_analysis.py holds it equal to the installed Hydra's parser.
HYDRA_FLAGS: dict[str, bool] = {
    "--help": False, "-h": False, "--hydra-help": False, "--version": False,
    "--cfg": True, "-c": True, "--resolve": False, "--package": True, "-p": True,
    "--run": False, "-r": False, "--multirun": False, "-m": False, "--shell-completion": False, "-sc": False,
    "--config-path": True, "-cp": True, "--config-name": True, "-cn": True, "--config-dir": True, "-cd": True,
    "--experimental-rerun": True, "--info": False, "-i": False,
}


def hydra_flags() -> dict[str, bool]:
    """Hydra's own command-line flags: flag -> takes a value."""
    return HYDRA_FLAGS


def parser_flags() -> dict[str, bool]:
    """The same table read from the installed Hydra's argparse parser (what HYDRA_FLAGS must equal)."""
    from hydra._internal.utils import get_args_parser

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

