"""The repository registry: names -> GitHub repository, local path or clone URL, PR settings.

The bundled default (bot/default_config.toml) maps `verl` to verl-project/verl; a `bot.toml` in
the working directory, or `--config FILE`, adds entries and overrides fields of existing ones.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.downstream.spec import DownstreamSpec, downstream_spec
from bot.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

OWNER_NAME = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
# What may be handed to git: never an option (a leading `-`), never a control character or space.
CLONE_URL = re.compile(r"^(?![-])[^\x00-\x20\x7f]+$")
# A branch name part as `git check-ref-format` allows it, and never an option
BRANCH_PART = re.compile(r"^(?![-/.])(?!.*(?:\.\.|//|@\{|/\.|\.lock/|\.lock$))[^\x00-\x20\x7f~^:?*\[\\]*$")
REPO_FIELDS = {"github", "path", "clone_url", "default_branch", "branch_prefix", "group", "labels", "draft",
               "title", "modules", "rule_modules", "bot_name", "bot_email", "upstream", "pins"}
# a bot.toml's own top level may name the upstream of the repository it sits in (bot.downstream.spec)
TOP_KEYS = {"defaults", "repos", "upstream", "pins"}


@dataclass(frozen=True)
class RepoConfig:
    name: str
    github: str | None  # owner/name
    path: Path | None = None
    clone_url: str | None = None
    default_branch: str | None = None
    branch_prefix: str = "bot/"
    group: str = "rule"
    labels: tuple[str, ...] = ()
    draft: bool = False
    title: str = "[{modules}] {type}: {summary}"
    modules: str = "misc"
    rule_modules: tuple[tuple[str, str], ...] = ()
    bot_name: str = "followup-bot"
    bot_email: str = "followup-bot@users.noreply.github.com"
    downstream: DownstreamSpec | None = None  # the upstream it names, and its pins

    def modules_for(self, rule_ids: list[str]) -> str:
        found: list[str] = []
        for rule_id in rule_ids:
            for pattern, module in self.rule_modules:
                if fnmatch.fnmatchcase(rule_id, pattern) and module not in found:
                    found.append(module)
        return ", ".join(found) or self.modules

    @property
    def local_only(self) -> bool:
        """A local checkout with nowhere to publish to: no `github` and no `clone_url` configured for it."""
        return self.path is not None and self.github is None and self.clone_url is None

    def fetch_url(self, api_url: str) -> str:
        if self.clone_url:
            return self.clone_url
        if self.github is None:
            raise UserError(f"repo {self.name}: expected github = \"owner/name\" or clone_url in the config")
        host = "github.com" if "api.github.com" in api_url else re.sub(r"/api/v3/?$", "", api_url)
        host = host.removeprefix("https://").removeprefix("http://").rstrip("/")
        return f"https://{host}/{self.github}.git"


@dataclass
class Config:
    repos: dict[str, RepoConfig] = field(default_factory=dict)
    source: str = "bundled"
    # a bot.toml's top-level `upstream`: for the repository at the bot.toml's directory (resolved)
    downstreams: dict[Path, DownstreamSpec] = field(default_factory=dict)

    def downstream_of(self, root: Path) -> DownstreamSpec | None:
        """The upstream a local repository names: its registry entry's, else a bot.toml's at its root."""
        here = root.resolve()
        for repo in self.repos.values():
            if repo.downstream is not None and repo.path is not None and repo.path.resolve() == here:
                return repo.downstream
        return self.downstreams.get(here)

    def resolve(self, name: str) -> RepoConfig:
        """A configured name, `owner/name`, or a local path (which may also be configured)."""
        if name in self.repos:
            return self.repos[name]
        for repo in self.repos.values():
            if repo.github == name and repo.name != "__defaults__":
                return repo
        local = Path(name)
        if local.is_dir():
            for repo in self.repos.values():
                if repo.path is not None and repo.path.resolve() == local.resolve():
                    return repo
            return RepoConfig(name=name, github=None, path=local)
        if OWNER_NAME.match(name):
            defaults = self.repos.get("__defaults__")
            base = defaults if defaults is not None else RepoConfig(name=name, github=name)
            return _replace(base, name=name, github=name)
        known = ", ".join(sorted(k for k in self.repos if k != "__defaults__")) or "none"
        raise UserError(f"--repo {name}: not a directory, not owner/name, and not in the config (known: {known})")


def _replace(base: RepoConfig, **changes: Any) -> RepoConfig:
    from dataclasses import replace

    return replace(base, **changes)


def _read(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        return data
    except OSError as exc:
        raise UserError(f"{path}: cannot read config: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: expected TOML: {exc}") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: expected a UTF-8 TOML file") from None


def _entry(path: Path, name: str, raw: Any, base: dict[str, Any]) -> RepoConfig:
    where = f"{path}: repos.{name}"
    if not isinstance(raw, dict):
        raise UserError(f"{where}: expected a table")
    unknown = set(raw) - REPO_FIELDS
    if unknown:
        expected = ", ".join(sorted(REPO_FIELDS))
        raise UserError(f"{where}.{sorted(unknown)[0]}: unknown field; expected one of {expected}")
    data = {**base, **raw}
    for key in ("github", "clone_url", "default_branch", "branch_prefix", "title", "modules", "bot_name", "bot_email"):
        if key in data and not isinstance(data[key], str):
            raise UserError(f"{where}.{key}: expected a string")
    if "github" in data and not OWNER_NAME.match(data["github"]):
        raise UserError(f"{where}.github: expected owner/name, got {data['github']!r}")
    if "clone_url" in data and not CLONE_URL.match(data["clone_url"]):
        raise UserError(f"{where}.clone_url: expected a URL or path that does not start with '-' and has no "
                        f"spaces or control characters, got {data['clone_url']!r}")
    for key in ("branch_prefix", "default_branch"):
        if key in data and not (data[key] and BRANCH_PART.match(data[key])):
            raise UserError(f"{where}.{key}: expected a git branch name (no leading '-', '/' or '.', no '..', "
                            f"spaces, '~^:?*[\\' or '@{{'), got {data[key]!r}")
    if data.get("group", "rule") not in ("rule", "all"):
        raise UserError(f"{where}.group: expected \"rule\" or \"all\"")
    labels = data.get("labels", [])
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise UserError(f"{where}.labels: expected a list of strings")
    if not isinstance(data.get("draft", False), bool):
        raise UserError(f"{where}.draft: expected true or false")
    modules = data.get("rule_modules", {})
    if not isinstance(modules, dict) or not all(isinstance(v, str) for v in modules.values()):
        raise UserError(f"{where}.rule_modules: expected a table of rule-id glob = module")
    title = data.get("title", RepoConfig.title)
    try:
        title.format(modules="m", summary="s", rule="r", rules="r", count=1, type="fix")
    except (KeyError, IndexError, ValueError) as exc:
        raise UserError(f"{where}.title: expected a template using {{modules}}, {{summary}}, {{rule}}, "
                        f"{{rules}}, {{count}}, {{type}}; {exc}") from None
    path_value = data.get("path")
    return RepoConfig(
        name=name,
        github=data.get("github"),
        path=(path.parent / path_value).resolve() if isinstance(path_value, str) else None,
        clone_url=data.get("clone_url"),
        default_branch=data.get("default_branch"),
        branch_prefix=data.get("branch_prefix", "bot/"),
        group=data.get("group", "rule"),
        labels=tuple(labels),
        draft=data.get("draft", False),
        title=title,
        modules=data.get("modules", "misc"),
        rule_modules=tuple(modules.items()),
        bot_name=data.get("bot_name", RepoConfig.bot_name),
        bot_email=data.get("bot_email", RepoConfig.bot_email),
        downstream=downstream_spec(where, raw, str(path)),
    )


def _check_tables(path: Path, data: dict[str, Any]) -> None:
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise UserError(f"{path}: {sorted(unknown)[0]}: unknown table; expected [defaults], [repos.NAME], "
                        "upstream or [[pins]]")
    if not isinstance(data.get("defaults", {}), dict):
        raise UserError(f"{path}: defaults: expected a table")
    for key in ("upstream", "pins"):
        if key in data.get("defaults", {}):
            raise UserError(f"{path}: defaults.{key}: not a default; expected it in [repos.NAME] or at the top level")
    repos = data.get("repos", {})
    if not isinstance(repos, dict) or not all(isinstance(v, dict) for v in repos.values()):
        raise UserError(f"{path}: repos: expected tables [repos.NAME]")


def load_config(explicit: Path | None = None, cwd: Path | None = None, repo: Path | None = None) -> Config:
    """Bundled registry, then the bot.toml at `repo`'s root (a downstream's own), then bot.toml (or --config),
    merged into it field by field."""
    bundled = Path(__file__).with_name("default_config.toml")
    layers = [(bundled, _read(bundled))]
    if explicit is not None and not explicit.is_file():
        raise UserError(f"--config {explicit}: no such file")
    local = explicit if explicit is not None else (cwd or Path.cwd()) / "bot.toml"
    own = repo / "bot.toml" if repo is not None else None
    if own is not None and own.is_file() and not (local.is_file() and own.samefile(local)):
        layers.append((own, _read(own)))
    if local.is_file():
        layers.append((local, _read(local)))
    defaults: dict[str, Any] = {}
    raw_repos: dict[str, tuple[Path, dict[str, Any]]] = {}
    for path, data in layers:
        _check_tables(path, data)
        defaults.update(data.get("defaults", {}))
        for name, raw in data.get("repos", {}).items():
            previous = raw_repos.get(name, (path, {}))[1]
            raw_repos[name] = (path, {**previous, **raw})
    config = Config(source=str(layers[-1][0]) if len(layers) > 1 else "bundled")
    for path, data in layers:
        spec = downstream_spec(f"{path}:", data, str(path))
        if spec is not None:
            config.downstreams[path.parent.resolve()] = spec
    config.repos["__defaults__"] = _entry(layers[-1][0], "__defaults__", {}, defaults)
    for name, (path, raw) in raw_repos.items():
        config.repos[name] = _entry(path, name, raw, defaults)
    return config
