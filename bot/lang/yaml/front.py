"""The YAML config front end: one group of settings a document, keys mapped to Hydra paths."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bot import confined
from bot.ir import DEFAULTS_LIST, SWEEP_PARAMS, Plan
from bot.lang.front import UNREADABLE, Reading, SourceUnreadable, Unit


@dataclass
class YamlFront:
    path: str
    packages: dict[str, str] | None = None  # repository path -> Hydra package, from the defaults lists
    root: Path | None = None  # the repository, where a group's new option must be (None: not asked)

    def read(self, data: bytes) -> Reading:
        from bot.lang.yaml.config import YamlProblem, config_documents, package_prefix, yaml_groups

        try:
            roots = config_documents(data)
        except YamlProblem as exc:
            raise SourceUnreadable(str(exc)) from None
        try:
            placed = self.packages is None or self.path in self.packages
            beside = None if placed or self.root is None else partial(_group_beside, self.root, self.path)
            groups = yaml_groups(data, package_prefix(data, self.path, self.packages), roots, beside)
        except RecursionError:  # self-nested beyond what the walk follows
            groups = []
        return Reading([Unit(groups, partial(_realise, self.option_exists))])

    def option_exists(self, group: str, old: str, new: str, rooted: bool) -> bool:
        """Whether `group/new.yaml` is in the group's directory: beside this config for a relative entry, the
        nearest directory up from it that holds the group (the old option's file, else the group) for a
        rooted one."""
        if self.root is None or (group.startswith("hydra/") and _hydra_core_option(group, new)):
            return True
        real_root = confined.real(self.root)  # the repository's own files only, nothing through a link out of it
        directory = posixpath.dirname(self.path)
        while True:
            base = self.root / directory / group
            is_group = confined.is_dir(real_root, base)
            if confined.is_file(real_root, base / f"{old}.yaml") or (is_group and not rooted) or (
                    rooted and is_group and confined.is_file(real_root, base / f"{new}.yaml")):
                return confined.is_file(real_root, base / f"{new}.yaml")
            if not rooted or not directory:
                return False
            directory = posixpath.dirname(directory)

    def errors(self, data: bytes) -> int:
        from bot.lang.yaml.config import yaml_errors

        return UNREADABLE if yaml_errors(data) else 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        from bot.lang.yaml.emptied import emptied

        return emptied(before, after)


def _hydra_core_option(group: str, option: str) -> bool:
    """Whether hydra-core itself ships `group/option` (`hydra/job_logging: disabled`), found without importing it."""
    from importlib.util import find_spec

    spec = find_spec("hydra")
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    return any((Path(place) / "conf" / group / f"{option}.yaml").is_file() for place in places)


def _group_beside(root: Path, path: str, group: str) -> str | None:
    """A relative entry's group as named from the config root, where its directory is beside the config: the
    config root is the nearest directory up from the file that holds a config with a defaults list (the file
    is an option of the group its own directory is), else the file's own directory (it is a primary config)."""
    directory = posixpath.dirname(path)
    real_root = confined.real(root)
    if not confined.is_dir(real_root, root / directory / group):
        return None
    above = directory
    while above:
        above = posixpath.dirname(above)
        if _holds_primary(real_root, root / above):
            return posixpath.join(posixpath.relpath(directory, above or "."), group)
    return group  # no config root above: this is the primary config


_DEFAULTS = re.compile(rb"^defaults\s*:", re.MULTILINE)


def _holds_primary(real_root: str, directory: Path) -> bool:
    """Whether a YAML config with a defaults list is in this directory (a config root has its primary there);
    the repository's own files only (bot.confined)."""
    for name, is_dir in confined.entries(real_root, directory):
        if is_dir or not name.endswith((".yaml", ".yml")):
            continue
        data = confined.read(real_root, directory / name)
        if data is not None and _DEFAULTS.search(data[:MAX_HEAD]):
            return True
    return False


MAX_HEAD = 64 * 1024


def _realise(option_exists: Callable[[str, str, str, bool], bool], plans: list[Plan]) -> None:
    """A config's plans as edits: a sweep's params are rewritten as overrides, the rest as YAML."""
    from bot.lang.yaml.defaults_list import defaults_edits
    from bot.lang.yaml.edits import realise
    from bot.lang.yaml.sweeper import sweep_edits

    realise([p for p in plans if p.group.role not in (SWEEP_PARAMS, DEFAULTS_LIST)])
    realise([p for p in plans if p.group.role == SWEEP_PARAMS], sweep_edits)
    realise([p for p in plans if p.group.role == DEFAULTS_LIST], partial(defaults_edits, option_exists=option_exists))
