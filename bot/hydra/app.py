"""A launch's Hydra app: the `@hydra.main(config_path=..., config_name=...)` of its entry point.

Read with the stdlib's `ast` from the target repository's source (bot.hydra.python_file, once per file
and scan); nothing is imported or executed. The launch's own `--config-path` / `--config-name` flags win
over the decorator, as they do in Hydra. Every path is resolved against the repository, never the bot's
working directory (bot.hydra.search_path): a relative `config_path` against the app's file, `--config-dir`
and relative `file://` search paths against the repository root (where the repository's scripts are run
from), `pkg://` search paths to the package's directory inside the repository. A path outside the
repository is not followed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.hydra.certain import config_path_file, made_first, missing_config_dir, missing_primary_dir
from bot.hydra.command_gate import Route, command_route, rest_parameter
from bot.hydra.decorator import COMPUTED, main_arguments, main_helper, too_deep_to_read
from bot.hydra.dispatch import outside_dispatcher
from bot.hydra.entry import entry_file, missing_reason, repository_dir, run_dir
from bot.hydra.imported import imported_app
from bot.hydra.main_helper import COMPUTED_VALUE, HelperCall, helper_arguments
from bot.hydra.markers import CWD
from bot.hydra.python_file import PythonFile, python_file
from bot.hydra.search_path import app_search_path, launch_search_path, not_there, primary_search_path, search_dir
from bot.ir import DORA, MODULE, SHELL_SCRIPT, Launch

if TYPE_CHECKING:
    from bot.context import ScanContext
    from bot.hydra.api_app import ApiApp, Source

# What a launch runs, as classes of `bot launches`
HYDRA = "hydra"  # a Hydra app of the repository, with its config directory
NOT_HYDRA = "not-hydra"  # the entry point is in the repository and is not a Hydra app
OUTSIDE = "outside"  # the entry point (or its config) is not in the repository
RUNTIME = "runtime"  # the entry point or the config is chosen at run time
SCRIPT = "script"  # a launch script of the repository, handed overrides that it passes on
UNREADABLE = "unreadable"  # the entry file is Python nested deeper than the bot parses


@dataclass(frozen=True)
class HydraApp:
    source: str  # the Python file, relative to the repository
    config_dir: Path | None
    config_name: str | None
    search_path: tuple[str, ...] = ()  # extra config directories, absolute, in Hydra's order
    style: str = "@hydra.main"  # how the app composes its config: or "the compose API"
    version_base: str | None = None  # Hydra's behaviour the app asks for ("1.1" when its decorator says none)
    root: Path | None = None  # the tree its config directories are read in (bot.confined): the repository


@dataclass(frozen=True)
class AppProblem:
    reason: str
    kind: str = OUTSIDE
    failure: str | None = None  # Hydra's own error: the launch certainly fails before composing (bot.hydra.certain)
    refused: str | None = None  # the word a command group refuses (bot.hydra.command_gate), with `failure`


def config_name(name: str | None) -> str | None:
    """Hydra accepts `--config-name x.yaml` as well as `x`."""
    if name is None:
        return None
    return name[: -len(".yaml")] if name.endswith(".yaml") else name


def _found(context: ScanContext, key: tuple[object, ...], find: Callable[[], Any]) -> Any:
    """What this scan found of the repository's files (its entry points), looked for once per scan."""
    if key not in context.apps:
        context.apps[key] = find()
    return context.apps[key]


def resolve_app(context: ScanContext, launch: Launch, explain: bool = True) -> HydraApp | AppProblem:
    """The Hydra app the launch runs, or why there is none (`explain`: say what the repository has instead)."""
    root = context.root
    if launch.entry is None:
        return AppProblem("the entry point is chosen at run time", RUNTIME)
    path = _found(context, _entry_key(launch), lambda: entry_file(context, launch))
    if path is None:
        return AppProblem(missing_reason(context, launch) if explain else "not in the repository", OUTSIDE)
    if launch.entry_kind == SHELL_SCRIPT:
        return AppProblem(f"runs {path.relative_to(root).as_posix()}, which receives the overrides", SCRIPT)
    main = _hydra_main(context, launch, path)
    if isinstance(main, (HydraApp, AppProblem)):
        return main
    source, version_base = main[1], main[4]
    if empty_config(launch, main[2], main[3], version_base):  # per launch: its own flags decide
        return HydraApp(source, None, None, (), version_base=version_base, root=root)
    chosen = _found(context, _config_key(launch, main),  # launches of one app mostly choose its config alike
                    lambda: _config_dir(context, launch, main))
    if isinstance(chosen, AppProblem):
        if made_first(context, launch, chosen.failure, launch.config_path or main[2]):
            return AppProblem(chosen.reason, chosen.kind)  # the launching file may make the directory first
        return chosen
    directory, name = chosen
    extra = missing_config_dir(context, launch)
    if extra is not None:
        return AppProblem(f"--config-dir {launch.config_dir} is not in the repository", OUTSIDE, extra)
    dirs = app_search_path(context, launch, directory, name)  # per launch: it reads the primary config's text
    if isinstance(dirs, str):
        return AppProblem(dirs, OUTSIDE)
    return HydraApp(source, directory, name, dirs, version_base=version_base, root=root)


