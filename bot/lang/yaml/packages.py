"""Where Hydra puts a config file's keys: its `# @package` header and the defaults lists naming it.

Follows hydra-core's rules (hydra.core.default_element): a config group path in a defaults list
is relative to the including config's group unless it starts with `/`; an entry's `@package` is
relative to the including config's package (`_global_` makes it absolute); without one, the
file's header decides, else the group path does. A file with a defaults list that no other file
names is a primary config: its directory is the config root.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot import confined

HEADER = re.compile(r"^\s*#\s*@")
NO_OPTION = "\0"  # the option of a group entry that chooses none (no file has this name)
MAX_BYTES = 1024 * 1024


def header_package(data: bytes) -> str | None:
    """The `# @package` header as Hydra reads it (first 512 characters, header lines first).

    "" means the root (`_global_`), None no header (`_group_` counts as none).
    """
    text = data[:2048].decode("utf-8", "replace")[:512]
    package = None
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not HEADER.match(line):
            break
        parts = line.lstrip("#").split()
        if len(parts) == 2 and parts[0] == "@package":
            package = parts[1]
    if package is None or package == "_group_":
        return None
    return absolute(package)


def absolute(package: str) -> str:
    """Strip everything up to the last `_global_` (hydra's `_get_final_package`)."""
    at = package.rfind("_global_")
    return package if at < 0 else package[at + len("_global_") + 1 :]


def join(parent: str, package: str) -> str:
    return absolute(package if not parent else parent if not package else f"{parent}.{package}")


@dataclass(frozen=True)
class Include:
    """One defaults-list entry, resolved against its includer."""

    config: str  # config path below the config root, without .yaml
    package: str | None  # the entry's own @package, if any
    default_package: str  # from the group path as written
    override: bool
    group: str  # absolute group path ("" for a plain config entry)
    rooted: bool = False  # written from the config root (`/habitat/task: x`)


def includes(defaults: Any, base: str) -> list[Include]:
    """The entries of a defaults list; `base` is the including config's group below the root."""
    out: list[Include] = []
    for item in defaults if isinstance(defaults, list) else []:
        if isinstance(item, str):
            if item != "_self_" and "${" not in item:
                out.append(_include(item.removesuffix(".yaml"), base, None, override=False))
        elif isinstance(item, dict) and len(item) == 1:
            ((key, value),) = item.items()
            words = str(key).split()
            if not words:
                continue
            group, _, package = words[-1].partition("@")
            options = value if isinstance(value, list) else [value]
            override = "override" in words[:-1]
            if value is None or value == "???":  # no option by default (or each run gives one): the group is placed
                out.append(_group_include(group, NO_OPTION, base, package or None, override))
            for option in options:
                if isinstance(option, str) and option != "???" and "${" not in option:
                    # Hydra accepts `- env: default.yaml`; an option may be a path below the group (`layers/mlp`)
                    out.append(_group_include(group, option.removesuffix(".yaml"), base, package or None, override))
    return [i for i in out if i.config and i.config.split("/")[0] != "hydra"]


def _group_include(group: str, option: str, base: str, package: str | None, override: bool) -> Include:
    """`- group@package: option`: the option's file is below the group's directory, and its default
    package is the group's, whatever directories the option's own path has."""
    rooted = group.startswith("/")
    full_group = posixpath.normpath(group.lstrip("/") if rooted or not base else f"{base}/{group}")
    if full_group.startswith("..") or full_group == ".":
        return Include("", package, "", override, "")
    default = ".".join(s for s in group.split("/") if s not in ("", ".", ".."))
    return Include(posixpath.normpath(f"{full_group}/{option}"), package, default, override, full_group, rooted)


def _include(path: str, base: str, package: str | None, override: bool) -> Include:
    rooted = path.startswith("/")
    full = posixpath.normpath(path.lstrip("/") if rooted or not base else f"{base}/{path}")
    if full.startswith("..") or full == ".":
        full = ""
    written_group = posixpath.dirname(path.lstrip("/"))
    default = ".".join(s for s in written_group.split("/") if s not in ("", ".", ".."))
    return Include(full, package, default, override, posixpath.dirname(full), rooted)


class _Configs:
    """Config files read on demand: the defaults list of each, when it has one. Only the repository's own
    files are read (bot.confined: nothing through a link out of it), and a config that is itself a link is
    none (its target is read under its own name)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real = confined.real(root)
        self.cache: dict[str, tuple[bool, Any, str | None]] = {}

    def group_exists(self, home: str, group: str) -> bool:
        if not group:
            return False
        target = self.root.joinpath(*[p for p in (home.split("/") if home else [])], *group.split("/"))
        return confined.is_dir(self.real, target) and not target.is_symlink()

    def read(self, rel: str) -> tuple[bool, Any, str | None]:
        """(exists, defaults list or None, header package)."""
        if rel not in self.cache:
            self.cache[rel] = self._read(rel)
        return self.cache[rel]

    def _read(self, rel: str) -> tuple[bool, Any, str | None]:
        target = self.root.joinpath(*rel.split("/"))
        if target.is_symlink():
            return False, None, None
        data = confined.read(self.real, target, MAX_BYTES)
        if data is None:
            return False, None, None
        return True, _defaults(data), header_package(data)


def _defaults(data: bytes) -> Any:
    from bot.lang.yaml.fast import safe_documents

    if b"defaults" not in data:
        return None
    try:
        for doc in safe_documents(data.decode("utf-8")):
            if isinstance(doc, dict) and "defaults" in doc:
                return doc["defaults"]
    except Exception:  # a broken file has no defaults list we can trust
        return None
    return None


def yaml_packages(root: Path, paths: list[str], read: set[str] | None = None) -> dict[str, str]:
    """Repository-relative path -> Hydra package, for every config file a defaults list places.

    `read` collects every path looked at, including included configs that are not in `paths`
    (a git-ignored one, say): results that use the packages depend on those files too.
    """
    configs = _Configs(root)
    try:
        return _packages(configs, paths)
    finally:
        if read is not None:
            read.update(configs.cache)


def _packages(configs: _Configs, paths: list[str]) -> dict[str, str]:
    with_defaults = sorted(p for p in paths if configs.read(p)[1] is not None)
    named: set[str] = set()
    group_dirs: set[str] = set()
    for path in with_defaults:
        home = posixpath.dirname(path)
        for inc in includes(configs.read(path)[1], ""):
            named.add(_file(home, inc.config))
            if inc.group:
                group_dirs.add(posixpath.join(home, inc.group))
    below: dict[str, list[str]] = {}  # directory -> the configs at any depth below it
    for path in paths:
        directory = posixpath.dirname(path)
        while directory:
            below.setdefault(directory, []).append(path)
            directory = posixpath.dirname(directory)
    packages: dict[str, str] = {}
    groups: dict[tuple[str, str], list[tuple[str, Include]]] = {}  # (config root, group) -> its entries
    seen: set[tuple[str, str]] = set()
    # a config in a group's directory is an option of the group (chosen by an `override` entry, an
    # experiment config or the command line), not a primary config of its own
    todo = [(path, posixpath.dirname(path), "", configs.read(path)[2] or "") for path in with_defaults
            if path not in named and not _below_any(posixpath.dirname(path), group_dirs)]
    while todo:
        _follow(configs, todo, seen, packages, groups)
        placed_dirs = {posixpath.join(home, group) if home else group for home, group in groups if group}
        placed_dirs |= group_dirs  # a group an option not yet followed names (`model/net.yaml`: `encoder`)
        for (home, group), entries in list(groups.items()):  # every option of a placed group goes with it
            if not group or len({_final(parent, inc, None) for parent, inc in entries}) != 1:
                continue  # a group placed at several packages: which one an option is used at is unknown
            parent, inc = entries[0]
            directory = posixpath.join(home, group) if home else group
            for target in below.get(directory, []):
                if target in packages or not target.endswith(".yaml") or _in_deeper_group(target, directory,
                                                                                        placed_dirs):
                    continue
                final = _final(parent, inc, configs.read(target)[2])
                packages[target] = final
                option = posixpath.join(group, target[len(directory) + 1 : -len(".yaml")])
                todo.append((target, home, posixpath.dirname(option), final))
    return packages


def _follow(configs: _Configs, todo: list[tuple[str, str, str, str]], seen: set[tuple[str, str]],
            packages: dict[str, str], groups: dict[tuple[str, str], list[tuple[str, Include]]]) -> None:
    """Place every config the defaults lists in `todo` include, and the configs those include."""
    while todo:
        path, home, base, package = todo.pop(0)
        if (path, package) in seen:
            continue
        seen.add((path, package))
        for inc in includes(configs.read(path)[1], base):
            if inc.override:
                continue  # an option of a group another entry places: placed with its group
            root = _root_of(configs, home, inc)
            target = _file(root, inc.config)
            exists, _, header = configs.read(target)
            groups.setdefault((root, inc.group), []).append((package, inc))
            if exists:
                final = _final(package, inc, header)
                packages.setdefault(target, final)
                todo.append((target, root, posixpath.dirname(inc.config), final))


def _root_of(configs: _Configs, home: str, inc: Include) -> str:
    """The config root a rooted entry (`/habitat/task: x`) is written from: a primary config may sit in
    a directory below its app's config root (`benchmark/nav/x.yaml`), so the nearest directory up from
    it that holds the entry's file or group (else `home`)."""
    if not inc.rooted:
        return home
    directory = home
    while True:
        if configs.read(_file(directory, inc.config))[0] or configs.group_exists(directory, inc.group):
            return directory
        if not directory:
            return home
        directory = posixpath.dirname(directory)


def _in_deeper_group(target: str, directory: str, group_dirs: set[str]) -> bool:
    """Whether a config below a group's directory is an option of a group nested in it (`model/layers`
    inside `model`): the nearest group is its group."""
    parent = posixpath.dirname(target)
    while parent and parent != directory:
        if parent in group_dirs:
            return True
        parent = posixpath.dirname(parent)
    return False


def _below_any(directory: str, group_dirs: set[str]) -> bool:
    """Whether a directory is a group's directory or one below it (an option `vmas/balance` of `task`)."""
    while directory:
        if directory in group_dirs:
            return True
        directory = posixpath.dirname(directory)
    return False


def _final(parent: str, inc: Include, header: str | None) -> str:
    if inc.package is not None:
        return join(parent, inc.package)
    if header is not None:
        return header  # a header is absolute
    return join(parent, inc.default_package)


def _file(home: str, config: str) -> str:
    return posixpath.join(home, config + ".yaml") if home else config + ".yaml"


__all__ = ["header_package", "yaml_packages"]
