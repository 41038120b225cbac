"""The shell's launches as every front end hands them on (bot.ir.Launch): the entry point, the Hydra flags,
where it runs, the overrides as settings, and a handle back to the script for the ways its branches go.

hydra/ and the engine read only this; what only the shell can tell (the combinations of a script's `if`
and `case` arms, bot.lang.shell.combinations) they ask the handle for.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.ir import Launch, Narrowing, Override, SettingGroup, State, Way, Ways
from bot.lang.shell.launches import Launch as ShellLaunch
from bot.lang.shell.launches import Override as ShellOverride
from bot.lang.shell.launches import line_column, line_of
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.text import source_span
from bot.lang.shell.values import read_value
from bot.model import Span


def _written(override: ShellOverride) -> Span | None:
    """Where the value's text is written: equal words of a loop's list are each a value of their own (a
    map must rewrite every one of them)."""
    pieces = override.value_run
    return source_span(pieces) if pieces else None


def override_setting(override: ShellOverride) -> Override:
    """The override as a setting (its handle: the shell's override and what its value is)."""
    info = read_value(override)
    origin = info.origin()
    if info.state == "none":
        came_from = "deletion"
    elif info.state == "dynamic":
        came_from = f"run time: {origin}"
    else:
        came_from = origin or "literal"
    return Override(override.key, override.prefix, info.text, info.value, info.state, override.line, override.column,
                    reason=info.reason, origin=origin if info.state == State.STATIC else "",
                    site=override.key_span or id(override), identity=(*info.identity(), _written(override)),
                    keyed=override.key_span is not None, handle=(override, info), rejected=info.state == "invalid",
                    package=override.package, written=override.text, value_written=override.value_text,
                    literal=info.state in ("static", "invalid"), key_span=override.key_span,
                    prefix_span=override.prefix_span, came_from=came_from, held_in=override.container())


@dataclass
class ShellHandle:
    """A launch's way back to its script (bot.ir.LaunchHandle)."""

    launch: ShellLaunch
    script: ShellScript
    settings: dict[int, Override]  # id of the shell's override -> the launch's setting for it

    def ways(self) -> Ways:
        """One way per distinct combination of the arms the launch's overrides are assigned in or test."""
        from bot.lang.shell.combinations import combinations

        found = combinations(self.launch, self.script.statements, self.script.reaching)
        items = []
        for combination in found.items:
            overrides = [self.settings[id(o)] for o in combination.overrides]
            variables = {name: Narrowing(None if (values := narrowed.values()) is None else tuple(values),
                                         narrowed.excluded) for name, narrowed in combination.variables.items()}
            names = {id(self.settings[id(o)]): name for o in combination.overrides
                     if (name := combination.variable_of(o)) is not None}
            items.append(Way(combination.label, overrides, variables, names))
        return Ways(items, found.total)


def as_launch(launch: ShellLaunch, script: ShellScript) -> Launch:
    """The launch as bot.ir.Launch; its overrides are new settings (bot.lang.shell.settings reads its groups
    with them, so a group's settings are the launch's overrides)."""
    settings = {id(o): override_setting(o) for o in launch.overrides}
    node = launch.site.node
    start, end = node.start_byte, node.end_byte
    return Launch(
        launch.entry, launch.entry_kind, launch.line, list(settings.values()), launcher=launch.launcher,
        config_path=launch.config_path, config_name=launch.config_name, config_dir=launch.config_dir,
        config_names=launch.config_names, config_runtime=launch.config_runtime,
        config_path_dir=launch.config_path_dir, workdir=launch.workdir, entry_base=launch.entry_base,
        source_path=launch.source_path, console_target=launch.console_target, multirun=launch.multirun,
        caller_args=launch.caller_args, args=tuple((f.text, f.static) for f in launch.argv), start=start, end=end,
        column=line_column(script.src, start)[1], lines=(int(node.start_point[0]) + 1, line_of(script.src, max(
            start, end - 1))), branch=launch.branch, function=launch.site.in_function, cut_short=launch.cut_short,
        cut_by=launch.cut_by, handle=ShellHandle(launch, script, settings))


def shell_launch(group: SettingGroup) -> ShellLaunch:
    """The shell's own launch of a launch group (its handle)."""
    assert group.launch is not None and isinstance(group.launch.handle, ShellHandle)
    return group.launch.handle.launch


__all__ = ["ShellHandle", "as_launch", "override_setting", "shell_launch"]
