"""Compose launches' overrides against the repository's own Hydra config, as Hydra would.

Composing from scratch costs tens of milliseconds per launch, so the composed base is cached
per (config dir, config name, config-group choices) and each launch's other overrides are
applied to a copy with Hydra's own override logic. Values the shell only knows at run time
become `null` placeholders, which a plain YAML config accepts, so they never cause false errors.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.hydra.app import NOT_HYDRA, AppProblem, HydraApp, config_name, load_yaml, resolve_app
from bot.hydra.entry import entry_file
from bot.hydra.not_hydra import no_hydra_reason
from bot.hydra.stand_ins import MAX_STAND_INS, stand_in, withdraw
from bot.lang.shell.launches import Launch, Override


@dataclass
class ComposeStats:
    launches: int = 0
    composed: int = 0
    readings: int = 0  # ways through the launches' branches composed (bot.engine.readings)
    known: int = 0  # failures left out because they failed before the change too (--since)
    base_composes: int = 0
    unresolved: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, reason
    stand_ins: set[str] = field(default_factory=set)  # Hydra's own group options no installed plugin gives


def override_text(override: Override) -> str | None:
    """The override as Hydra's command line gets it, with a placeholder for a run-time value."""
    if override.key.startswith("hydra.") or override.key == "hydra":
        return None
    key = override.key + (f"@{override.package}" if override.package is not None else "")
    if override.value_start is None:
        return f"{override.prefix}{key}"
    if all(p.static for p in override.value_pieces):
        return f"{override.prefix}{key}={override.value_text or ''}"
    return f"{override.prefix}{key}=null"