def entry_path(context: ScanContext, launch: Launch) -> Path | None:
    """The repository's file the launch runs (as resolve_app found it), or None."""
    if launch.entry is None:
        return None
    found: Path | None = _found(context, _entry_key(launch), lambda: entry_file(context, launch))
    return found


def _config_key(launch: Launch, main: Decorated) -> tuple[object, ...]:
    """What the config directory and name a decorated app runs with depend on beyond the decorator (`main`): the
    launch's Hydra flags and where it runs (`--config-path=$(pwd)/..`, a `config_path` of the working directory);
    not which file launches it."""
    config_path_dir = (None if launch.config_path_dir is None
                       else ("dir", repository_dir(launch.config_path_dir, launch.source_path)))
    return ("config", main, launch.entry, launch.entry_kind, launch.config_path, launch.config_name,
            launch.config_runtime, config_path_dir, run_dir(launch))


def _config_dir(context: ScanContext, launch: Launch, main: Decorated) -> tuple[Path, str | None] | AppProblem:
    """The config directory and name of a `@hydra.main` (`main`: where it is and what it says) as the launch
    runs it, or why they are not the repository's."""
    path, source, config_path, name, _ = main
    chosen = _config_path(context, launch, path, source, config_path, name)
    if isinstance(chosen, AppProblem):
        return chosen
    config, name = chosen
    if (old_style := config_path_file(config)) is not None:
        return AppProblem(f"{source}: {old_style}", OUTSIDE, old_style)
    directory = search_dir(context, config, path.parent)
    if directory is None:
        reason = f"config directory {config} of {source} {not_there(context.root, config, path.parent)}"
        return AppProblem(reason, OUTSIDE, missing_primary_dir(context.root, config, path.parent))
    return directory, config_name(name)


def empty_config(launch: Launch, config_path: str | None, name: str | None, version_base: str | None) -> bool:
    """Whether Hydra composes the app's config from nothing but the launch's overrides: no config_path (the
    decorator's None, read as None only where its version_base is 1.2 or later: before, an unspecified one is
    ".") and no config name, and the launch adds no config directory or search path (`--config-dir`,
    `hydra.searchpath`). Hydra then searches only its own configs and the config store, and composes the empty
    config (`hydra.main`'s `config_path=None`; `compose(config_name=None, overrides=...)`)."""
    if config_path is not None or name is not None or launch.config_path is not None or launch.config_name \
            is not None or launch.config_dir is not None or launch.config_runtime or launch_search_path(launch) \
            is not None:
        return False
    return version_base is None or _at_least(version_base, (1, 2))


def _at_least(version: str, wanted: tuple[int, int]) -> bool:
    parts = version.split(".")
    if len(parts) < 2 or not all(part.isdigit() for part in parts[:2]):
        return False  # a version_base the bot does not read: not judged
    return (int(parts[0]), int(parts[1])) >= wanted


# the decorator's file, source, config_path, config_name and version_base (bot.hydra.decorator.version_base_of)
def _entry_key(launch: Launch) -> tuple[object, ...]:
    """What the file a launch runs depends on (bot.hydra.entry.entry_file): a module, or dora's main, is
    looked for from where the launch runs, whichever file launches it; a script also from that file's place."""
    here = run_dir(launch)
    if launch.entry_kind in (MODULE, DORA):
        return "entry", launch.entry, launch.entry_kind, here
    return "entry", launch.entry, launch.entry_kind, here, launch.entry_base, launch.source_path


Decorated = tuple[Path, str, str | None, str | None, str | None]


