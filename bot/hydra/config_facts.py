"""`when.config` and `when.value` for launches of one repository: which configs a launch composes, and what
its composed config holds (bot.hydra.compose), read from the repository's own files (bot.confined)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import confined
from bot.hydra.app import NOT_HYDRA, AppProblem, config_name, resolve_app
from bot.hydra.compose import Composer
from bot.hydra.config_files import load_yaml
from bot.hydra.entry import entry_file
from bot.hydra.entry_imports import EntryImports
from bot.hydra.not_hydra import no_hydra_reason
from bot.ir import Launch

if TYPE_CHECKING:
    from bot.context import ScanContext


class ConfigFacts:
    """Answers `when.config` and `when.value` for launches of one repository (LaunchFacts), with the scan's
    apps and composer."""

    def __init__(self, context: ScanContext, composer: Composer) -> None:
        self.context = context
        self.root = context.root
        self.composer = composer
        self._entry_imports: EntryImports | None = None

    def loads(self, launch: Launch) -> set[str] | None:
        """The modules the launch's entry point loads through its imports (`when.imports`); None unknown."""
        if self._entry_imports is None:
            self._entry_imports = EntryImports(self.context)
        return self._entry_imports.loads(launch)

    def configs(self, launch: Launch) -> set[str] | None:
        """The launch's config and those it inherits; with --config-name set differently in branches,
        every branch's (the rule may apply in any of them)."""
        app = resolve_app(self.context, launch)
        if isinstance(app, AppProblem) or app.config_name is None or app.config_dir is None:
            return None
        dirs = (app.config_dir, *map(Path, app.search_path))
        found: set[str] = set()
        for name in {app.config_name, *(config_name(n) or "" for n in launch.config_names[1:])} - {""}:
            found |= inherited(str(self.root), dirs, name)
        return found

    def not_hydra(self, launch: Launch) -> str | None:
        """Why the launch runs an entry point of the repository that is no Hydra app (bot.hydra.not_hydra)."""
        app = resolve_app(self.context, launch)
        if not (isinstance(app, AppProblem) and app.kind == NOT_HYDRA):
            return None
        return no_hydra_reason(entry_file(self.context, launch), launch.entry)

    def value(self, launch: Launch, key: str) -> tuple[bool | None, Any]:
        """(whether the launch's config has the key, its value); (None, None) when it cannot be composed.

        The launch's own override of the key decides (a run-time value: the key is there, its value
        unknown); else the app's config with the launch's group choices.
        """
        from omegaconf import OmegaConf

        app = resolve_app(self.context, launch)
        if isinstance(app, AppProblem):
            return None, None
        for override in reversed(launch.overrides):
            if override.key == key:
                if override.prefix == "~":
                    return False, None
                return True, override.value if override.state == "static" else None
        cfg = self.composer.launch_base(app, launch)
        if cfg is None:
            return None, None
        missing = object()
        found = OmegaConf.select(cfg, key, default=missing, throw_on_missing=False)
        if found is missing:
            return False, None
        return True, OmegaConf.to_container(found) if OmegaConf.is_config(found) else found


def inherited(root: str, config_dirs: tuple[Path, ...], name: str) -> set[str]:
    """`name` and every primary config it pulls in through plain entries of its defaults lists.

    `config_dirs`: the app's config directory, then its search path, where Hydra looks in that order;
    `root`: the repository (its real path), whose own files alone are read (bot.confined).
    """
    seen: set[str] = set()
    pending = [name]
    while pending:  # a cycle or a long chain of includes is walked once, without recursion
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        path = next((d / f"{current}.yaml" for d in config_dirs if confined.is_file(root, d / f"{current}.yaml")), None)
        data = load_yaml(root, path) if path is not None else None
        defaults = data.get("defaults", []) if isinstance(data, dict) else []
        for entry in defaults if isinstance(defaults, list) else []:
            if isinstance(entry, str) and entry != "_self_" and "/" not in entry:
                pending.append(entry.removeprefix("optional ").strip())
    return seen
