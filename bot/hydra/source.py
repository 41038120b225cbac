"""Hydra's view of a repository's config tree: a config source that reads only the tree's own files.

Hydra's own file source opens whatever a config directory holds, symlinks and `../` included. Every
directory the bot hands Hydra (the app's config directory, its search path) is read through
`ConfinedSource` instead: a config or group is there only when it is a regular file or a directory of
the repository (bot.confined): a name whose `..` climbs out of the repository names nothing. What Hydra asked
for and was refused is noted in the list its composer hands `confined_source`, so a launch that fails for want
of it says why instead of being blamed.

Hydra's own state is the process's (GlobalHydra, the config sources registered, the version base): the
composer that composes sets it up for one composition and `hydra_over` puts it back as it was after.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from bot import confined
from bot.hydra.hydra_steps import quicker_steps

if TYPE_CHECKING:
    from hydra.core.object_type import ObjectType

SCHEME = "bot-confined"
MAX_BYTES = 4 * 1024 * 1024  # a config file larger than this is no config the bot composes


class NotComposed(Exception):
    """A launch's config is not composed, for a reason that is the bot's rule, not Hydra's verdict."""


class ConfigBroken(NotComposed):
    """A config file of the repository that Hydra cannot compose, whatever the launch chooses: reported once."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path  # absolute
        self.problem = problem


def entry(root: str, directory: str) -> str:
    """The search path entry through which Hydra reads `directory` of the tree `root` (both real paths)."""
    rel = confined.relative(root, directory)
    assert rel is not None, f"{directory} is not in {root}"
    return f"{SCHEME}://{root}//{rel}"


def confined_source(refused: list[str], parsed: dict[str, bytes] | None = None,
                    data: dict[str, Any] | None = None) -> type:
    """A config source class reading only the tree's own files, which notes in `refused` what it was asked for
    and refused, as "path, why" (one per composer: what the composition under way was refused). `parsed`: the
    config made of each config text it has read, pickled, by the text (the composer's, so each of a run's config
    files is parsed once however many bases read it; Hydra gets a copy of its own each time)."""
    return type("ConfinedSource", (_source_class(),), {"refused": refused,
                                                       "parsed": {} if parsed is None else parsed,
                                                       "data": {} if data is None else data,
                                                       "outlines": {}})


@contextmanager
def hydra_over(root: str, config_dir: str | None, version_base: str | None, source: type) -> Iterator[None]:
    """Hydra initialised with the tree's `config_dir` as its primary config directory, read with `source`
    (what `hydra.initialize_config_dir` does, with a confined_source in place of Hydra's file source; None: no
    primary directory, as `hydra.main(config_path=None)` runs); Hydra's
    process state (GlobalHydra, the source registered for the scheme, the version base) restored after."""
    from hydra import version
    from hydra._internal.hydra import Hydra
    from hydra._internal.sources_registry import SourcesRegistry
    from hydra._internal.utils import create_config_search_path
    from hydra.core.global_hydra import GlobalHydra

    registry, global_hydra, base = SourcesRegistry.instance(), GlobalHydra.instance(), version.VersionBase.instance()
    before = (registry.types.get(SCHEME), global_hydra.hydra, base.version_base)
    registry.types[SCHEME] = source
    global_hydra.clear()
    try:
        version.setbase(version_base)
        with quicker_steps():
            Hydra.create_main_hydra2(task_name="app",
                                     config_search_path=create_config_search_path(
                                         None if config_dir is None else entry(root, config_dir)))
            yield
    finally:
        if before[0] is None:
            registry.types.pop(SCHEME, None)
        else:
            registry.types[SCHEME] = before[0]
        global_hydra.hydra, base.version_base = before[1], before[2]


@lru_cache(maxsize=1)
def _source_class() -> type:
    """The source class, made once: hydra-core is imported only when something is composed."""
    from hydra._internal.core_plugins.file_config_source import FileConfigSource

    class ConfinedSource(FileConfigSource):
        """Hydra's file source, reading only regular files and directories of one tree."""

        refused: list[str]  # what it was asked for and refused (a subclass per composer: confined_source)
        parsed: dict[str, bytes]  # the config of each text, pickled (a subclass per composer: confined_source)
        data: dict[str, Any]  # the YAML data of each text (never changed: bot.hydra.plain_compose merges copies)
        outline = False  # load only what a defaults list is worked out from (bot.hydra.plain_compose)
        outlines: dict[str, bytes]  # each text's outline, pickled (a subclass per composer: confined_source)

        def __init__(self, provider: str, path: str) -> None:
            super().__init__(provider=provider, path=path)
            root, _, rel = self.path.partition("//")
            self.root = root
            self.path = os.path.join(root, rel) if rel else root  # Hydra's messages name the directory

        @staticmethod
        def scheme() -> str:
            return SCHEME

        def __repr__(self) -> str:
            return f"provider={self.provider}, path=file://{self.path}"

        def full_path(self) -> str:
            return f"file://{self.path}"

        def _target(self, config_path: str) -> str | None:
            """The path Hydra's file source would open (`critic/../engine/fsdp.yaml` too: resolved as Hydra
            resolves it, and then it must be the tree's, bot.confined)."""
            if config_path.startswith("/") or "\0" in config_path:
                return None
            return os.path.join(self.path, *[p for p in config_path.split("/") if p not in ("", ".")])

        def _there(self, config_path: str, directory: bool, note: bool = True) -> bool:
            return _there(self, config_path, directory, note)

        def load_config(self, config_path: str) -> Any:
            return _load(self, config_path)

        def available(self) -> bool:
            return self._there("", directory=True)

        def is_group(self, config_path: str) -> bool:
            return self._there(config_path, directory=True)

        def is_config(self, config_path: str) -> bool:
            return self._there(self._normalize_file_name(config_path), directory=False)

        def list(self, config_path: str, results_filter: ObjectType | None) -> list[str]:
            return _listed(self, config_path, results_filter)

    return ConfinedSource


