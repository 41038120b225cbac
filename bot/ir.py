"""What every language front end hands the evaluator, and what the evaluator asks it to write.

A front end reads a file into groups of settings: a shell launch with its overrides, a YAML
document with its keys, a Python override list, the values a caller hands a script. The one
evaluator (bot.rules.evaluate) matches rules against them and plans fixes as abstract actions; the
front end realises those actions as byte edits in its own syntax, or says why it cannot.
A launch group's `launch` is the language-neutral Launch that hydra/ resolves and composes and the
engine judges: its entry point, Hydra flags, where it runs, its overrides (the group's settings) and
a handle back to the front end for what only its language can tell (the ways its branches go).
Plain data: no parsing here, and nothing that knows a language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NoReturn, Protocol

from bot.model import Finding, Span


class Word(str, Enum):
    """An enum whose members are their words wherever they are written (str(), f-strings, JSON)."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)


class Role(Word):
    """What a group of settings is, for the rules."""

    LAUNCH = "launch"  # a launch's overrides: every rule applies; its config can be composed (`launch`)
    SCRIPT = "script"  # overrides handed to a launch script: no key is added to it (it may set the key itself)
    CALLER = "caller"  # values a caller hands a script through its environment: only match rules, fixed there
    CONFIG = "config"  # a config document or a Python override list: every rule, no composed config
    EXCERPT = "excerpt"  # config shown in a doc's YAML block: keys may be a config's last segments; no ensure
    COMMENT = "comment"  # overrides in a comment: notes (the rule's `comments`), no ensure
    PROSE = "prose"  # an override literal in running text: as COMMENT, and a `set` is only noted by default
    HYDRA_NODE = "hydra-node"  # a config's `hydra:` node (Hydra's own settings): only a rename's interpolations
    DEFAULTS_LIST = "defaults-list"  # a config's defaults list: group choices (an option written, nothing added)
    SWEEP_PARAMS = "sweep-params"  # a config's hydra.sweeper.params: overrides every run of a sweep gets (no ensure)
    STRANDED = "stranded"  # overrides after a launch a blank after its `\` cut short: they never reach it (manual)
    HELD = "held"  # a launch held in a variable others run with more words (a Makefile's `RUN = python3 t.py`)
    IN_LIST = "in-list"  # a config's values inside its lists (`- size: ${a.b}`): only interpolations followed there


# the roles by the names the front ends and the evaluator import
LAUNCH, SCRIPT, CALLER, CONFIG, EXCERPT = Role.LAUNCH, Role.SCRIPT, Role.CALLER, Role.CONFIG, Role.EXCERPT
COMMENT, PROSE, HYDRA_NODE, DEFAULTS_LIST = Role.COMMENT, Role.PROSE, Role.HYDRA_NODE, Role.DEFAULTS_LIST
SWEEP_PARAMS, STRANDED, HELD, IN_LIST = Role.SWEEP_PARAMS, Role.STRANDED, Role.HELD, Role.IN_LIST


class State(Word):
    """What is known of a setting's value."""

    STATIC = "static"  # written out: `value` is it
    DYNAMIC = "dynamic"  # known only at run time (`reason` says why)
    INVALID = "invalid"  # written, but not a value Hydra's grammar reads (`reason` says why)
    NONE = "none"  # no value: `~key`
    MAPPING = "mapping"  # a config's mapping: its keys are settings of their own


@dataclass
class Setting:
    key: str  # the full Hydra key path
    prefix: str  # "", "+", "++" or "~"
    text: str | None  # the value as written (None: `~key` or a mapping)
    value: Any
    state: State
    line: int
    column: int
    reason: str = ""  # why a dynamic or invalid value cannot be read
    origin: str = ""  # where the value comes from, in words ("" for a literal where it stands)
    site: object = None  # the written setting: one site read by several groups is one finding
    identity: object = None  # the value at the site: branches that give it another value differ here
    keyed: bool = True  # the key is written in one place (an edit of the key or a fix can go there)
    handle: Any = None  # the front end's own reference to what is written
    excerpt: bool = False  # the key may be a config's last segments (a docs block): rules match by suffix
    parts_read: bool = False  # a list whose values are also read one by one (an IN_LIST group)
    rejected: bool = False  # read from a word Hydra's grammar rejects whole: its key is only a guess

    def __post_init__(self) -> None:
        if self.site is None:
            self.site = id(self)
        if self.identity is None:
            self.identity = (self.state, self.text)


@dataclass
class SettingGroup:
    """What ends up in one composed config: a launch's overrides, a config document, a Python list."""

    settings: list[Setting]
    line: int
    column: int
    entry: str | None = None  # the module launched, when known
    label: str = "config"  # how a finding names it: "config", "launch of verl.trainer.main_ppo"
    role: Role = Role.CONFIG
    launch: Launch | None = None  # what the repository's composed config is asked about
    handle: Any = None
    lines: tuple[int, int] | None = None  # first and last line of the command it is (None: not a command)
    entry_site: object = None  # where the entry point is written: launches sharing it are one finding
    entry_written: bool = True  # False for a console script: the packaging names its module, not the launch
    open_args: bool = False  # the launch passes on its caller's arguments (`"$@"`): they may choose config groups