def _hydra_main(context: ScanContext, launch: Launch, path: Path) -> Decorated | HydraApp | AppProblem:
    """Where the entry file's `@hydra.main` is (the file itself, or the one it imports its app from) and what it
    says; else the compose-API app the file is, or why it is no app."""
    root = context.root
    source = path.relative_to(root).as_posix()
    function = launch.console_target.partition(":")[2] if launch.console_target else None
    file = python_file(context, path)  # read once for the launch: its decorator, else its depth
    decorated: Decorated | None = file.fact(  # once per scan and text of the file
        ("decorated", function or None), lambda: _decorated(context, path, function, file))
    if decorated is not None:
        return decorated
    from bot.hydra.api_app import compose_api_app

    api = compose_api_app(context, path)
    if api is not None:
        return api_app(context, launch, path, source, api)
    unread = file.too_deep if file.text is not None else too_deep_to_read(context, path)
    if unread is not None:  # not known to be no app: not read
        return AppProblem(f"{source} could not be read: {unread}", UNREADABLE)
    route = command_route(context, launch, path, function, file)
    if route is not None and route.failure is not None:  # a command group that has no command a word names
        return AppProblem(f"the command group refuses a word: {route.failure}", NOT_HYDRA, route.failure,
                          route.refused)
    if route is not None and route.leaf is not None:
        command = _command_app(context, launch, route)
        if command is not None:
            return command
    handed = outside_dispatcher(context, path, function)
    if handed is not None:
        return AppProblem(handed, NOT_HYDRA)
    return AppProblem(f"{source} has no @hydra.main decorator", NOT_HYDRA)


def _command_app(context: ScanContext, launch: Launch, route: Route) -> HydraApp | AppProblem | None:
    """The compose-API app of the command the launch's words name (`tool data prepare a=b`: a function taking
    the words after the command as its overrides), or None when the command is no such app."""
    from bot.hydra.api_app import function_api_app

    leaf = route.leaf
    assert leaf is not None
    rest = rest_parameter(context, leaf)
    api = function_api_app(context, leaf.path, leaf.function, rest) if rest is not None else None
    if api is None:
        return None
    return api_app(context, launch, leaf.path, leaf.path.relative_to(context.root).as_posix(), api)


def _decorated(context: ScanContext, path: Path, function: str | None, file: PythonFile) -> Decorated | None:
    """The entry file's `@hydra.main` on `function` (or its first), or the one of the function it imports and
    runs, with what it says; None when there is none. The same for every launch of the file."""
    source = path.relative_to(context.root).as_posix()
    function_read = function or None
    config_path, name, found, version_base = main_arguments(file, function_read)  # `file`: the text at `path`
    if not found and (imported := imported_app(context, path, function_read)) is not None:
        path = imported[0]  # Hydra reads the decorator, and its config_path, where the function is defined
        source = f"{os.path.relpath(path, context.root)} (imported by {source})"
        function_read = imported[1] or None
        file = python_file(context, path)
        config_path, name, found, version_base = main_arguments(file, function_read)
    if not found:
        return None
    helper = main_helper(file, function_read)
    if helper is not None:
        config_path, name, version_base = _through_helper(context, path, helper, config_path, name, version_base)
    return path, source, config_path, name, version_base


def _through_helper(context: ScanContext, path: Path, helper: HelperCall, config_path: str | None,
                    name: str | None, version_base: str | None) -> tuple[str | None, str | None, str | None]:
    """The decorator's config_path, config_name and version_base as `**helper(...)` gives them
    (bot.hydra.main_helper); a config_path or config_name it computes is COMPUTED followed by why."""
    read = helper_arguments(context, path, helper)
    if read.unread is not None:
        return COMPUTED + f" (through {read.unread})", name, version_base
    values = read.values
    through = f" (through {helper.name}, not as a literal)"
    if "config_path" in values:
        given = values["config_path"]
        config_path = COMPUTED + through if given == COMPUTED_VALUE else given
    elif config_path == COMPUTED:
        config_path = None  # the helper does not give it: Hydra's default
    if "config_name" in values:
        given = values["config_name"]
        name = COMPUTED + through if given == COMPUTED_VALUE else given
    if "version_base" in values:
        given = values["version_base"]
        version_base = None if given == COMPUTED_VALUE else given  # computed: the installed Hydra's behaviour
    return config_path, name, version_base


