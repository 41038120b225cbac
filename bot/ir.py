"""What every language front end hands the evaluator, and what the evaluator asks it to write.

A front end reads a file into groups of settings: a shell launch with its overrides, a YAML
document with its keys, a Python override list, the values a caller hands a script. The one
evaluator (bot.rules.evaluate) matches rules against them and plans fixes as abstract actions; the
front end realises those actions as byte edits in its own syntax, or says why it cannot.
Plain data: no parsing here, and nothing that knows a language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.model import Finding, Span

# what a group of settings is, for the rules
LAUNCH = "launch"  # a launch's overrides: every rule applies; its config can be composed (`launch`)
SCRIPT = "script"  # overrides handed to a launch script: no key is added to it (it may set the key itself)
CALLER = "caller"  # values a caller hands a script through its environment: only match rules, fixed there
CONFIG = "config"  # a config document or a Python override list: every rule, no composed config
EXCERPT = "excerpt"  # config shown in a doc's YAML block: keys may be a config's last segments; no ensure
COMMENT = "comment"  # overrides in a comment: notes (the rule's `comments`), no ensure
PROSE = "prose"  # an override literal in running text: as COMMENT, and a `set` is only noted by default
HYDRA_NODE = "hydra-node"  # a config's `hydra:` node (Hydra's own settings): only a rename's interpolations there
DEFAULTS_LIST = "defaults-list"  # a config's defaults list: group choices (an option written, nothing added)
SWEEP_PARAMS = "sweep-params"  # a config's hydra.sweeper.params: overrides every run of a sweep gets (no ensure)
STRANDED = "stranded"  # overrides after a launch a blank after its `\` cut short: they never reach it (manual)
HELD = "held"  # a launch held in a variable others run with more words (a Makefile's `RUN = python3 t.py`): no ensure
IN_LIST = "in-list"  # a config's values inside its lists (`- size: ${a.b}`): only interpolations followed there


@dataclass
class Setting:
    key: str  # the full Hydra key path
    prefix: str  # "", "+", "++" or "~"
    text: str | None  # the value as written (None: `~key` or a mapping)
    value: Any
    state: str  # static | dynamic | invalid | none | mapping
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
    role: str = CONFIG  # LAUNCH, SCRIPT, CALLER or CONFIG
    launch: Any = None  # what the repository's composed config is asked about (a shell launch)
    handle: Any = None
    lines: tuple[int, int] | None = None  # first and last line of the command it is (None: not a command)
    entry_site: object = None  # where the entry point is written: launches sharing it are one finding
    entry_written: bool = True  # False for a console script: the packaging names its module, not the launch
    open_args: bool = False  # the launch passes on its caller's arguments (`"$@"`): they may choose config groups


@dataclass
class Action:
    """One change a front end writes in its own syntax."""

    kind: str  # value | items | key | prefix | remove | insert | entrypoint | variant (one branch's value)
    setting: Setting | None  # what is changed; None for insert and entrypoint
    text: str = ""  # new value text (Hydra form), new key, new prefix, new module or script path
    value: Any = None  # the new value itself (value and insert)
    key: str = ""  # insert: the key to add
    prefix: str = ""  # insert: the prefix to write
    anchor_key: str = ""  # insert: the key whose neighbours it is best placed after
    variants: list[Setting] = field(default_factory=list)  # value: every branch's setting at the site
    items: dict[int, Any] = field(default_factory=dict)  # items: list element index -> its new value
    drop: tuple[int, ...] = ()  # items: indexes of the list elements removed


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
