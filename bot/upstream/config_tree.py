"""Every app's composed config before and after an upstream change, read from git (nothing imported).

The apps are those the repository's launches run (bot.hydra.app.resolve_app over its shell-family files).
For each app whose config directories the change touches, the YAML files under them are written out at
each of the two commits and Hydra composes the app's primary config there with no override: the config a
launch that sets nothing gets. The two compositions, as plain containers (interpolations unresolved,
Hydra's own node left out), are what the change did to every key a launch can set (bot.upstream.key_changes).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import scratch

if TYPE_CHECKING:
    from bot.hydra.app import HydraApp
    from bot.hydra.compose import Composer

YAML_SUFFIXES = (".yaml", ".yml")
MAX_APPS = 32  # distinct (config dir, config name, search path) composed per change


@dataclass(frozen=True)
class AppConfig:
    """One app's primary config composed at both commits (None where it does not compose there)."""

    config_name: str
    config_dir: str  # relative to the repository
    before: dict[str, Any] | None
    after: dict[str, Any] | None


def launched_apps(tree: Path) -> list[HydraApp]:
    """The distinct Hydra apps (config dir, config name, search path) the launches of `tree` run."""
    from bot.discover import read_source, sources
    from bot.engine.context import scan_context
    from bot.hydra.app import HydraApp, resolve_app
    from bot.lang import launch_reader, shell_family
    from bot.model import Skipped

    root = tree.resolve()
    skipped: list[Skipped] = []
    packaging: list[str] = []
    listed = list(sources(root, skipped, shell_family(), packaging=packaging))
    context = scan_context(root, listed, packaging)
    found: dict[tuple[object, ...], HydraApp] = {}
    for source in listed:
        data = read_source(source, skipped)
        if data is None:
            continue
        try:
            views = launch_reader(source.path, source.kind, context).launch_views(data)
        except Exception:
            continue
        for read in views:
            for launch in read.launches:
                try:
                    app = resolve_app(context, launch, explain=False)
                except Exception:
                    continue
                if not isinstance(app, HydraApp) or app.config_dir is None or app.config_name is None:
                    continue
                key = (app.config_dir, app.config_name, app.search_path, app.version_base)
                found.setdefault(key, app)
    return [found[key] for key in sorted(found, key=str)][:MAX_APPS]


def _relative(app: HydraApp) -> list[str]:
    assert app.root is not None and app.config_dir is not None
    dirs = [app.config_dir, *(Path(p) for p in app.search_path)]
    out = []
    for directory in dirs:
        try:
            out.append(Path(directory).resolve().relative_to(app.root.resolve()).as_posix())
        except ValueError:
            continue  # a search path out of the repository: not the change's
    return out


def touched(app: HydraApp, paths: list[str]) -> bool:
    """Whether the change edits a YAML file under one of the app's config directories."""
    dirs = _relative(app)
    return any(path.endswith(YAML_SUFFIXES) and any(d in ("", ".") or path.startswith(d + "/") for d in dirs)
               for path in paths)


def write_configs(history: Path, commit: str, dirs: list[str], into: Path) -> None:
    """The YAML files under `dirs` at `commit` written under `into` (the repository's layout)."""
    import git

    with git.Repo(history) as repo:
        tree = repo.commit(commit).tree
        for directory in sorted(set(dirs)):
            try:
                top: Any = tree if directory in ("", ".") else tree / directory
            except KeyError:
                continue  # no such directory at that commit
            for blob in top.traverse():
                path = str(blob.path)
                if blob.type != "blob" or not path.endswith(YAML_SUFFIXES) or blob.mode == 0o120000:
                    continue
                target = into / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blob.data_stream.read())


def composed(app: HydraApp, root: Path, composer: Composer) -> dict[str, Any] | None:
    """The app's primary config composed with no override in the tree at `root` (its dirs rebased there), as
    plain data where its configs are plain YAML (bot.hydra.plain_compose), else by Hydra."""
    from omegaconf import OmegaConf

    assert app.root is not None and app.config_dir is not None
    base = app.root.resolve()

    def rebased(directory: Path | str) -> Path:
        return root / Path(directory).resolve().relative_to(base)

    try:
        moved = replace(app, root=root, config_dir=rebased(app.config_dir),
                        search_path=tuple(str(rebased(p)) for p in app.search_path))
        plain = composer.plain_base(moved, ())
        data: Any = (OmegaConf.to_container(composer.base(moved, ()), resolve=False) if plain is None
                     else copy.deepcopy(plain))  # the composer's own, copied
    except Exception:  # Hydra's error: nothing to compare
        return None
    if not isinstance(data, dict):
        return None
    data.pop("hydra", None)
    return {str(k): v for k, v in data.items()}


def app_configs(history: Path, tree: Path, before: str, after: str, paths: list[str]) -> list[AppConfig]:
    """The composed config of every app of `tree` whose config directories the change (`paths`) touches, at
    `before` and at `after` (commits of `history`)."""
    apps = [app for app in launched_apps(tree) if touched(app, paths)]
    if not apps:
        return []
    dirs = [d for app in apps for d in _relative(app)]
    from bot.hydra.compose import Composer

    out = []
    composers = Composer(), Composer()  # one per tree: each reads a config file once for every app
    with scratch.temporary_directory("bot-config-tree-") as written:
        old, new = Path(written) / "before", Path(written) / "after"
        for commit, into in ((before, old), (after, new)):
            into.mkdir()
            write_configs(history, commit, dirs, into)
        for app in apps:
            assert app.config_name is not None and app.config_dir is not None and app.root is not None
            relative = Path(app.config_dir).resolve().relative_to(app.root.resolve()).as_posix()
            out.append(AppConfig(app.config_name, relative, composed(app, old.resolve(), composers[0]),
                                 composed(app, new.resolve(), composers[1])))
    return out