def _quoted(text: str) -> str:
    """A string in Hydra's override grammar, quoted so that any path reads back as itself."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _message(exc: BaseException) -> str:
    text = str(exc)
    cause = exc.__cause__
    if cause is not None and str(cause) not in text:
        text += " " + str(cause)
    return " ".join(text.split())


class Composer:
    """Keeps Hydra initialised per config dir and the composed bases in a cache."""

    def __init__(self, plain_copies: bool = False) -> None:
        self.plain_copies = plain_copies  # copy bases with OmegaConf's `copy()` (the reference for fresh_copy)
        self._bases: dict[tuple[Path, str | None, tuple[str, ...], tuple[str, ...], str | None], Any] = {}
        self._applied: dict[tuple[int, tuple[str, ...]], list[tuple[int, str]]] = {}
        self._parsed: dict[str, list[Any]] = {}
        self._pickled: dict[int, bytes] = {}
        self._parser: Any = None
        self.stats = ComposeStats()

    def is_group(self, app: HydraApp, key: str) -> bool:
        assert app.config_dir is not None
        relative = key.replace(".", "/")
        return "/" in key or any((Path(d) / relative).is_dir() for d in (str(app.config_dir), *app.search_path))

    def base(self, app: HydraApp, groups: tuple[str, ...]) -> Any:
        """The app's config with these group choices; its search path given as absolute directories,
        so Hydra never resolves one against the bot's working directory or imports a package.
        Raises Hydra's error when it does not compose (remembered, like the configs that do)."""
        from hydra import compose, initialize_config_dir
        from hydra.core.global_hydra import GlobalHydra
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        assert app.config_dir is not None
        ident = (app.config_dir, app.config_name, groups, app.search_path, app.version_base)
        if ident not in self._bases:
            search = "hydra.searchpath=[" + ",".join(_quoted(f"file://{d}") for d in app.search_path) + "]"
            added: list[str] = []
            try:
                for _ in range(MAX_STAND_INS + 1):
                    GlobalHydra.instance().clear()
                    try:
                        with warnings.catch_warnings():  # an app of Hydra 1.1's behaviour is warned about
                            warnings.simplefilter("ignore")
                            with initialize_config_dir(config_dir=str(app.config_dir), version_base=app.version_base):
                                self._bases[ident] = compose(app.config_name, overrides=[*groups, search])
                    except (HydraException, OmegaConfBaseException, ValueError) as exc:
                        self._bases[ident] = exc
                    self.stats.base_composes += 1
                    made = stand_in(self._bases[ident], app, added)
                    if made is None:
                        break
                    self.stats.stand_ins.add(made)
            finally:
                withdraw(added)  # Hydra's config store is the process's: leave it as it was
        found = self._bases[ident]
        if isinstance(found, BaseException):
            raise found
        return found

    def launch_base(self, app: HydraApp, launch: Launch) -> Any:
        """The config with the launch's own group choices, before its other overrides; None if it fails."""
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        groups, _ = self._split(app, launch)
        try:
            return self.base(app, tuple(t for _, t in groups))
        except (HydraException, OmegaConfBaseException, ValueError):
            return None

    def options(self, app: HydraApp, key: str) -> set[str]:
        """The options of config group `key` (its YAML files' names), in the config dir and search path."""
        assert app.config_dir is not None
        relative = key.replace(".", "/")
        found: set[str] = set()
        for directory in (app.config_dir, *map(Path, app.search_path)):
            group = directory / relative
            if group.is_dir():
                found.update(p.stem for p in group.glob("*.yaml") if p.is_file())
        return found

    def _split(self, app: HydraApp, launch: Launch, replaced: dict[int, str] | None = None,
               overrides: list[Override] | None = None
               ) -> tuple[list[tuple[Override, str]], list[tuple[Override, str]]]:
        """The launch's overrides as Hydra gets them: (config-group choices, the others); `overrides`:
        those of one combination of the script's branches (bot.lang.shell.combinations)."""
        seen: set[object] = set()
        plain: list[tuple[Override, str]] = []
        group_items: list[tuple[Override, str]] = []
        for override in launch.overrides if overrides is None else overrides:
            if override.key_span in seen:
                continue  # alternatives of one word (branches): the first one speaks for them
            seen.add(override.key_span)
            text = (replaced or {}).get(id(override)) or override_text(override)
            if text is None or override.key.startswith("-"):
                continue  # Hydra's own settings, or an option of the app's argument parser (`--config=x`)
            is_group = self.is_group(app, override.key) and override.prefix != "~"
            if is_group and text.endswith("=null") and id(override) not in (replaced or {}):
                continue  # a config-group choice made at run time: the script's default choice stands
            (group_items if is_group else plain).append((override, text))
        return group_items, plain

    def failures(self, app: HydraApp, launch: Launch, replaced: dict[int, str] | None = None,
                 overrides: list[Override] | None = None) -> list[tuple[Override | None, str]]:
        """(override, Hydra's message) for each override that does not compose; None: the launch itself."""
        from hydra._internal.config_loader_impl import ConfigLoaderImpl
        from hydra.errors import HydraException
        from omegaconf import OmegaConf
        from omegaconf.errors import OmegaConfBaseException

        group_items, plain = self._split(app, launch, replaced, overrides)
        self.stats.composed += 1
        try:
            base = self.base(app, tuple(t for _, t in group_items))
        except (HydraException, OmegaConfBaseException, ValueError) as exc:
            culprit: Override | None = group_items[0][0] if group_items else None  # the config itself fails
            for override, text in group_items:  # which choice breaks it, for the finding's place
                try:
                    self.base(app, (text,))
                except (HydraException, OmegaConfBaseException, ValueError):
                    culprit = override
                    break
            return [(culprit, _message(exc))]
        ident = (id(base), tuple(t for _, t in plain))
        if ident not in self._applied:  # the same texts on the same base: Hydra answers the same
            cfg = self.fresh_copy(base)
            OmegaConf.set_struct(cfg, True)
            failed: list[tuple[int, str]] = []
            for index, (_, text) in enumerate(plain):
                try:
                    ConfigLoaderImpl._apply_overrides_to_config(self._parse(text), cfg)
                except (HydraException, OmegaConfBaseException) as exc:
                    failed.append((index, _message(exc)))
            self._applied[ident] = failed
        return [(plain[index][0], message) for index, message in self._applied[ident]]

    def fresh_copy(self, base: Any) -> Any:
        """A copy of a composed base to apply overrides to. OmegaConf's own pickling round trip gives
        the same config as `base.copy()` (flags, node types, parents) at a third of its cost; the
        test suite compares the two on every fixture launch."""
        import pickle

        if self.plain_copies:
            return base.copy()
        blob = self._pickled.get(id(base))
        if blob is None:
            blob = self._pickled[id(base)] = pickle.dumps(base)
        return pickle.loads(blob)

    def _parse(self, text: str) -> list[Any]:
        """Hydra's parse of one override; parsing is pure and applying does not change the result."""
        from hydra.core.override_parser.overrides_parser import OverridesParser

        if text not in self._parsed:
            self._parser = self._parser or OverridesParser.create()
            self._parsed[text] = self._parser.parse_overrides([text])
        return self._parsed[text]