@dataclass(frozen=True)
class SetValue:
    """A new value where the setting is written (every branch's setting at the site in `variants`)."""

    setting: Setting
    text: str  # the new value in Hydra's form
    value: Any
    variants: list[Setting]


@dataclass(frozen=True)
class SetItems:
    """A list's elements mapped and dropped, the others left as written."""

    setting: Setting
    text: str  # the whole new list in Hydra's form
    value: Any
    variants: list[Setting]
    items: dict[int, Any]  # list element index -> its new value
    drop: tuple[int, ...]  # indexes of the elements removed


@dataclass(frozen=True)
class RenameKey:
    setting: Setting
    text: str  # the new key


@dataclass(frozen=True)
class SetPrefix:
    setting: Setting
    text: str  # the new prefix ("", "+", "++")


@dataclass(frozen=True)
class RemoveKey:
    setting: Setting


@dataclass(frozen=True)
class InsertKey:
    """A key the group lacks, added beside its nearest key."""

    key: str
    prefix: str
    text: str  # the value in Hydra's form
    value: Any
    anchor_key: str  # the key whose neighbours it is best placed after


@dataclass(frozen=True)
class MoveEntry:
    """The entry point's module prefix `old` now named `new`."""

    text: str  # the module the launch now runs
    old: str
    new: str


@dataclass(frozen=True)
class SetBranchValue:
    """One branch's (or loop round's) value, written at its own literal; the others stay as they are."""

    setting: Setting
    text: str
    value: Any
    variants: list[Setting]


# One change a front end writes in its own syntax. Every front end matches it case by case, ending in
# assert_never: an action added here is a type error wherever it is not yet written.
Action = SetValue | SetItems | RenameKey | SetPrefix | RemoveKey | InsertKey | MoveEntry | SetBranchValue


@dataclass
class Changes:
    """A plan's actions by what they do (the last of each), for a writer that writes them together."""

    value: SetValue | None = None
    items: SetItems | None = None
    key: RenameKey | None = None
    prefix: SetPrefix | None = None
    remove: RemoveKey | None = None
    insert: InsertKey | None = None
    move: MoveEntry | None = None
    branch: SetBranchValue | None = None


def changes(actions: list[Action]) -> Changes:
    found = Changes()
    for action in actions:
        match action:
            case SetValue():
                found.value = action
            case SetItems():
                found.items = action
            case RenameKey():
                found.key = action
            case SetPrefix():
                found.prefix = action
            case RemoveKey():
                found.remove = action
            case InsertKey():
                found.insert = action
            case MoveEntry():
                found.move = action
            case SetBranchValue():
                found.branch = action
            case _:
                assert_never(action)
    return found


def assert_never(value: NoReturn) -> NoReturn:
    """A case left out of a match over a union (typing.assert_never is Python 3.11's)."""
    raise AssertionError(f"unhandled case: {value!r}")


@dataclass
class Plan:
    """A finding's fix: the actions for one group, realised by the front end of the file."""

    finding: Finding
    group: SettingGroup
    actions: list[Action]
    words: str = ""  # what the fix does, in words
    edits: list[tuple[Span, str]] = field(default_factory=list)
    refusal: str | None = None  # why it cannot be written (the finding becomes manual)
    where: str = ""  # where the front end put it, when that is worth saying ("at the definition (line 4)")
    fix_line: int | None = None  # the line the fix goes at, when not the finding's own


class Clash(str):
    """A refusal caused by another fix planned in the same place of the file (a conflict): the finding is
    manual with Reason.CONFLICT, so verification expects it to fire still, and a rule's own follow-up,
    checked with that rule alone, makes the fix."""


Realise = Callable[[list[Plan]], None]  # a front end writes all plans of one rule in one place of a file


@dataclass(frozen=True)
class ErrorRegion:
    """A part of a file its parser could not read: its text, and whether a launch (or what one reads) is in it."""

    text: bytes
    near_launch: bool


# how a launch names its entry point (Launch.entry_kind)
MODULE = "module"  # `python -m a.b`: a module
SCRIPT_FILE = "script"  # `python a/b.py`: a Python file
SHELL_SCRIPT = "shell-script"  # a launch script run with overrides it hands on (`bash run.sh a.b=1`)
CONSOLE = "console-script"  # a command a package of the repository declares (`sheeprl exp=ppo`: bot.lang.consoles)
DORA = "dora"  # `dora run a=1`: the entry is the module dora runs (`train`) in the package beside the run

CUT_BLANK, CUT_COMMENT, CUT_LINE_END = "blank", "comment", "line end"  # what cut a launch short (Launch.cut_by)
Workdir = tuple[str, str]  # ("root" | "script" | "absolute", path): the root, the launching file's dir, or /path
ROOT: Workdir = ("root", "")


