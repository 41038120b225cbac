"""Compose launches' overrides against the repository's own Hydra config, as Hydra would.

Composing from scratch costs tens of milliseconds per launch, so the composed base is cached
per (config dir, config name, config-group choices) and each launch's other overrides are
applied to a copy with Hydra's own override logic. Values the shell only knows at run time
become `null` placeholders, which a plain YAML config accepts, so they never cause false errors.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bot import confined
from bot.hydra.app import HydraApp
from bot.hydra.applied import Applied, ComposerCounts, IndexDisagreement
from bot.hydra.applied import message_of as _message
from bot.hydra.compose_index import FAIL
from bot.hydra.defaults_bound import DefaultsWalk, launch_choices
from bot.hydra.source import ConfigBroken, NotComposed, confined_source, hydra_over
from bot.hydra.source import entry as search_entry
from bot.hydra.stand_ins import MAX_STAND_INS, schema_stand_in, stand_in, withdraw
from bot.ir import Launch, Override


@dataclass
class ComposeStats:
    """What composing counted: of one file (bot.compose.checker), or of a scan (the files' added in order)."""

    launches: int = 0
    composed: int = 0
    readings: int = 0  # ways through the launches' branches composed (bot.compose.readings)
    known: int = 0  # failures left out because they failed before the change too (--since)
    base_composes: int = 0
    unresolved: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, reason
    stand_ins: set[str] = field(default_factory=set)  # Hydra's own group options no installed plugin gives
    # configs the repository registers under a name it computes, stood in for by an open node -> where
    schema_stand_ins: dict[str, str] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)  # config file -> why Hydra cannot compose it (one entry)

    def add(self, other: ComposeStats) -> None:
        """Another file's counts added to these (after them: the unresolved launches stay in file order)."""
        self.launches += other.launches
        self.composed += other.composed
        self.readings += other.readings
        self.known += other.known
        self.base_composes += other.base_composes
        self.unresolved.extend(other.unresolved)
        self.stand_ins |= other.stand_ins
        for missing, where in other.schema_stand_ins.items():
            self.schema_stand_ins.setdefault(missing, where)
        for path, problem in other.broken.items():
            self.broken.setdefault(path, problem)


def override_text(override: Override) -> str | None:
    """The override as Hydra's command line gets it, with a placeholder for a run-time value."""
    if override.key.startswith("hydra.") or override.key == "hydra":
        return None
    key = override.key + (f"@{override.package}" if override.package is not None else "")
    if override.value_written is None:
        return f"{override.prefix}{key}"
    if override.literal:
        return f"{override.prefix}{key}={override.value_written}"
    return f"{override.prefix}{key}=null"


def config_dirs(app: HydraApp) -> tuple[str, ...]:
    """The app's config directories, primary first, then its search path (none for the empty config)."""
    return (*(() if app.config_dir is None else (str(app.config_dir),)), *app.search_path)


def _search_override(app: HydraApp) -> str:
    """The app's search path as Hydra's `hydra.searchpath` override, each directory through the confined source."""
    root = str(app.root)
    return "hydra.searchpath=[" + ",".join(_quoted(search_entry(root, d)) for d in app.search_path) + "]"