class ConfigFacts:
    """Answers `when.config` and `when.value` for launches of one repository (LaunchFacts)."""

    def __init__(self, root: Path, composer: Composer | None = None) -> None:
        self.root = root.resolve()
        self.composer = composer or Composer()

    def configs(self, launch: Launch) -> set[str] | None:
        """The launch's config and those it inherits; with --config-name set differently in branches,
        every branch's (the rule may apply in any of them)."""
        app = resolve_app(self.root, launch)
        if isinstance(app, AppProblem) or app.config_name is None or app.config_dir is None:
            return None
        dirs = (app.config_dir, *map(Path, app.search_path))
        found: set[str] = set()
        for name in {app.config_name, *(config_name(n) or "" for n in launch.config_names[1:])} - {""}:
            found |= inherited(dirs, name)
        return found

    def not_hydra(self, launch: Launch) -> str | None:
        """Why the launch runs an entry point of the repository that is no Hydra app (bot.hydra.not_hydra)."""
        app = resolve_app(self.root, launch)
        if not (isinstance(app, AppProblem) and app.kind == NOT_HYDRA):
            return None
        return no_hydra_reason(entry_file(self.root, launch), launch.entry)

    def value(self, launch: Launch, key: str) -> tuple[bool | None, Any]:
        """(whether the launch's config has the key, its value); (None, None) when it cannot be composed.

        The launch's own override of the key decides (a run-time value: the key is there, its value
        unknown); else the app's config with the launch's group choices.
        """
        from omegaconf import OmegaConf

        from bot.lang.shell.values import read_value

        app = resolve_app(self.root, launch)
        if isinstance(app, AppProblem):
            return None, None
        for override in reversed(launch.overrides):
            if override.key == key:
                if override.prefix == "~":
                    return False, None
                info = read_value(override)
                return True, info.value if info.state == "static" else None
        cfg = self.composer.launch_base(app, launch)
        if cfg is None:
            return None, None
        missing = object()
        found = OmegaConf.select(cfg, key, default=missing, throw_on_missing=False)
        if found is missing:
            return False, None
        return True, OmegaConf.to_container(found) if OmegaConf.is_config(found) else found


def inherited(config_dirs: tuple[Path, ...], name: str, seen: set[str] | None = None) -> set[str]:
    """`name` and every primary config it pulls in through plain entries of its defaults lists.

    `config_dirs`: the app's config directory, then its search path, where Hydra looks in that order.
    """
    seen = set() if seen is None else seen
    if name in seen:
        return seen
    seen.add(name)
    path = next((d / f"{name}.yaml" for d in config_dirs if (d / f"{name}.yaml").is_file()), None)
    if path is None:
        return seen
    data = load_yaml(path)
    defaults = data.get("defaults", []) if isinstance(data, dict) else []
    for entry in defaults if isinstance(defaults, list) else []:
        if isinstance(entry, str) and entry != "_self_" and "/" not in entry:
            inherited(config_dirs, entry.removeprefix("optional ").strip(), seen)
    return seen
