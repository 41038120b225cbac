"""Recognise launches of Hydra apps in commands, and the overrides that reach them.

A launch is `python -m MODULE`, `python path.py`, `torchrun [opts] -m MODULE`, or one of those
behind a wrapper (`ray job submit ... --`, `nohup`, `env A=1`, `srun`, `uv run`, ...). Every
argv field after the entry point that reads as a Hydra override becomes an `Override`. The launcher
words are told apart in bot.lang.shell.launchers, Hydra's own flags in bot.lang.shell.hydra_flags.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import lru_cache

from bot.context import NO_CONSOLES, Consoles
from bot.ir import CONSOLE, SHELL_SCRIPT, entry_module
from bot.lang.shell.arms import Guard
from bot.lang.shell.directories import ROOT, Workdir, ray_workdir
from bot.lang.shell.hydra_flags import hydra_flags, record_flag
from bot.lang.shell.launchers import find_entry
from bot.lang.shell.text import SCRIPT_DIR, Field, Piece, Via, after_script_dir, source_span
from bot.lang.shell.walk import CommandSite
from bot.model import Span

# The key's run is greedy: what follows it must be `@`, `=` or the end, none of them a key character, so a
# lazy run would stop at the same place, after trying the rest of the pattern at every character (10x slower).
OVERRIDE = re.compile(
    r"^(?P<prefix>~|\+\+|\+)?(?P<key>[A-Za-z0-9_\-$][A-Za-z0-9_\-/.$\[\]]*)(?:@(?P<package>[A-Za-z0-9_\-.]*))?"
    r"(?P<eq>=|$)"
)


@dataclass
class Override:
    field: Field
    prefix: str
    key: str
    package: str | None
    value_start: int | None  # index in field.text where the value begins, None for `~key`
    key_span: Span | None
    prefix_span: Span | None
    line: int
    column: int

    @property
    def text(self) -> str:
        return self.field.text

    @property
    def value_text(self) -> str | None:
        return None if self.value_start is None else self.field.text[self.value_start :]

    @property
    def value_pieces(self) -> list[Piece]:
        return list(self.value_run)

    @property
    def value_run(self) -> tuple[Piece, ...]:
        """The value's pieces, cut once (the field never changes once read) and shared: a reader that only
        reads them takes no copy."""
        known: tuple[Piece, ...] | None = self.__dict__.get("_value_pieces")
        if known is None:
            known = self.__dict__["_value_pieces"] = () if self.value_start is None else tuple(
                self.field.chars(self.value_start, len(self.field.text)))
        return known

    @property
    def site(self) -> Span | None:
        """The override's own bytes: the identity used to merge what several launches share."""
        return self.key_span

    @property
    def key_pieces(self) -> list[Piece]:
        known = self.__dict__.get("_key_pieces")
        if known is None:
            start = len(self.prefix)
            known = self.__dict__["_key_pieces"] = self.field.chars(start, start + len(self.key))
        return list(known)

    @property
    def key_chain(self) -> tuple[Via, ...]:
        """The expansions the key itself came through (an array, a packed string), outermost first."""
        pieces = self.__dict__.get("_key_pieces")
        if pieces is None:
            pieces = self.key_pieces
        return pieces[0].via if pieces else ()

    def container(self) -> str:
        chain = self.key_chain
        if not chain:
            return "command"
        inner = chain[-1]
        return f"{inner.definition.kind} {inner.var} (line {inner.definition.line})"


@dataclass
class Launch:
    site: CommandSite
    launcher: str  # how the entry is run; alternatives of branches joined with " | "
    entry: str | None  # module, script path or console script's command
    entry_kind: str  # module | script | SHELL_SCRIPT | CONSOLE
    line: int
    overrides: list[Override] = field(default_factory=list)
    config_path: str | None = None
    config_name: str | None = None
    config_dir: str | None = None
    caller_args: bool = False
    config_names: tuple[str, ...] = ()  # every value --config-name takes in the script's branches
    config_runtime: str | None = None  # a Hydra flag whose value is known only at run time, as written
    entry_base: str | None = None  # "script-dir": the entry path is relative to the script's own directory
    source_path: str | None = None  # the file that holds the launch, relative to the repository
    workdir: Workdir | None = ROOT  # where it runs (after the script's `cd`, ray's --working-dir); None: unknown
    config_path_dir: Workdir | None = None  # `--config-path=$(pwd)/conf`: the directory, where the script says
    argv: list[Field] = field(default_factory=list)  # the words after the entry point, as expanded
    head_guard: Guard = ()  # branch arms every way of running it takes (`COMMAND` assigned in one arm)
    entry_field: Field | None = None  # the word that names the entry point, which ends with it (`-mMOD`)
    cut_short: int | None = None  # the line of a `\ ` meant to continue it (bot.lang.shell.continuations)
    cut_by: str = "blank"  # what cut it short (bot.lang.shell.continuations: blank, comment, line end)
    console_target: str | None = None  # "module:function" a console script runs, from the repository's packaging
    multirun: bool = False  # `-m` / `--multirun`: Hydra runs each element of its sweeps
    stranded: list[Override] = field(default_factory=list)  # overrides after the cut, run as a command of their own
    carrier: str | None = None  # the script (as written) that runs the variable carrying this launch
    carrier_variable: str | None = None  # that variable (`COMMAND="python x.py a=1" sbatch job.sub`)

    @property
    def module(self) -> str | None:
        return entry_module(self.entry, self.entry_kind, self.console_target)

    @property
    def branch(self) -> str | None:
        return self.site.branch