@dataclass
class Override(Setting):
    """A launch's override as a setting, with what composing it needs: its package, its text as the launch
    passes it, and the bytes of its key and prefix in the text the front end read."""

    package: str | None = None  # `key@package=value`
    written: str = ""  # the whole override as the launch passes it (`+a.b=$X`)
    value_written: str | None = None  # its value as written, whatever it is at run time (None: `~key`)
    literal: bool = True  # every part of the value is written out (none is known only at run time)
    key_span: Span | None = None  # the key's bytes: an override several launches share is one
    prefix_span: Span | None = None  # the prefix's (empty before a plain key)
    came_from: str = "literal"  # where the value comes from, in words (`bot launches`)
    held_in: str = "command"  # what holds it: the command, or the array or string it expands from


@dataclass(frozen=True)
class Narrowing:
    """What a way through a launch's branches says of a variable its values read: one of `values` (None: any)
    and none of `excluded`."""

    values: tuple[str, ...] | None = None
    excluded: frozenset[str] = frozenset()


@dataclass
class Way:
    """One way a launch's branches can go (the front end tells them): the overrides it passes then, and what
    its tests say of the variables those overrides' whole values come from."""

    label: str  # the arms taken, as written; "" for a launch whose branches do not matter
    overrides: list[Override]
    variables: dict[str, Narrowing] = field(default_factory=dict)
    variable_of: dict[int, str] = field(default_factory=dict)  # id(override) -> the variable its whole value is


@dataclass
class Ways:
    items: list[Way]
    total: int  # distinct ways found (more than the items when past the front end's bound)


class LaunchHandle(Protocol):
    """The front end's side of a launch (Launch.handle): what only the language it is written in can tell."""

    def ways(self) -> Ways: ...


@dataclass
class Launch:
    """A launch of an entry point, as every front end reads one (a shell command, a Python argv list): what
    `hydra/` resolves to an app and composes, and the engine judges. `handle` leads back to the front end."""

    entry: str | None  # a module, a script's path or a console script's command; None: chosen at run time
    entry_kind: str  # MODULE | SCRIPT_FILE | SHELL_SCRIPT | CONSOLE | DORA
    line: int
    overrides: list[Override] = field(default_factory=list)
    launcher: str = ""  # how the entry is run (`torchrun`, `uv run`); alternatives joined with " | "
    config_path: str | None = None  # --config-path as written
    config_name: str | None = None
    config_dir: str | None = None
    config_names: tuple[str, ...] = ()  # every value --config-name takes in the launch's branches
    config_runtime: str | None = None  # a Hydra flag whose value is known only at run time, as written
    config_path_dir: Workdir | None = None  # `--config-path=$(pwd)/conf`: the directory, where the launch says
    workdir: Workdir | None = ROOT  # the working directory it runs in; None: unknown
    entry_base: str | None = None  # "script-dir": the entry path is relative to the launching file's directory
    source_path: str | None = None  # the file that holds the launch, relative to the repository
    console_target: str | None = None  # "module:function" a console script runs, from the repository's packaging
    multirun: bool = False  # `-m` / `--multirun`: Hydra runs each element of its sweeps
    caller_args: bool = False  # it passes on its caller's arguments (`"$@"`): they may choose config groups
    args: tuple[tuple[str, bool], ...] = ()  # the words after the entry: (text, written out whole)
    start: int = 0  # the first byte of the command in the text read (a doc's view: the view's)
    end: int = 0
    column: int = 1
    lines: tuple[int, int] = (0, 0)  # first and last line of the command in that text
    branch: str | None = None  # the branch it sits in, as written
    function: str | None = None  # the function it is defined in
    cut_short: int | None = None  # the line whose `\\` meant to continue it, where the launch ends instead
    cut_by: str = CUT_BLANK  # what cut it short: a blank after the `\\`, a comment line, or the line's end
    handle: LaunchHandle | None = None

    @property
    def module(self) -> str | None:
        return entry_module(self.entry, self.entry_kind, self.console_target)


def entry_module(entry: str | None, kind: str, console: str | None) -> str | None:
    """The module a launch runs: its `-m` module, a console script's (a script file's path as a module,
    for a file the packaging installs), a script's path as a module."""
    if entry is None or kind in (SHELL_SCRIPT, DORA):
        return None
    if kind == CONSOLE and (console or "").startswith("./"):
        return (console or "")[2:].removesuffix(".py").replace("/", ".")
    if kind in (MODULE, CONSOLE):
        return entry if kind == MODULE else (console or ":").partition(":")[0] or None
    return entry.removesuffix(".py").lstrip("./").replace("/", ".")


def moved_entry(entry: str, kind: str, old: str, new: str) -> tuple[int, int, str] | None:
    """Where an entry point as written (`a.b.c`, `./a/b/c.py`) names the module prefix `old`: (start, end,
    what names `new` there, in the same form); None when it does not."""
    if kind == MODULE or ("/" not in entry and not entry.endswith(".py")):  # `python3 a.b.c`: a module's spelling
        return (0, len(old), new) if entry == old or entry.startswith(old + ".") else None
    lead = len(entry) - len(entry.lstrip("./"))
    path, rest = old.replace(".", "/"), entry[lead:]
    if rest.startswith(path + "/") or rest == path + ".py":
        return lead, lead + len(path), new.replace(".", "/")
    return None
