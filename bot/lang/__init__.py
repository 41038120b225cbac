"""Language front ends, one per file kind, registered in one table.

A front end turns a file's bytes into groups of settings and realises planned fixes as byte edits
(bot.lang.front). A new kind is a package with a front end plus one line in FRONT_ENDS, which also
names the file suffixes of the kind (docs/architecture.md has an example). A registration declares
the inputs a result depends on beyond the file itself and the files its reading names: kinds of
which every file counts (a YAML config's keys land where every config's defaults list puts them,
and apps in Python name the config trees). The result cache keys on exactly these inputs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.lang import kinds

if TYPE_CHECKING:
    from bot.context import Consoles, ScanContext
    from bot.lang.focus import Focus
    from bot.lang.front import FrontEnd, LaunchReader


def _shell(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.shell.front import ShellFamilyFront

    front = ShellFamilyFront(path, kind, context)
    if kind in (kinds.SHELL, kinds.MARKDOWN, kinds.RST, kinds.NOTEBOOK):
        from bot.lang.embedded.doc_front import TextReaders

        return TextReaders(front, kind, front.consoles)
    return front


def _yaml(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.embedded.doc_front import TextReaders
    from bot.lang.yaml.front import YamlFront

    return TextReaders(YamlFront(path, packages, context.root if context is not None else None), kind)


def _python(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.python.front import PythonFront

    return PythonFront(path, context.consoles) if context is not None else PythonFront(path)


@dataclass(frozen=True)
class Registration:
    # (path, kind, the scan's context (None: text read with no repository), YAML packages) -> front end
    make: Callable[[str, str, ScanContext | None, Any], FrontEnd]
    suffixes: tuple[str, ...] = ()  # lower-case file suffixes of the kind (a shell script also by its shebang)
    within: str = ""  # a directory where files with these suffixes are this kind before any other
    names: tuple[str, ...] = ()  # whole file names of the kind (`Makefile`)
    whole_repository: frozenset[str] = frozenset()  # kinds every file of which a result depends on


_YAML_SUFFIXES = (".yaml", ".yml")
FRONT_ENDS: dict[str, Registration] = {
    kinds.SHELL: Registration(_shell, (".sh", ".bash", ".slurm", ".zsh", ".ksh")),
    kinds.MARKDOWN: Registration(_shell, (".md", ".markdown")),
    kinds.RST: Registration(_shell, (".rst",)),
    kinds.NOTEBOOK: Registration(_shell, (".ipynb",)),
    kinds.WORKFLOW: Registration(_shell, _YAML_SUFFIXES, within=".github/workflows/"),
    kinds.YAML: Registration(_yaml, _YAML_SUFFIXES, whole_repository=frozenset({kinds.YAML, kinds.PYTHON})),
    kinds.PYTHON: Registration(_python, (".py",)),
    kinds.MAKEFILE: Registration(_shell, (".mk",), names=("Makefile", "makefile", "GNUmakefile")),
}
_NAMED = {name: kind for kind, registration in FRONT_ENDS.items() for name in registration.names}


# every Python launch a front end finds names one of these: an interpreter, torchrun, a `.py` script, or a
# module (`-m`, `--module`) after a runner such as `accelerate launch` or `deepspeed` (bot.lang.shell.launchers)
_LAUNCH_WORDS = (b"python", b"PYTHON", b"torchrun", b".py", b"-m", b"--module", b"dora")


def may_launch(text: bytes, consoles: Consoles) -> bool:
    """False only for text that cannot hold a Python launch (a cheap test before reading it); `consoles`: the
    repository's console scripts, each a launch."""
    return any(word in text for word in _LAUNCH_WORDS) or consoles.named_in(text)


KindsBySuffix = dict[str, tuple[tuple[str, str], ...]]  # suffix -> (kind, within) in FRONT_ENDS' order


def kinds_by_suffix() -> KindsBySuffix:
    """FRONT_ENDS by suffix, as it is now: for listing many files (kind_for_path's `table`)."""
    table: dict[str, list[tuple[str, str]]] = {}
    for kind, registration in FRONT_ENDS.items():
        for suffix in registration.suffixes:
            table.setdefault(suffix, []).append((kind, registration.within))
    return {suffix: tuple(kinds) for suffix, kinds in table.items()}


def kind_for_path(path: str, suffix: str | None = None, table: KindsBySuffix | None = None) -> str | None:
    """The kind a file's name says; None when only its content can tell (a shebang) or it is not read.

    `suffix`: the path's lower-cased suffix, when the caller already has it; `table`: kinds_by_suffix().
    """
    suffix = os.path.splitext(path)[1].lower() if suffix is None else suffix
    if not suffix:
        return _NAMED.get(path.rpartition("/")[2])
    found = None
    for kind, within in (table if table is not None else kinds_by_suffix()).get(suffix, ()):
        if not within:
            found = found or kind
        elif path.startswith(within) or "/" + within in path:
            return kind
    return found


def launch_reader(path: str, kind: str, context: ScanContext | None = None,
                  front: FrontEnd | None = None) -> LaunchReader:
    """What reads the launches of a file of a shell-family kind, for composing them (bot.lang.front); `front`:
    the file's front end (front_end), whose parses it then shares: a text is parsed once, whoever reads it."""
    from bot.lang.shell.front import ShellFamilyFront

    if kind not in kinds.SHELL_FAMILY:
        raise ValueError(f"no launch reader for kind {kind!r}")
    inner = getattr(front, "inner", front)  # a doc's readers of text (bot.lang.embedded.doc_front) wrap it
    if isinstance(inner, ShellFamilyFront) and inner.path == path and inner.kind == kind:
        return inner
    return ShellFamilyFront(path, kind, context)


def whole_repository_inputs(kind: str) -> frozenset[str]:
    """The kinds of which every file is an input of a result of `kind` (see the module docstring)."""
    registration = FRONT_ENDS.get(kind)
    return registration.whole_repository if registration is not None else frozenset()


def front_end(path: str, kind: str, context: ScanContext | None = None, packages: dict[str, str] | None = None,
              focus: Focus | None = None) -> FrontEnd:
    """The front end that reads `path` as `kind`; `context`: the scan's repository (the scripts a file calls,
    its console scripts; None: the text alone), `packages` for YAML.

    `focus`: which parts can hold anything for the rules (bot.lang.focus), given to a front end that
    has a `focus` attribute (it may then skip the rest); others read everything.
    """
    try:
        registration = FRONT_ENDS[kind]
    except KeyError:
        raise ValueError(f"no front end for kind {kind!r}") from None
    front = registration.make(path, kind, context, packages)
    if focus is not None and hasattr(front, "focus"):
        front.focus = focus
    return front