def _words(fields: list[Field]) -> list[str]:
    """Static text of each field; a dynamic field reads as its source text."""
    return [f.text for f in fields]


def build_launches(site: CommandSite, words: list[list[list[Field]]], src: bytes,
                   path: str | None = None, consoles: Consoles = NO_CONSOLES) -> list[Launch]:
    """The launches a command makes: one per entry point its first word's alternatives lead to.

    `words` holds, for each word of the command, its alternatives (branches assign a variable
    differently), each a list of fields. The first word is tried alternative by alternative, so
    `"${LAUNCH[@]}" -m M` with `LAUNCH=(python3)` or, in a branch, `LAUNCH=(uv run ... python3)` is
    one launch of M; the other words keep every alternative's fields.
    """
    if not words:
        return []
    rest = [f for alternatives in words[1:] for fields in alternatives for f in fields]
    heads: dict[tuple[str, ...], list[Field]] = {}
    for fields in words[0]:
        heads.setdefault(tuple(f.text for f in fields), fields)
    launches: dict[tuple[str | None, str], Launch] = {}
    for head in heads.values():
        fields = head + rest
        found = find_entry(_words(fields), fields, consoles)
        if found is None:
            continue
        launcher, entry, entry_kind, _ = found
        known = launches.get((entry, entry_kind)) if entry_kind not in _ENTRY_ADJUSTED else None
        if known is not None:  # the launch an earlier head makes: its overrides are not read again
            _merge(known, launcher, _guard_of(head))
            continue
        launch = build_launch(site, fields, src, consoles, found)
        if launch is None:
            continue
        launch.source_path = path
        launch.head_guard = _guard_of(head)
        known = launches.get((launch.entry, launch.entry_kind))
        if known is None:
            launches[(launch.entry, launch.entry_kind)] = launch
            continue
        _merge(known, launch.launcher, launch.head_guard)
    return list(launches.values())


# entry kinds whose entry build_launch may rewrite (a script's path relative to the script's own directory),
# and the one it may drop (a shell script handed no overrides): their launch is built to be compared
_ENTRY_ADJUSTED = frozenset({"script", SHELL_SCRIPT})


def _merge(known: Launch, launcher: str, guard: Guard) -> None:
    """Another head of the command leads to a launch already made: the arms every head takes, and each
    way of running it."""
    known.head_guard = tuple(arm for arm in known.head_guard if arm in guard)
    if launcher not in known.launcher.split(" | "):
        known.launcher += f" | {launcher}"


def _guard_of(fields: list[Field]) -> Guard:
    """The branch arms the definitions read by these fields were assigned in."""
    arms: dict[tuple[int, int], None] = {}
    for item in fields:
        for piece in item.pieces:
            for via in piece.via:
                arms.update(dict.fromkeys(via.definition.guard))
    return tuple(arms)


