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
from bot.lang.front import ShellFamily

if TYPE_CHECKING:
    from tree_sitter import Tree

    from bot.context import Consoles, ScanContext
    from bot.lang.comments import CodeView, ShellTexts
    from bot.lang.embedded.views import ShellView
    from bot.lang.focus import Focus
    from bot.lang.front import FrontEnd, LaunchReader
    from bot.lang.shell.front import ShellFamilyFront

    Trees = Callable[[bytes], Tree]


def _shell(path: str, kind: str, context: ScanContext | None, packages: Any) -> ShellFamilyFront:
    from bot.lang.shell.front import ShellFamilyFront

    family = FRONT_ENDS[kind].shell
    assert family is not None
    return ShellFamilyFront(path, kind, family, context)


def _script(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.embedded.doc_front import ScriptTexts

    front = _shell(path, kind, context, packages)
    return ScriptTexts(front, front.consoles)


def _notebook(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.embedded.doc_front import NotebookTexts

    front = _shell(path, kind, context, packages)
    return NotebookTexts(front, front.consoles)


def _markdown(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.embedded.blocks import markdown_blocks
    from bot.lang.embedded.doc_front import DocTexts

    front = _shell(path, kind, context, packages)
    return DocTexts(front, front.consoles, markdown_blocks)


def _rst(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.embedded.blocks import rst_blocks
    from bot.lang.embedded.doc_front import DocTexts

    front = _shell(path, kind, context, packages)
    return DocTexts(front, front.consoles, rst_blocks, rst=True)


def _yaml(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.embedded.doc_front import ConfigComments
    from bot.lang.yaml.front import YamlFront

    return ConfigComments(YamlFront(path, packages, context.root if context is not None else None))


def _python(path: str, kind: str, context: ScanContext | None, packages: Any) -> FrontEnd:
    from bot.lang.python.front import PythonFront

    return PythonFront(path, context.consoles) if context is not None else PythonFront(path)


# the views the shell of each shell-family kind is in (bot.lang.embedded)
def _script_views(data: bytes, consoles: Consoles, trees: Trees | None) -> list[ShellView]:
    from bot.lang.embedded.views import ShellView

    return [ShellView(data)]


def _workflow_views(data: bytes, consoles: Consoles, trees: Trees | None) -> list[ShellView]:
    from bot.lang.embedded.workflow import workflow_views

    return workflow_views(data)


def _workflow_errors(data: bytes) -> int:
    from bot.lang.embedded.workflow import workflow_errors

    return workflow_errors(data)


def _makefile_views(data: bytes, consoles: Consoles, trees: Trees | None) -> list[ShellView]:
    from bot.lang.embedded.makefile import makefile_views

    return makefile_views(data)


def _notebook_views(data: bytes, consoles: Consoles, trees: Trees | None) -> list[ShellView]:
    from bot.lang.embedded.notebooks import notebook_views

    return notebook_views(data, consoles)


def _notebook_problem(before: bytes, after: bytes) -> str | None:
    from bot.lang.embedded.notebooks import notebook_problem

    return notebook_problem(before, after)


def _markdown_views(data: bytes, consoles: Consoles, trees: Trees | None) -> list[ShellView]:
    from bot.lang.embedded.blocks import markdown_views

    return markdown_views(data, consoles, trees)


def _rst_views(data: bytes, consoles: Consoles, trees: Trees | None) -> list[ShellView]:
    from bot.lang.embedded.blocks import rst_views

    return rst_views(data, consoles, trees)


# the code besides the shell in which a `#` may be a comment (bot.lang.comments)
def _workflow_yaml(data: bytes, consoles: Consoles) -> list[CodeView]:
    from bot.lang.comments import whole_views

    return whole_views(kinds.YAML, data)


def _markdown_blocks(data: bytes, consoles: Consoles) -> list[CodeView]:
    from bot.lang.comments import doc_block_views
    from bot.lang.embedded.blocks import markdown_blocks

    return doc_block_views(data, markdown_blocks(data, consoles))


def _rst_blocks(data: bytes, consoles: Consoles) -> list[CodeView]:
    from bot.lang.comments import doc_block_views
    from bot.lang.embedded.blocks import rst_blocks

    return doc_block_views(data, rst_blocks(data, consoles))


def _notebook_cells(data: bytes, consoles: Consoles) -> list[CodeView]:
    from bot.lang.comments import notebook_cell_views

    return notebook_cell_views(data)


@dataclass(frozen=True)
class Registration:
    """Everything the bot knows of one kind of file, in one place: how it is recognised, read and written."""

    # (path, kind, the scan's context (None: text read with no repository), YAML packages) -> front end
    make: Callable[[str, str, ScanContext | None, Any], FrontEnd]
    suffixes: tuple[str, ...] = ()  # lower-case file suffixes of the kind (a shell script also by its shebang)
    within: str = ""  # a directory where files with these suffixes are this kind before any other
    names: tuple[str, ...] = ()  # whole file names of the kind (`Makefile`)
    whole_repository: frozenset[str] = frozenset()  # kinds every file of which a result depends on
    shell: ShellFamily | None = None  # a kind of the shell family: how its shell is read
    comments_in: str | None = None  # the language the whole file is read in for comments (else: its shell views)
    more_comments: Callable[[bytes, Consoles], list[CodeView]] | None = None  # code besides the shell views
    # a Hydra config: its front end reads where Hydra puts its keys (the layout, prepared once per scan from
    # every config's defaults list), and a run's edits of it change what the launches compose
    hydra_config: bool = False
    hydra_apps: bool = False  # may define Hydra apps (their config directories: the config schema check)
    # a document: its launches illustrate (one whose arguments `...` leaves out is not composed), and an entry
    # it names may be a path beside it
    document: bool = False


_YAML_SUFFIXES = (".yaml", ".yml")
_SCRIPT = ShellFamily(_script_views, whole_file=True, hands_inputs=True)
FRONT_ENDS: dict[str, Registration] = {
    kinds.SHELL: Registration(_script, (".sh", ".bash", ".slurm", ".zsh", ".ksh"), shell=_SCRIPT,
                              comments_in=kinds.SHELL),
    kinds.MARKDOWN: Registration(_markdown, (".md", ".markdown"), shell=ShellFamily(_markdown_views),
                                 more_comments=_markdown_blocks, document=True),
    kinds.RST: Registration(_rst, (".rst",), shell=ShellFamily(_rst_views), more_comments=_rst_blocks,
                             document=True),
    kinds.NOTEBOOK: Registration(_notebook, (".ipynb",), shell=ShellFamily(_notebook_views,
                                                                         host_problem=_notebook_problem),
                                 more_comments=_notebook_cells, document=True),
    kinds.WORKFLOW: Registration(_shell, _YAML_SUFFIXES, within=".github/workflows/",
                                 shell=ShellFamily(_workflow_views, all_exported=True, whole_file=True,
                                                   host_errors=_workflow_errors),
                                 more_comments=_workflow_yaml),
    kinds.YAML: Registration(_yaml, _YAML_SUFFIXES, whole_repository=frozenset({kinds.YAML, kinds.PYTHON}),
                             comments_in=kinds.YAML, hydra_config=True),
    kinds.PYTHON: Registration(_python, (".py",), comments_in=kinds.PYTHON, hydra_apps=True),
    kinds.MAKEFILE: Registration(_shell, (".mk",), names=("Makefile", "makefile", "GNUmakefile"),
                                 shell=ShellFamily(_makefile_views, whole_file=True)),
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

    registration = FRONT_ENDS.get(kind)
    if registration is None or registration.shell is None:
        raise ValueError(f"no launch reader for kind {kind!r}")
    inner = getattr(front, "inner", front)  # a doc's readers of text (bot.lang.embedded.doc_front) wrap it
    if isinstance(inner, ShellFamilyFront) and inner.path == path and inner.kind == kind:
        return inner
    return ShellFamilyFront(path, kind, registration.shell, context)


def shell_family() -> frozenset[str]:
    """The kinds whose launches are shell commands (their registration has a ShellFamily)."""
    return frozenset(kind for kind, registration in FRONT_ENDS.items() if registration.shell is not None)


def is_shell_family(kind: str) -> bool:
    registration = FRONT_ENDS.get(kind)
    return registration is not None and registration.shell is not None


def is_document(kind: str | None) -> bool:
    """A kind whose launches illustrate (Registration.document): Markdown, reStructuredText, notebooks."""
    registration = FRONT_ENDS.get(kind) if kind is not None else None
    return registration is not None and registration.document


def is_config(kind: str) -> bool:
    """A Hydra config kind (Registration.hydra_config)."""
    registration = FRONT_ENDS.get(kind)
    return registration is not None and registration.hydra_config


def composed_inputs() -> frozenset[str]:
    """The kinds every file of which a result Hydra judged reads: the configs, and the apps naming them."""
    return frozenset(kind for kind, r in FRONT_ENDS.items() if r.hydra_config or r.hydra_apps)


def names_apps(kind: str) -> bool:
    registration = FRONT_ENDS.get(kind)
    return registration is not None and registration.hydra_apps


def callee_kinds() -> frozenset[str]:
    """The kinds of the scripts other files run, handing them values (ShellFamily.hands_inputs)."""
    return frozenset(kind for kind, r in FRONT_ENDS.items() if r.shell is not None and r.shell.hands_inputs)


def is_callee_script(kind: str, path: str) -> bool:
    """A script other files run whose answer tells whether their callers must be read (a `.sh` of such a kind)."""
    registration = FRONT_ENDS.get(kind)
    return registration is not None and registration.shell is not None and registration.shell.hands_inputs \
        and path.endswith(".sh")


def whole_repository_inputs(kind: str) -> frozenset[str]:
    """The kinds of which every file is an input of a result of `kind` (see the module docstring)."""
    registration = FRONT_ENDS.get(kind)
    return registration.whole_repository if registration is not None else frozenset()


def comment_views(kind: str, data: bytes, consoles: Consoles, shell: ShellTexts | None = None) -> list[CodeView]:
    """The code of a file of `kind` in which a `#` may be a comment (bot.lang.comments); `shell`: the file's
    shell front end, whose reading is taken (nothing parsed again)."""
    from bot.lang.comments import shell_family_views, whole_views

    registration = FRONT_ENDS.get(kind)
    if registration is not None and registration.comments_in is not None:
        return whole_views(registration.comments_in, data, shell)
    if registration is None or registration.shell is None:
        return []  # no code the bot reads comments in: the text alone decides (bot.engine.silence)
    return shell_family_views(data, consoles, shell, registration.shell.views, registration.more_comments)


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