def _quoted(text: str) -> str:
    """A string in Hydra's override grammar, quoted so that any path reads back as itself."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Composer:
    """Keeps Hydra initialised per config dir and the composed bases in a cache."""

    def __init__(self, plain_copies: bool = False, cross_check: bool | None = None) -> None:
        self.counts = ComposerCounts()
        # `plain_copies`: copy bases with OmegaConf's `copy()`, the reference for Applied.fresh_copy;
        # `cross_check`: apply what the compose index decides too (None: the environment's CROSS_CHECK)
        self.applied = Applied(self.counts, plain_copies, cross_check)
        self._bases: dict[tuple[object, ...], Any] = {}  # Hydra's composed bases (or what it raised), by _ident
        self._walks: dict[tuple[str, tuple[str, ...]], DefaultsWalk] = {}
        self._refused: list[str] = []  # what the composition under way was refused (bot.hydra.source)
        self._source: type | None = None  # Hydra's config source for this composer: made when it first composes
        self._yaml: dict[str, bytes] = {}  # each config text's config, pickled: parsed once (bot.hydra.source)
        self._data: dict[str, Any] = {}  # each config text's YAML data (bot.hydra.source)
        self._plain: dict[tuple[object, ...], dict[str, Any] | None] = {}  # bases as plain data, where they are
        self._made: dict[tuple[object, ...], Any] = {}  # plain bases made OmegaConf configs (_made_base)
        self._repos: dict[object, Any] = {}  # Hydra's caching config repository of each config dir's plain bases
        # what the scan's trees hold, by path and key: config groups, and groups that are links out of the tree
        self._groups: dict[tuple[object, ...], bool] = {}
        self._refusals: dict[tuple[object, ...], str | None] = {}
        # by app (root, config dir, search path), then override key: (names a config group, why it is refused)
        self._kinds: dict[tuple[object, ...], dict[str, tuple[bool, str | None]]] = {}
        # where the repository registers configs under a name it computes (bot.hydra.stores), while composing
        self._computed: Callable[[str], str | None] | None = None
        self._standing: dict[tuple[object, ...], dict[str, str]] = {}  # base -> its schema stand-ins' packages
        self.set_aside: list[tuple[Override, str]] = []  # failures under a schema stand-in, for the caller
        self.stats = ComposeStats()

    @contextmanager
    def computing(self, computed: Callable[[str], str | None]) -> Iterator[None]:
        """While the block runs, a config the repository may register under a name it computes (`computed` says
        where it does, or None) is stood in for by an empty, open node (bot.hydra.stand_ins)."""
        before, self._computed = self._computed, computed
        try:
            yield
        finally:
            self._computed = before

    @contextmanager
    def counting(self) -> Iterator[ComposeStats]:
        """Counts of their own while the block runs (one file's launches: a worker sends them back with the
        file's result), the composer's own again after."""
        own, self.stats = self.stats, ComposeStats()
        try:
            yield self.stats
        finally:
            self.stats = own

    def is_group(self, app: HydraApp, key: str) -> bool:
        assert app.root is not None
        ident = (app.root, app.config_dir, app.search_path, key)  # asked for each override of each launch
        if ident not in self._groups:
            relative = key.replace(".", "/")
            self._groups[ident] = "/" in key or any(confined.is_dir(str(app.root), os.path.join(d, relative))
                                                    for d in config_dirs(app))
        return self._groups[ident]

    def base(self, app: HydraApp, groups: tuple[str, ...]) -> Any:
        """The app's config with these group choices, Hydra reading only the repository's own files
        (bot.hydra.source); its search path given as absolute directories, so Hydra never resolves one
        against the bot's working directory or imports a package. Raises Hydra's error when it does not
        compose, NotComposed (ConfigBroken) when it is not asked to or cannot compose it whatever the
        launch says (remembered, like the configs that do)."""
        assert app.root is not None
        ident = self._ident(app, groups)
        if ident not in self._bases:
            search = _search_override(app)
            added: list[str] = []
            schemas: list[str] = []
            try:
                self._bound(app, groups)
            except ConfigBroken as exc:
                self._bases[ident] = exc
            try:
                for _ in range(MAX_STAND_INS + 1) if ident not in self._bases else ():
                    self._bases[ident] = self._compose(app, [*groups, search])
                    self.stats.base_composes += 1
                    made = stand_in(self._bases[ident], app, added)
                    if made is not None:
                        self.stats.stand_ins.add(made)
                        continue
                    computed = self._computed
                    made = None if computed is None else schema_stand_in(self._bases[ident], computed, added)
                    if computed is None or made is None:
                        break
                    schemas.append(made)
                    self.stats.schema_stand_ins.setdefault(made, computed(made) or "")
                if schemas and not isinstance(self._bases[ident], BaseException):
                    self._standing[ident] = self._packages(app, [*groups, search], schemas)
            finally:
                withdraw(added)  # Hydra's config store is the process's: leave it as it was
        found = self._bases[ident]
        if isinstance(found, BaseException):
            raise found
        return found

    def _packages(self, app: HydraApp, overrides: list[str], schemas: list[str]) -> dict[str, str]:
        """Where (package) each schema stand-in lands in the composed config, as Hydra's defaults list places it."""
        from hydra.core.global_hydra import GlobalHydra
        from hydra.types import RunMode

        with self._initialised(app):
            found = GlobalHydra.instance().config_loader().compute_defaults_list(
                app.config_name, overrides, RunMode.RUN)
        return {d.config_path: d.package or "" for d in found.defaults if d.config_path in schemas}

    def plain_base(self, app: HydraApp, groups: tuple[str, ...]) -> dict[str, Any] | None:
        """The app's config with these group choices as plain data (bot.hydra.plain_compose), or None where
        Hydra is to compose it (or it does not compose): only the base's Hydra composes then."""
        assert app.root is not None
        if app.config_dir is None:
            return None  # the empty config (no config directory): Hydra composes it
        ident = self._ident(app, groups)
        if ident not in self._plain:
            self._plain[ident] = None if ident in self._bases else self._compose_plain(app, groups)
        return self._plain[ident]

    def _agree_plain(self, app: HydraApp, groups: tuple[str, ...], texts: list[str], failed: list[tuple[int, str]],
                     line: int) -> None:
        """Under CROSS_CHECK: IndexDisagreement unless Hydra composes the base the plain one came from to the same
        config (its `hydra` node aside) and applying the overrides to it fails as `failed` says (index, message)."""
        from omegaconf import OmegaConf

        try:
            base = self.base(app, groups)
        except Exception as exc:
            raise IndexDisagreement(f"composed as plain data, but Hydra raises for the launch at line {line}: "
                                    f"{_message(exc)}") from None
        whole = OmegaConf.to_container(base, resolve=False)
        assert isinstance(whole, dict)
        whole.pop("hydra", None)
        if whole != self._plain[self._ident(app, groups)]:
            raise IndexDisagreement(f"Hydra composes the base of the launch at line {line} otherwise than the plain "
                                    f"composition: {app.config_name} {' '.join(groups)}")
        if self.applied.failures(base, texts, line) != failed:
            raise IndexDisagreement(f"the plain base's failures of the launch at line {line} are not Hydra's: "
                                    f"{' '.join(texts)}")

    def _plain_failures(self, app: HydraApp, groups: tuple[str, ...], texts: list[str], line: int
                        ) -> list[tuple[int, str]] | None:
        """(index, Hydra's message) of each override that fails, decided on the base composed as plain data; None
        where there is none (Hydra's composed base decides then). Where the plain index is sure, a failure it
        finds is confirmed and worded by Hydra's own override logic on the mappings on the way to its key; where
        it is not, the list is applied to the plain base made an OmegaConf config (what Hydra composes but its
        `hydra` node: values untyped, mappings and lists of no schema)."""
        plain_base = self.plain_base(app, groups)
        if plain_base is None:
            return None
        said = self.applied.plain_said(plain_base, texts)
        if said is not None and FAIL not in said:
            self.counts.indexed += 1
            failed: list[tuple[int, str]] | None = []
        else:
            failed = self.applied.confirmed(plain_base, texts, said) if said is not None else None
        if failed is None:
            failed = self.applied.failures(self._made_base(app, groups), texts, line)
        if self.applied.cross_check:
            self._agree_plain(app, groups, texts, failed, line)
        return failed

    def _made_base(self, app: HydraApp, groups: tuple[str, ...]) -> Any:
        from omegaconf import OmegaConf

        ident = self._ident(app, groups)
        if ident not in self._made:
            self._made[ident] = OmegaConf.create(self._plain[ident])
        return self._made[ident]

    @staticmethod
    def _ident(app: HydraApp, groups: tuple[str, ...]) -> tuple[object, ...]:
        return (app.config_dir, app.config_name, groups, app.search_path, app.version_base)

    def _compose_plain(self, app: HydraApp, groups: tuple[str, ...]) -> dict[str, Any] | None:
        from bot.hydra.plain_compose import defaults_list, merged

        try:
            self._bound(app, groups)
            with self._initialised(app) as source:
                source.outline = True
                key = (app.root, app.config_dir, app.search_path, app.version_base)
                try:
                    found, repo = defaults_list(app.config_name, [*groups, _search_override(app)], self._repos, key)
                finally:
                    source.outline = False
                    if self._refused:
                        self._repos.pop(key, None)  # it read what it was refused: read again, and be refused again
                data = merged(found, repo)
        except Exception:  # anything not plain, Hydra's error or the bot's refusal: Hydra's composition says
            return None
        if self._refused:
            return None
        self.counts.plain_composes += 1
        self.stats.base_composes += 1
        return data

    @contextmanager
    def _initialised(self, app: HydraApp) -> Iterator[Any]:
        """Hydra set up for the app, reading the repository through this composer's config source (which notes
        what the composition under way was refused), its warnings silenced (an app of Hydra 1.1's behaviour is
        warned about)."""
        self._refused.clear()
        self._source = self._source or confined_source(self._refused, self._yaml, self._data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with hydra_over(str(app.root), None if app.config_dir is None else str(app.config_dir), app.version_base,
                            self._source):
                yield self._source

    def _compose(self, app: HydraApp, overrides: list[str]) -> Any:
        """Hydra's composed config, or what it raised (a failure whose config read a path refused as not the
        repository's is not composed; one Hydra cannot compose whatever the launch says is broken)."""
        from hydra import compose
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        self.counts.hydra_composes += 1
        refused = self._refused
        try:
            with self._initialised(app):
                return compose(app.config_name, overrides=overrides)
        except NotComposed as exc:
            return exc
        except (HydraException, OmegaConfBaseException, ValueError) as exc:
            return NotComposed(f"its config reads {refused[0]}: not followed") if refused else exc
        except RecursionError:
            return ConfigBroken(self._primary(app), "nested too deeply for Hydra to compose (its stack ran out)")
        except Exception as exc:  # Hydra's own failure on a config it does not expect
            return ConfigBroken(self._primary(app), f"Hydra cannot compose it: {type(exc).__name__}: "
                                                    f"{_message(exc)}")

    def _bound(self, app: HydraApp, groups: tuple[str, ...]) -> None:
        """ConfigBroken when the config's defaults, or a chosen option's, cycle or nest or spread beyond the
        bound (bot.hydra.defaults_bound)."""
        assert app.root is not None
        dirs = config_dirs(app)
        walk = self._walks.setdefault((str(app.root), dirs), DefaultsWalk(str(app.root), dirs))
        walk.check([*([app.config_name] if app.config_name else []), *launch_choices(groups)])

    @staticmethod
    def _primary(app: HydraApp) -> str:
        if app.config_dir is None:  # the empty config: the app's file speaks for it
            return os.path.join(str(app.root), app.source.partition(" ")[0])
        return os.path.join(str(app.config_dir), f"{app.config_name}.yaml")

    def launch_base(self, app: HydraApp, launch: Launch) -> Any:
        """The config with the launch's own group choices, before its other overrides; None if it fails."""
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        try:
            groups, _ = self._split(app, launch)
            return self.base(app, tuple(t for _, t in groups))
        except (HydraException, OmegaConfBaseException, ValueError, NotComposed):
            return None

    def options(self, app: HydraApp, key: str) -> set[str]:
        """The options of config group `key` (its YAML files' names), in the config dir and search path."""
        assert app.root is not None
        relative = key.replace(".", "/")
        found: set[str] = set()
        for directory in config_dirs(app):
            found.update(name[: -len(".yaml")] for name, is_dir in confined.entries(
                str(app.root), os.path.join(directory, relative)) if not is_dir and name.endswith(".yaml"))
        return found

    def _refused_group(self, app: HydraApp, key: str) -> str | None:
        """A config group the key names that is there but not the repository's (a link out of it), as "path, why"."""
        ident = (app.root, app.config_dir, app.search_path, key)
        if ident not in self._refusals:
            self._refusals[ident] = self._refused_in(app, key)
        return self._refusals[ident]

    @staticmethod
    def _refused_in(app: HydraApp, key: str) -> str | None:
        root = str(app.root)
        for directory in config_dirs(app):
            path = os.path.join(directory, *key.split("."))
            why = confined.why_absent(root, path)
            if why is not None:
                return f"{os.path.relpath(path, root)}, {why}"
        return None

    def _split(self, app: HydraApp, launch: Launch, replaced: dict[int, str] | None = None,
               overrides: list[Override] | None = None
               ) -> tuple[list[tuple[Override, str]], list[tuple[Override, str]]]:
        """The launch's overrides as Hydra gets them: (config-group choices, the others); `overrides`:
        those of one combination of the script's branches (bot.lang.shell.combinations). NotComposed when one
        names a config group that is a link out of the repository."""
        seen: set[object] = set()
        plain: list[tuple[Override, str]] = []
        group_items: list[tuple[Override, str]] = []
        kinds = self._kinds.setdefault((app.root, app.config_dir, app.search_path), {})
        for override in launch.overrides if overrides is None else overrides:
            if override.key_span in seen:
                continue  # alternatives of one word (branches): the first one speaks for them
            seen.add(override.key_span)
            text = (replaced or {}).get(id(override)) or override_text(override)
            if text is None or override.key.startswith("-"):
                continue  # Hydra's own settings, or an option of the app's argument parser (`--config=x`)
            kind = kinds.get(override.key)
            if kind is None:
                kind = kinds[override.key] = (self.is_group(app, override.key), self._refused_group(app, override.key))
            is_group = kind[0] and override.prefix != "~"
            if not is_group and kind[1] is not None:
                raise NotComposed(f"its config reads {kind[1]}: not followed")
            if is_group and text.endswith("=null") and id(override) not in (replaced or {}):
                continue  # a config-group choice made at run time: the script's default choice stands
            (group_items if is_group else plain).append((override, text))
        return group_items, plain

    def failures(self, app: HydraApp, launch: Launch, replaced: dict[int, str] | None = None,
                 overrides: list[Override] | None = None) -> list[tuple[Override | None, str]]:
        """(override, Hydra's message) for each override that does not compose; None: the launch itself.
        Raises NotComposed when the config is not composed whatever the overrides (its reason says why)."""
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        group_items, plain = self._split(app, launch, replaced, overrides)
        self.stats.composed += 1
        groups = tuple(t for _, t in group_items)
        decided = self._plain_failures(app, groups, [t for _, t in plain], launch.line)
        if decided is not None:
            return [(plain[index][0], message) for index, message in decided]
        try:
            base = self.base(app, tuple(t for _, t in group_items))
        except (HydraException, OmegaConfBaseException, ValueError) as exc:
            culprit: Override | None = group_items[0][0] if group_items else None  # the config itself fails
            for override, text in group_items:  # which choice breaks it, for the finding's place
                try:
                    self.base(app, (text,))
                except (HydraException, OmegaConfBaseException, ValueError, NotComposed):
                    culprit = override
                    break
            return [(culprit, _message(exc))]
        failed = self.applied.failures(base, [text for _, text in plain], launch.line)
        standing = self._standing.get(self._ident(app, groups), {})
        found: list[tuple[Override | None, str]] = []
        for index, message in failed:
            override = plain[index][0]
            under = next((m for m, package in standing.items() if _under(override.key, package)), None)
            if under is None:
                found.append((override, message))
            else:  # the real schema may have the key: not judged
                self.set_aside.append((override, under))
        return found


def _under(key: str, package: str) -> bool:
    """Whether an override's key is at or under a package (`""`: the config's root)."""
    return not package or key == package or key.startswith(package + ".")
