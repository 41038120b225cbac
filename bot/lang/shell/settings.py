"""A shell script as groups of settings: one group a launch, one a value a caller hands a script.

An override that several launches read (an array element, a packed string) is one site: its
key's bytes; the values it takes in different branches are told apart by where they come from.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from bot.context import NO_CONSOLES, Consoles
from bot.hydra.grammar import HydraSyntaxError, parse_override
from bot.ir import CALLER, CONSOLE, LAUNCH, SCRIPT, SHELL_SCRIPT, STRANDED, Setting, SettingGroup, State
from bot.lang.shell.as_launch import as_launch, override_setting
from bot.lang.shell.calls import EnvInput, EnvValue, ScriptCall
from bot.lang.shell.continuations import COMMENT, LINE_END
from bot.lang.shell.launches import Launch, line_column, line_of
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.text import source_span


def launch_groups(script: ShellScript) -> list[SettingGroup]:
    """A group per launch (its settings are the launch's overrides, bot.lang.shell.as_launch), and one per
    launch's stranded overrides."""
    groups = []
    for launch in script.launches:
        node = launch.site.node
        read = as_launch(launch, script)
        _, column = line_column(script.src, node.start_byte)
        last = line_of(script.src, max(node.start_byte, node.end_byte - 1))
        groups.append(SettingGroup(list(read.overrides), launch.line, column,
                                   entry=launch.module, label=f"launch of {launch.entry}",
                                   role=SCRIPT if launch.entry_kind == SHELL_SCRIPT else LAUNCH, launch=read,
                                   handle=launch, lines=(min(launch.line, node.start_point[0] + 1), last),
                                   entry_site=_entry_site(launch), entry_written=launch.entry_kind != CONSOLE,
                                   open_args=launch.caller_args))
        if launch.stranded:
            first, end = launch.stranded[0], launch.stranded[-1]
            groups.append(SettingGroup(
                [override_setting(o) for o in launch.stranded], first.line, first.column,
                label=f"not passed to the launch of {launch.entry} at line {launch.line}: "
                      + (f"the comment on line {launch.cut_short} ends it" if launch.cut_by == COMMENT else
                         f"line {launch.cut_short} has no backslash to continue it" if launch.cut_by == LINE_END
                         else f"the blank after the backslash on line {launch.cut_short} ends it")
                      + ", and this line runs as a command of its own",
                entry=launch.module, role=STRANDED, launch=read, lines=(first.line, end.line), entry_written=False))
    return groups


def _entry_site(launch: Launch) -> object:
    """The bytes that name the launch's entry point (launches sharing `$CMD` share them), else the launch."""
    item = launch.entry_field
    span = source_span(item.chars(0, len(item.text))) if item is not None else None
    return span or id(launch)


def caller_groups(script: ShellScript, call: ScriptCall, callee: str, inputs: list[EnvInput]) -> list[SettingGroup]:
    """The values a call hands the callee's overrides: the caller's value is the one that breaks a rule."""
    groups = []
    for item in inputs:
        value = call.values.get(item.variable)
        if value is None:
            continue
        try:
            parsed = parse_override(f"{item.override.key}={value.text}")
        except HydraSyntaxError:
            continue
        line, column = line_column(script.src, value.span.start)
        setting = Setting(item.override.key, item.override.prefix, value.text, parsed.value, State.STATIC, line, column,
                          origin=f"in {callee} (line {item.override.line}), through {value.name}={value.text}",
                          handle=value)
        groups.append(SettingGroup([setting], line, column, entry=item.launch.module,
                                   label=f"launch of {item.launch.entry} in {callee}", role=CALLER,
                                   handle=item.launch))
    return groups


def callee_groups(script: ShellScript, path: str, root: Path, reads: set[str],
                  holds: Callable[[bytes], bool] | None = None, consoles: Consoles = NO_CONSOLES) -> list[SettingGroup]:
    """Groups for every repository script the file runs with values in its environment.

    `holds`: whether a callee's bytes can matter to the rules; one that cannot is not analysed;
    `consoles`: the repository's console scripts, which are launches in the callee too.
    """
    from bot.lang.shell.calls import resolve

    groups: list[SettingGroup] = []
    for call in script.calls:
        callee = resolve(call.target, path, None)
        if callee is None or callee == path:
            continue
        reads.add(callee)
        inputs = callee_inputs(root, callee, holds, consoles)
        if inputs:
            groups.extend(caller_groups(script, call, callee, inputs))
    return groups


MAX_BYTES = 8 * 1024 * 1024


def runs_carried(root: Path, caller: str, target: str, name: str) -> bool:
    """Whether the repository script `target` (as `caller` writes it) runs the variable `name` as its command."""
    from bot.lang.shell.calls import resolve
    from bot.lang.shell.carried import runs_variable

    callee = resolve(target, caller, None)
    if callee is None or callee == caller:
        return False
    data = _script_bytes(root, callee)
    return data is not None and runs_variable(data.decode("utf-8", "replace"), name)


def _script_bytes(root: Path, path: str) -> bytes | None:
    """A repository script's bytes; None if it is not a readable file inside the root (or is too large)."""
    import os

    target = os.path.join(root, *path.split("/"))
    real_root = os.path.realpath(root)
    if os.path.islink(target) or not os.path.realpath(target).startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    try:
        with open(target, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return None
    return None if len(data) > MAX_BYTES or b"\0" in data else data


def callee_inputs(root: Path, path: str, holds: Callable[[bytes], bool] | None = None,
                  consoles: Consoles = NO_CONSOLES) -> list[EnvInput]:
    """The environment inputs of a repository script (cached by its bytes); [] if not readable, or if
    `holds` says its bytes cannot matter (then nothing is analysed)."""
    data = _script_bytes(root, path)
    if data is None or (holds is not None and not holds(data)):
        return []
    return list(_env_inputs(data, path, consoles))


@lru_cache(maxsize=1024)
def _env_inputs(data: bytes, path: str, consoles: Consoles) -> tuple[EnvInput, ...]:
    """A pure function of its arguments: the script's bytes, its path and the console table."""
    from bot.lang.shell.calls import env_inputs
    from bot.lang.shell.parse import analyse

    return tuple(env_inputs(analyse(data, path=path, consoles=consoles, whole_script=True).launches))


__all__ = ["EnvValue", "Launch", "callee_groups", "callee_inputs", "launch_groups"]
