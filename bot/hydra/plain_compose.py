"""A composed base as plain data: Hydra's own defaults list, the configs merged here as OmegaConf would.

Hydra's compose spends about two thirds of its time merging the configs its defaults list names into
OmegaConf nodes (copying each). Here Hydra still reads the config, parses the overrides and works out the
defaults list (every choice, package, `_self_`, interpolation in the defaults and error of its own), and the
configs' YAML data is merged into plain dicts and lists the way OmegaConf merges untyped configs: a
mapping into a mapping key by key, anything else in place of what was there, `???` leaving a value that is
there. What such a base holds is what Hydra's composed config holds but its `hydra` node
(the real-world check compares the two for every base: bot.hydra.applied.CROSS_CHECK).

Only configs that are the repository's plain YAML files are merged here. Anything whose composition OmegaConf
decides otherwise is `None`, and the composer asks Hydra instead: a config of the app's own under Hydra's
node (`hydra:` keys, a `hydra/...` option of its own), a structured config or schema, a command-line value
that is not a group choice, a mapping merged with a list, a key or value YAML types otherwise than as a
string, number, bool, null, list or mapping, and any error.
"""

from __future__ import annotations

from typing import Any

MISSING = "???"
_SCALARS = (str, int, float, bool, type(None))


class NotPlain(Exception):
    """OmegaConf would decide this merge otherwise than plain data does (or raise): Hydra composes it."""


def defaults_list(config_name: str | None, overrides: list[str], repos: dict[object, Any], key: object
                  ) -> tuple[Any, Any]:
    """(Hydra's defaults list, the config repository it read) for the app Hydra is initialised with (under
    bot.hydra.source.hydra_over), as Hydra's compose works them out before it merges, its checks included.
    Hydra's own node (its `hydra/config` and the options that chooses) is left out where nothing of the app's
    names Hydra's groups: worked out again with it otherwise.
    `repos`: Hydra's caching config repository by `key`, the caller's, one per config dir and search path (with the
    config names it was set up for): Hydra's search path is the `hydra.searchpath` override the caller gives (the
    app's), whatever a primary config says, so the bases of every config name there read each config once."""
    from hydra._internal.config_repository import CachingConfigRepository
    from hydra._internal.defaults_list import create_defaults_list
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.types import RunMode

    loader: Any = GlobalHydra.instance().config_loader()
    loader.ensure_main_config_source_available()
    parsed = OverridesParser.create().parse_overrides(overrides=overrides)
    repo, primaries = repos.get(key) or (None, set[str | None]())
    if repo is None:
        repo = CachingConfigRepository(loader.repository)
        repos[key] = (repo, primaries)
    if config_name not in primaries:  # the search path is the command line's (the app's): the same for every name
        loader._process_config_searchpath(config_name, parsed, repo)
        primaries.add(config_name)
    loader.validate_sweep_overrides_legal(overrides=parsed, run_mode=RunMode.RUN, from_shell=True)
    try:  # first without Hydra's own node, which the app's part does not depend on unless it names its groups
        found = create_defaults_list(repo=repo, config_name=config_name, overrides_list=parsed, prepend_hydra=False,
                                     skip_missing=False)
        if not any(_under_hydra(default.package) for default in found.defaults):
            return found, repo
    except Exception:  # Hydra's node may be what it lacks: worked out again with it, as Hydra does
        pass
    found = create_defaults_list(repo=repo, config_name=config_name, overrides_list=parsed, prepend_hydra=True,
                                 skip_missing=False)
    return found, repo


def _under_hydra(package: str | None) -> bool:
    return package is not None and (package == "hydra" or package.startswith("hydra."))


def merged(found: Any, repo: Any) -> dict[str, Any]:
    """The app's part of the config the defaults list composes (`hydra` left out), from the YAML data of the
    repository's config files (bot.hydra.source); NotPlain where Hydra is to compose it."""
    from hydra.core.object_type import ObjectType

    from bot.hydra.source import is_repository_source, yaml_data

    if any(not override.is_hydra_override() for override in found.config_overrides):
        raise NotPlain("command-line values besides group choices")
    schema = repo.get_schema_source()
    out: dict[str, Any] = {}
    for default in found.defaults:
        if default.package is None:
            raise NotPlain("a config placed by its header alone")
        package = default.package
        source = repo.delegate._find_object_source(default.config_path, ObjectType.CONFIG)
        if package == "hydra" or package.startswith("hydra."):
            if is_repository_source(source):
                raise NotPlain("a config of the app's own under Hydra's node")
            continue
        if not is_repository_source(source) or schema.is_config(default.config_path):
            raise NotPlain("a structured config or schema")
        data = yaml_data(source, default.config_path)
        if not isinstance(data, dict):
            raise NotPlain("a config that is no mapping")
        body = {key: value for key, value in data.items() if key != "defaults"}
        for part in reversed([p for p in package.split(".") if p]):
            body = {part: body}
        if "hydra" in body:
            _check_hydra_settings(body.pop("hydra"), default.primary)
        merge_into(out, body)
    return out


# What a config of the app may set of Hydra's node and still be merged here: settings Hydra's own config
# takes as they are written (strings; `job.chdir` a bool or null), the search path only in the primary config
_HYDRA_SETTINGS: dict[tuple[str, ...], tuple[type, ...]] = {
    ("run", "dir"): (str,), ("sweep", "dir"): (str,), ("sweep", "subdir"): (str,), ("job", "name"): (str,),
    ("job", "chdir"): (bool, type(None)), ("output_subdir",): (str, type(None)),
}


def _check_hydra_settings(settings: Any, primary: bool) -> None:
    """NotPlain unless the `hydra` mapping of a config sets only what Hydra's node takes as written."""
    if not isinstance(settings, dict):
        raise NotPlain("a config setting Hydra's node")
    for key, value in settings.items():
        if key == "searchpath" and primary and isinstance(value, list) and all(isinstance(v, str) for v in value):
            continue  # Hydra read it already, to find the configs
        inner = value.items() if isinstance(value, dict) else [(None, value)]
        for name, item in inner:
            path = (key,) if name is None else (key, name)
            if not isinstance(item, _HYDRA_SETTINGS.get(path, ())) or (name is None and isinstance(value, dict)):
                raise NotPlain("a config setting Hydra's node")


def merge_into(dest: dict[str, Any], src: dict[str, Any]) -> None:
    """`src` merged into `dest` as OmegaConf merges two untyped mappings (src's values copied)."""
    for key, value in src.items():
        if not isinstance(key, str):
            raise NotPlain("a key that is not a string")
        if key not in dest:
            dest[key] = copied(value)
        else:
            dest[key] = _merged(dest[key], value)


def _merged(dest: Any, src: Any) -> Any:
    if isinstance(src, dict):
        if isinstance(dest, dict):
            merge_into(dest, src)
            return dest
        if isinstance(dest, list):
            raise NotPlain("a mapping merged into a list")
        return copied(src)
    if isinstance(src, list) and isinstance(dest, dict):
        raise NotPlain("a list merged into a mapping")
    if isinstance(src, str) and src == MISSING:
        return dest  # a value that is there stays
    return copied(src)


def copied(value: Any) -> Any:
    """A copy of YAML data made of mappings with string keys, lists and plain values; NotPlain for others."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotPlain("a key that is not a string")
            out[key] = copied(item)
        return out
    if isinstance(value, list):
        return [copied(item) for item in value]
    if not isinstance(value, _SCALARS):
        raise NotPlain(f"a {type(value).__name__} value")
    return value
