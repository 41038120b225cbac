"""Language front ends, one per file kind, registered in one table.

A front end turns a file's bytes into groups of settings and realises planned fixes as byte edits
(bot.lang.front). A new kind is a package with a front end plus one line in FRONT_ENDS (and its
suffix in bot.lang.kinds). A registration also declares the inputs a result depends on beyond the
file itself and the files its reading names: kinds of which every file counts (a YAML config's keys
land where every config's defaults list puts them, and apps in Python name the config trees). The
result cache keys on exactly these inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Registration:
    make: Callable[[str, str, Path | None, Any], FrontEnd]
    whole_repository: frozenset[str] = frozenset()  # kinds every file of which a result depends on


FRONT_ENDS: dict[str, Registration] = {
    kinds.SHELL: Registration(_shell),
    kinds.MARKDOWN: Registration(_shell),
    kinds.RST: Registration(_shell),
    kinds.NOTEBOOK: Registration(_shell),
    kinds.WORKFLOW: Registration(_shell),
    kinds.YAML: Registration(_yaml, frozenset({kinds.YAML, kinds.PYTHON})),
    kinds.PYTHON: Registration(_python),
}


def whole_repository_inputs(kind: str) -> frozenset[str]:
    """The kinds of which every file is an input of a result of `kind` (see the module docstring)."""
    registration = FRONT_ENDS.get(kind)
    return registration.whole_repository if registration is not None else frozenset()


def front_end(path: str, kind: str, root: Path | None = None, packages: dict[str, str] | None = None) -> FrontEnd:
    """The front end that reads `path` as `kind`; `root` for the scripts it calls, `packages` for YAML."""
    try:
        registration = FRONT_ENDS[kind]
    except KeyError:
        raise ValueError(f"no front end for kind {kind!r}") from None
    return registration.make(path, kind, root, packages)
