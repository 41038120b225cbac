"""The upstream a downstream names, resolved: a registry name, a git URL, owner/name or a directory."""

from __future__ import annotations

import re
from pathlib import Path

from bot.config import OWNER_NAME, Config, RepoConfig
from bot.downstream.model import Upstream
from bot.downstream.spec import UpstreamSpec
from bot.errors import UserError

URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)


def resolve_upstream(config: Config, spec: UpstreamSpec, base: Path) -> Upstream:
    """`spec`'s source as the registry knows it, else a git URL, a directory (relative to `base`, the bot.toml's
    directory) or owner/name; anything else is a one-line error naming the setting."""
    source = spec.source
    entry = config.repos.get(source) if source != "__defaults__" else None
    if entry is not None:
        kind, where = _of_entry(entry)
        return _made(spec, source, where, kind)
    if URL.match(source) or (source.endswith(".git") and not (base / source).is_dir()):
        return _made(spec, source, source, "git")
    directory = base / source
    if directory.is_dir():
        return _made(spec, source, str(directory.resolve()), "path")
    if OWNER_NAME.match(source) and not source.startswith("."):
        return _made(spec, source, source, "github")
    known = ", ".join(sorted(k for k in config.repos if k != "__defaults__")) or "none"
    raise UserError(f"{spec.setting}: {source!r} is not a name in the registry (known: {known}), a directory, "
                    "a git URL or owner/name")


def _of_entry(entry: RepoConfig) -> tuple[str, str]:
    if entry.path is not None:
        return "path", str(entry.path)
    if entry.clone_url is not None:
        return "git", entry.clone_url
    if entry.github is not None:
        return "github", entry.github
    raise UserError(f"repos.{entry.name}: expected github, clone_url or path, to be an upstream")


def _made(spec: UpstreamSpec, name: str, source: str, kind: str) -> Upstream:
    packages = spec.packages or (package_name(name),)
    return Upstream(name, source, kind, packages, spec.distribution or packages[0])


def package_name(name: str) -> str:
    """The Python package an upstream's name suggests: `verl`, `verl-project/verl`, `https://host/x/verl.git`
    and `../verl` all say `verl`; `my-lib` says `my_lib`."""
    last = re.split(r"[/:]", name.rstrip("/"))[-1].removesuffix(".git")
    return re.sub(r"[^A-Za-z0-9_]", "_", last).lower() or "upstream"


def known_upstreams(config: Config, root: Path) -> dict[str, Upstream]:
    """What launches may be found to run, with no upstream named: each registry entry but the repository
    itself, by the package its name suggests."""
    found: dict[str, Upstream] = {}
    here = root.resolve()
    for name, entry in sorted(config.repos.items()):
        if name == "__defaults__" or (entry.path is not None and entry.path.resolve() == here):
            continue
        try:
            kind, where = _of_entry(entry)
        except UserError:
            continue
        package = package_name(name)
        found.setdefault(package, Upstream(name, where, kind, (package,), package, detected=True))
    return found
