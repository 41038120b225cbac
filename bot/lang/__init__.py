"""Language front ends, one per file kind, registered in one table.

A front end turns a file's bytes into groups of settings and realises planned fixes as byte edits
(bot.lang.front). A new kind is a package with a front end plus one line in FRONT_ENDS (and its
suffix in bot.lang.kinds).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.lang import kinds

if TYPE_CHECKING:
    from bot.lang.front import FrontEnd


def _shell(path: str, kind: str, root: Path | None, packages: Any) -> FrontEnd:
    from bot.lang.shell.front import ShellFamilyFront

    return ShellFamilyFront(path, kind, root)


def _yaml(path: str, kind: str, root: Path | None, packages: Any) -> FrontEnd:
    from bot.lang.yaml.front import YamlFront

    return YamlFront(path, packages)


def _python(path: str, kind: str, root: Path | None, packages: Any) -> FrontEnd:
    from bot.lang.python.front import PythonFront

    return PythonFront(path)


FRONT_ENDS: dict[str, Callable[[str, str, Path | None, Any], FrontEnd]] = {
    kinds.SHELL: _shell,
    kinds.MARKDOWN: _shell,
    kinds.RST: _shell,
    kinds.NOTEBOOK: _shell,
    kinds.WORKFLOW: _shell,
    kinds.YAML: _yaml,
    kinds.PYTHON: _python,
}


def front_end(path: str, kind: str, root: Path | None = None, packages: dict[str, str] | None = None) -> FrontEnd:
    """The front end that reads `path` as `kind`; `root` for the scripts it calls, `packages` for YAML."""
    try:
        make = FRONT_ENDS[kind]
    except KeyError:
        raise ValueError(f"no front end for kind {kind!r}") from None
    return make(path, kind, root, packages)