def _config_path(context: ScanContext, launch: Launch, path: Path, source: str, config_path: str | None,
                 name: str | None) -> tuple[str, str | None] | AppProblem:
    """The app's config_path and config_name as the launch runs it (its own flags win over the decorator), or
    why they are not known here."""
    if launch.config_path is not None:
        config_path = launch.config_path
    if launch.config_name is not None:
        name = launch.config_name
    if launch.config_runtime:
        return AppProblem(f"{launch.config_runtime}: the config is chosen at run time", RUNTIME)
    if config_path is not None and config_path.startswith(COMPUTED):
        how = config_path[len(COMPUTED):]  # how, where it is given through a helper (_through_helper)
        return AppProblem(f"{source}: the app computes its config_path{how}; it is known at run time", RUNTIME)
    if config_path is not None and config_path.startswith(CWD) and launch.config_path_dir is None:
        found = _at_run_dir(context, launch, path, source, config_path)
        if isinstance(found, AppProblem):
            return found
        config_path = found
    if config_path is None:
        return AppProblem(f"{source}: the app declares no config_path: its config comes from Hydra's config store "
                          "(structured configs registered when it runs) or from the overrides alone", RUNTIME)
    if name is not None and name.startswith(COMPUTED):
        return AppProblem(f"{source}: the app computes its config_name{name[len(COMPUTED):]}; it is known at run "
                          "time", RUNTIME)
    if launch.config_path_dir is not None:  # `--config-path=$(pwd)/conf`: where the script says
        named = repository_dir(launch.config_path_dir, launch.source_path)
        if named is None or named.startswith("/"):
            where = f"{named}, outside the repository" if named else "a directory known at run time"
            return AppProblem(f"--config-path {launch.config_path} is {where}", OUTSIDE if named else RUNTIME)
        config_path = str(context.root / named)
    return config_path, name


def _at_run_dir(context: ScanContext, launch: Launch, path: Path, source: str, config_path: str) -> str | AppProblem:
    """`config_path=os.getcwd()`: the directory the launch runs in, if it is the repository's."""
    root = context.root
    here = run_dir(launch)
    if here is not None and launch.entry_kind == "script" and not here.startswith("/") and os.path.realpath(
            root / here / (launch.entry or "")) != os.path.realpath(path):
        here = None  # the script was found beside the launching file, not where the launch was taken to run
    if here is None or here.startswith("/"):
        where = f"{here}, outside the repository" if here else "a directory known at run time"
        return AppProblem(f"{source}: the app's config_path is the directory the launch runs in, {where}",
                          OUTSIDE if here else RUNTIME)
    return os.path.normpath(os.path.join(root, here, config_path[len(CWD) + 1:]))


def api_app(context: ScanContext, launch: Launch, path: Path, source: str, api: ApiApp) -> HydraApp | AppProblem:
    """A compose-API app's config as this launch chooses it: literals, or the argparse options'
    values in the launch (their defaults where it does not pass them)."""
    root = context.root
    if api.loads is not None:
        loaded = flag_value(launch, api.loads)
        what = loaded if isinstance(loaded, str) else "a file chosen at run time"
        return AppProblem(f"{source} loads its config with OmegaConf.load ({what}), not Hydra", NOT_HYDRA)
    kind, location = api.location_kind, flag_value(launch, api.location)
    for other_kind, other in api.others if location is None else ():  # `if args.dir: ... else: initialize(...)`
        kind, location = other_kind, flag_value(launch, other)
        if location is not None:
            break
    if location is None:
        kind = api.location_kind
    name = flag_value(launch, api.name)
    for value, what in ((location, kind), (name, "config_name")):
        if value is None:
            return AppProblem(f"{source}: the compose API's {what} is not given", NOT_HYDRA)
        if isinstance(value, Runtime):
            return AppProblem(f"{source}: the compose API's {what} is {value.text}, known at run time", RUNTIME)
    assert isinstance(location, str) and isinstance(name, str)
    if kind == "config_module":
        directory = search_dir(context, f"pkg://{location}", root)
    elif kind == "config_dir":
        here = run_dir(launch)
        directory = search_dir(context, location, root / here if here and not here.startswith("/") else root)
    else:
        directory = search_dir(context, location, path.parent)
    if directory is None:
        return AppProblem(f"config directory {location} of {source} is not in the repository", OUTSIDE)
    name = config_name(name) or name
    dirs = [search_dir(context, entry, root) for entry in primary_search_path(root, directory, name)]
    if any(d is None for d in dirs):
        return AppProblem(f"a config search path of {name} is not in the repository", OUTSIDE)
    return HydraApp(source, directory, name, tuple(str(d) for d in dirs), style="the compose API", root=root)


@dataclass(frozen=True)
class Runtime:
    text: str


def flag_value(launch: Launch, source: Source) -> str | Runtime | None:
    """The value of a literal, or of the first of its argparse options the launch passes (`--opt v`,
    `--opt=v`); the option's default when the launch does not pass it."""
    if source.literal is not None:
        return source.literal
    words = launch.args
    for index, (text, static) in enumerate(words):
        for option in source.options:
            value = words[index + 1] if text == option and index + 1 < len(words) else None
            if text.startswith(option + "="):
                if not static:
                    return Runtime(text)
                return text[len(option) + 1 :]
            if value is not None:
                return value[0] if value[1] else Runtime(value[0])
    return source.default