def _load(source: Any, config_path: str) -> Any:
    """Hydra's ConfigResult of one config file of the tree (ConfigBroken for one too large, not UTF-8 or no YAML)."""
    from hydra.plugins.config_source import ConfigResult, ConfigSource

    target, text = _text(source, config_path)
    header = ConfigSource._get_header_dict(text[:512])
    cfg = _outline(source, target, text) if source.outline else _config(source, target, text)
    return ConfigResult(config=cfg, path=f"file://{source.path}", provider=source.provider, header=header)


def is_repository_source(source: Any) -> bool:
    """Whether a config source of Hydra's is the bot's reading of the repository's own files."""
    return isinstance(source, _source_class())


def yaml_data(source: Any, config_path: str) -> Any:
    """The YAML data of one config file of the tree, as OmegaConf's loader reads it, parsed once per text for
    the composer (never to be changed: bot.hydra.plain_compose merges copies); ConfigBroken as for Hydra's load."""
    target, text = _text(source, config_path)
    return _yaml(source, target, text)


def _yaml(source: Any, target: str, text: str) -> Any:
    if text not in source.data:
        source.data[text] = _parsed(target, text)
    return source.data[text]


def _text(source: Any, config_path: str) -> tuple[str, str]:
    """(the file, its text) of one config of the source's tree."""
    from hydra.plugins.config_source import ConfigLoadError

    normalized = source._normalize_file_name(config_path)
    target = source._target(normalized)
    data = confined.read(source.root, target, MAX_BYTES) if target is not None else None
    if target is not None and data is None and confined.is_file(source.root, target):
        raise ConfigBroken(target, f"larger than {MAX_BYTES // (1024 * 1024)} MB: not read")
    if data is None or target is None:
        raise ConfigLoadError(f"Config not found : {target or normalized}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigBroken(target, f"not UTF-8 (byte {exc.start})") from None
    return target, text


def _there(source: Any, config_path: str, directory: bool, note: bool) -> bool:
    """Whether the source's config (or group: `directory`) is a file (directory) of the tree; what is there but
    not the tree's is noted in the source's `refused` when `note`."""
    target = source._target(config_path)
    if target is None:
        return False
    found = confined.is_dir(source.root, target) if directory else confined.is_file(source.root, target)
    if not found and note:
        why = confined.why_absent(source.root, target)
        if why is not None and os.path.isdir(target) == directory:
            source.refused.append(f"{os.path.relpath(target, source.root)}, {why}")
    return found


def _listed(source: Any, config_path: str, results_filter: ObjectType | None) -> list[str]:
    """The groups and configs of a group of the source, as Hydra's file source lists them."""
    from hydra.core.object_type import ObjectType

    target = source._target(config_path)
    found: list[str] = []
    for name, is_directory in confined.entries(source.root, target) if target is not None else []:
        if name in ("__pycache__", "__init__.py"):
            continue
        inner = f"{config_path}/{name}" if config_path else name
        if is_directory and results_filter in (None, ObjectType.GROUP):
            found.append(name)
        if (not is_directory and results_filter in (None, ObjectType.CONFIG)
                and _there(source, source._normalize_file_name(inner), directory=False, note=False)):
            found.append(name[: name.rfind(".")] if "." in name else name)
    return sorted(set(found))


def _outline(source: Any, target: str, text: str) -> Any:
    """What Hydra reads of a config while it works out a defaults list: its `defaults` and `hydra` keys (the
    search path), and whether it has content of its own (a key besides `defaults` that is not `???`: one such
    key stands for them all); the rest is merged from the YAML data (bot.hydra.plain_compose)."""
    import pickle

    from omegaconf import OmegaConf

    blob = source.outlines.get(text)
    if blob is not None:
        return pickle.loads(blob)  # a copy of its own: Hydra takes the defaults list out
    data = _yaml(source, target, text)
    if isinstance(data, dict):
        outline = {key: data[key] for key in ("defaults", "hydra") if key in data}
        content = next((k for k, v in data.items() if k != "defaults" and v != "???"), None)
        if content is not None and "hydra" not in outline:
            outline[content] = None
        data = outline
    made = OmegaConf.create(data)
    with contextlib.suppress(RecursionError):
        source.outlines[text] = pickle.dumps(made)
    return made


def _config(source: Any, target: str, text: str) -> Any:
    """The config OmegaConf.load makes of a config file's text; ConfigBroken when it is no YAML or nests too
    deeply. Made once per composer (`parsed`: each text's config, pickled): Hydra changes the config it loads
    (it takes the defaults list out), so each load gets a copy of its own, which OmegaConf's pickling round
    trip makes at a tenth of the cost of making it from the YAML data."""
    import pickle

    from omegaconf import OmegaConf

    blob = source.parsed.get(text)
    if blob is not None:
        return pickle.loads(blob)
    try:
        cfg = OmegaConf.create(_yaml(source, target, text))
    except RecursionError:
        raise ConfigBroken(target, "nested too deeply to load") from None
    with contextlib.suppress(RecursionError):  # else not kept: made from the text each time
        source.parsed[text] = pickle.dumps(cfg)
    return cfg


def _parsed(target: str, text: str) -> Any:
    """The YAML data of a config file's text; ConfigBroken when it is no YAML or nests too deeply."""
    try:
        return _data(text)
    except RecursionError:
        raise ConfigBroken(target, "nested too deeply to load") from None
    except Exception as exc:  # a YAML error of the file's own (the loader's types vary)
        if type(exc).__module__.split(".")[0] not in ("yaml", "ruamel"):
            raise
        message = " ".join(str(exc).replace(' in "<file>"', "").split())
        raise ConfigBroken(target, f"does not parse as YAML: {message}") from None


def _data(text: str) -> Any:
    """What OmegaConf.load reads from the text (an empty mapping for an empty file): libyaml parses it with
    OmegaConf's own resolvers and constructors, some seven times faster; a text libyaml refuses is read by
    OmegaConf's loader itself, for its verdict and its message."""
    import yaml  # type: ignore[import-untyped]
    from omegaconf._utils import get_yaml_loader

    quick = _quick_loader()
    try:
        data = yaml.load(text, Loader=quick) if quick is not None else None
    except Exception:
        quick = None
    if quick is None:
        data = yaml.load(io.StringIO(text), Loader=get_yaml_loader())
    if data is not None and not isinstance(data, (list, dict, str)):
        raise OSError(f"Invalid loaded object type: {type(data).__name__}")
    return {} if data is None else data


@lru_cache(maxsize=1)
def _quick_loader() -> type | None:
    """OmegaConf's YAML loader with libyaml's parser in place of PyYAML's pure-Python one (the same resolvers,
    constructors and duplicate-key check); None without libyaml."""
    try:
        from yaml._yaml import CParser  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - PyYAML built without libyaml
        return None
    from omegaconf._utils import get_yaml_loader
    from yaml.constructor import SafeConstructor  # type: ignore[import-untyped]
    from yaml.resolver import Resolver  # type: ignore[import-untyped]

    def __init__(self: Any, stream: Any) -> None:
        CParser.__init__(self, stream)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)

    return type("QuickOmegaConfLoader", (CParser, get_yaml_loader()), {"__init__": __init__})