def build_launch(site: CommandSite, fields: list[Field], src: bytes, consoles: Consoles = NO_CONSOLES,
                 found: tuple[str, str | None, str, int] | None = None) -> Launch | None:
    """The launch the command's fields make, if any; `found`: find_entry of them, when the caller has it."""
    words = _words(fields)
    found = found if found is not None else find_entry(words, fields, consoles)
    if found is None:
        return None
    launcher, entry, entry_kind, first = found
    launch = Launch(site, launcher, entry, entry_kind, line=int(site.node.start_point[0]) + 1, workdir=site.cwd)
    if entry_kind == CONSOLE and entry is not None:
        launch.console_target = consoles.target(entry.rsplit("/", 1)[-1])
    launch.argv = fields[first:]
    if entry is not None and first > 0 and fields[first - 1].text.endswith(entry):
        launch.entry_field = fields[first - 1]
    if launcher == "ray job submit":
        launch.workdir = ray_workdir(words[:first], fields, site.cwd)
    if entry_kind in ("script", SHELL_SCRIPT) and first > 0:
        _script_dir_entry(launch, fields[first - 1])
    flags = hydra_flags()
    i = first
    while i < len(fields):
        word = words[i]
        item = fields[i]
        i += 1
        if not item.static and not item.text.lstrip("\"'").startswith(("+", "~")) and "=" not in item.text:
            if item.first_dynamic() is not None and item.pieces[0].dynamic and "caller" in (
                item.pieces[0].dynamic or ""
            ):
                launch.caller_args = True
            continue
        name = word.partition("=")[0]
        if word.startswith("-") and name in flags:
            launch.multirun = launch.multirun or name in ("-m", "--multirun")
            if "=" in word:
                values = [f for f in _same_word(fields, i - 1) if f.text.startswith(name + "=")]
                record_flag(launch, name, [(f.text[len(name) + 1 :], f) for f in values])
            elif flags[name] and i < len(fields):
                values = _same_word(fields, i)
                i += len(values)
                record_flag(launch, name, [(f.text, f) for f in values])
            continue
        override = parse_override_field(item, src)
        if override is not None:
            launch.overrides.append(override)
    if entry_kind == SHELL_SCRIPT and not launch.overrides:
        return None  # running a script is a launch only when overrides are handed to it
    return launch


def _same_word(fields: list[Field], index: int) -> list[Field]:
    """The field at `index` and the ones after it that are other alternatives of the same shell word."""
    out = [fields[index]]
    word = fields[index].word
    while word >= 0 and index + len(out) < len(fields) and fields[index + len(out)].word == word:
        out.append(fields[index + len(out)])
    return out


def _script_dir_entry(launch: Launch, entry: Field) -> None:
    """`python3 "$(dirname "$0")/train.py"`: the entry is relative to the script's own directory."""
    pieces = entry.pieces
    if pieces and pieces[0].dynamic == SCRIPT_DIR and all(p.static for p in pieces[1:]):
        launch.entry = (after_script_dir(pieces[0]) + "".join(p.text for p in pieces[1:])).lstrip("/") or "."
        launch.entry_base = "script-dir"
        launch.entry_field = None


def line_column(src: bytes, pos: int) -> tuple[int, int]:
    """1-based line and column; the column counts characters, as editors and SARIF do."""
    line_start = src.rfind(b"\n", 0, pos) + 1
    return line_of(src, pos), len(src[line_start:pos].decode("utf-8", "replace")) + 1


def line_of(src: bytes, pos: int) -> int:
    """The 1-based line of byte `pos`."""
    return src.count(b"\n", 0, pos) + 1 if len(src) < _INDEXED_FROM else bisect_left(_newlines(src), pos) + 1


_INDEXED_FROM = 1024  # bytes: past this, counting newlines from the start for each place costs more than a search


@lru_cache(maxsize=8)
def _newlines(src: bytes) -> list[int]:
    return [match.start() for match in re.finditer(b"\n", src)]


def parse_override_field(item: Field, src: bytes) -> Override | None:
    text = item.text
    match = OVERRIDE.match(text)
    if match is None:
        return None
    prefix, key, package, eq = match.groups()
    prefix = prefix or ""
    has_eq = eq == "="
    if not has_eq and prefix != "~":
        return None
    if "$" in key:
        return None  # a key built at run time cannot be matched reliably
    key_start = len(prefix)  # the pattern is anchored: the key follows the prefix
    key_pieces = item.chars(key_start, key_start + len(key))
    for piece in key_pieces:
        if piece.dynamic is not None:
            return None
    key_span = source_span(key_pieces)
    prefix_span = source_span(item.chars(0, key_start)) if prefix else (
        Span(key_span.start, key_span.start) if key_span else None
    )
    line, column = (0, 0)
    if key_span is not None:
        start = prefix_span.start if prefix_span else key_span.start
        line, column = line_column(src, start)
    else:
        first_byte = next((p.starts[0] for p in item.pieces if p.starts), None)
        if first_byte is not None:  # a key assembled from several places: point at where the word starts
            line, column = line_column(src, first_byte)
    override = Override(field=item, prefix=prefix, key=key, package=package,
                        value_start=match.end() if has_eq else None, key_span=key_span, prefix_span=prefix_span,
                        line=line, column=column)
    override.__dict__["_key_pieces"] = key_pieces  # what key_pieces would cut again
    return override
