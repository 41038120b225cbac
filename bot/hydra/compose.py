"""Compose every launch's overrides against the repository's own Hydra config, as Hydra would.

Composing from scratch costs tens of milliseconds per launch, so the composed base is cached
per (config dir, config name, config-group choices) and each launch's other overrides are
applied to a copy with Hydra's own override logic. Values the shell only knows at run time
become `null` placeholders, which a plain YAML config accepts, so they never cause false errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from bot.engine.isolation import DEFAULT_SECONDS, isolated
from bot.errors import UserError
from bot.hydra.app import AppProblem, HydraApp, config_name, load_yaml, resolve_app
from bot.lang.shell.launches import Launch, Override
from bot.lang.shell.parse import ShellScript
from bot.model import Edit, Finding, Report, Status
from bot.rules.model import Rule

RULE_ID = "hydra-compose"
ALREADY_THERE = "Could not append to config. An item is already at"


@dataclass
class ComposeStats:
    launches: int = 0
    composed: int = 0
    base_composes: int = 0
    unresolved: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, reason


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

    def __init__(self) -> None:
        self._bases: dict[tuple[Path, str | None, tuple[str, ...], tuple[str, ...]], Any] = {}
        self.stats = ComposeStats()

    def _is_group(self, app: HydraApp, key: str) -> bool:
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
        ident = (app.config_dir, app.config_name, groups, app.search_path)
        if ident not in self._bases:
            search = "hydra.searchpath=[" + ",".join(_quoted(f"file://{d}") for d in app.search_path) + "]"
            GlobalHydra.instance().clear()
            try:
                with initialize_config_dir(config_dir=str(app.config_dir), version_base=None):
                    self._bases[ident] = compose(app.config_name, overrides=[*groups, search])
            except (HydraException, OmegaConfBaseException, ValueError) as exc:
                self._bases[ident] = exc
            self.stats.base_composes += 1
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

    def _split(self, app: HydraApp, launch: Launch, replaced: dict[int, str] | None = None
               ) -> tuple[list[tuple[Override, str]], list[tuple[Override, str]]]:
        """The launch's overrides as Hydra gets them: (config-group choices, the others)."""
        seen: set[object] = set()
        plain: list[tuple[Override, str]] = []
        group_items: list[tuple[Override, str]] = []
        for override in launch.overrides:
            if override.key_span in seen:
                continue  # alternatives of one word (branches): the first one speaks for them
            seen.add(override.key_span)
            text = (replaced or {}).get(id(override)) or override_text(override)
            if text is None:
                continue
            is_group = self._is_group(app, override.key) and override.prefix != "~"
            if is_group and text.endswith("=null") and id(override) not in (replaced or {}):
                continue  # a config-group choice made at run time: the script's default choice stands
            (group_items if is_group else plain).append((override, text))
        return group_items, plain

    def failures(self, app: HydraApp, launch: Launch,
                 replaced: dict[int, str] | None = None) -> list[tuple[Override | None, str]]:
        """(override, Hydra's message) for each override that does not compose; None: the launch itself."""
        from hydra._internal.config_loader_impl import ConfigLoaderImpl
        from hydra.core.override_parser.overrides_parser import OverridesParser
        from hydra.errors import HydraException
        from omegaconf import OmegaConf
        from omegaconf.errors import OmegaConfBaseException

        group_items, plain = self._split(app, launch, replaced)
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
        cfg = base.copy()
        OmegaConf.set_struct(cfg, True)
        parser = OverridesParser.create()
        out: list[tuple[Override | None, str]] = []
        for override, text in plain:
            try:
                ConfigLoaderImpl._apply_overrides_to_config(parser.parse_overrides([text]), cfg)
            except (HydraException, OmegaConfBaseException) as exc:
                out.append((override, _message(exc)))
        return out


def check_script(path: str, root: Path, script: ShellScript, composer: Composer,
                 renames: list[Rename] | None = None) -> list[Finding]:
    findings: list[Finding] = []
    reported: set[object] = set()
    for launch in script.launches:
        composer.stats.launches += 1
        app = resolve_app(root, launch)
        if isinstance(app, AppProblem):
            composer.stats.unresolved.append((path, launch.line, app.reason))
            continue
        for condition, replaced in variants(script, launch):
            for override, message in composer.failures(app, launch, replaced=replaced):
                site = override.key_span if override is not None else ("launch", launch.line)
                if site in reported:
                    continue
                reported.add(site)
                if override is None:
                    finding = _launch_finding(path, script, launch, app, message)
                else:
                    finding = _finding(path, script, override, message, launch, renames or [])
                if condition:
                    finding.message += f" (when {condition})"
                findings.append(finding)
    return findings


_VARIABLE = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-[^}]*)?\}?$")


def value_variable(override: Override) -> str | None:
    """The one shell variable an override's whole value comes from, if any."""
    pieces = override.value_pieces
    if not pieces:
        return None
    defaults = {p.default_of for p in pieces if p.default_of}
    if len(defaults) == 1:
        return next(iter(defaults)).lstrip("$")
    if len(pieces) == 1 and not pieces[0].static:
        match = _VARIABLE.match(pieces[0].text)
        return match.group(1) if match else None
    chain = override.key_chain
    names = {p.via[len(chain)].var for p in pieces if len(p.via) > len(chain)}
    return next(iter(names)) if len(names) == 1 and all(len(p.via) > len(chain) for p in pieces) else None


def variants(script: ShellScript, launch: Launch) -> list[tuple[str, dict[int, str] | None]]:
    """The launch as written, then once for each value the script itself tests a variable against."""
    out: list[tuple[str, dict[int, str] | None]] = [("", None)]
    by_variable: dict[str, list[Override]] = {}
    for override in launch.overrides:
        name = value_variable(override)
        if name is not None and name in script.tested:
            by_variable.setdefault(name, []).append(override)
    for name, overrides in by_variable.items():
        for value in script.tested[name]:
            replaced = {id(o): f"{o.prefix}{o.key}={value}" for o in overrides}
            out.append((f"{name}={value}", replaced))
    return out


def _compose_file(root: Path, path: str, data: bytes, composer: Composer, renames: list[Rename],
                  report: Report) -> None:
    """One shell file's launches composed, its verified fixes and findings added to `report`."""
    from bot.engine.edits import apply_edits, outside_unchanged
    from bot.lang.shell.parse import analyse, count_errors
    from bot.model import FileChange

    script = analyse(data, path=path)
    findings = check_script(path, root, script, composer, renames)
    near = script.error_lines()
    for finding in findings:
        if finding.edits and finding.line in near:
            finding.status, finding.edits, finding.fix_site = Status.MANUAL, [], None
            finding.message += "; not edited: next to a part the shell parser could not read"
    edits = [e for f in findings if f.status is Status.FIXABLE for e in f.edits]
    change = None
    if edits:
        after = apply_edits(data, edits)
        counted = (composer.stats.launches, len(composer.stats.unresolved))
        again = check_script(path, root, analyse(after, path=path), composer, renames)
        composer.stats.launches = counted[0]
        del composer.stats.unresolved[counted[1]:]
        ok = outside_unchanged(data, after, edits) and count_errors(after) <= count_errors(data) and not any(
            f.status is Status.FIXABLE for f in again)
        if ok:
            change = FileChange(path, data, after)
        else:
            for finding in findings:
                if finding.status is Status.FIXABLE:
                    finding.status, finding.edits, finding.fix_site = Status.MANUAL, [], None
                    finding.message += "; the fix could not be verified"
    report.files_parsed += 1
    report.launches += len(script.launches)
    if script.partly_parsed:
        from bot.lang.shell.front import error_regions
        from bot.rules.parse_reach import rules_reached

        report.partly_parsed.append(path)
        report.unsure[path] = tuple(rules_reached(error_regions(script), [compose_rule()]))
    if change is not None:
        report.changes.append(change)
    report.findings.extend(findings)


def compose_scan(root: Path, label: str | None = None, since: str | None = None,
                 seconds: float | None = DEFAULT_SECONDS) -> tuple[Report, ComposeStats]:
    """Every launch of every shell file, composed; `+` fixes verified by composing again.

    A file that fails or takes too long becomes an error entry; the others are still composed.
    """
    from bot.discover import head_commit, read_source, shell_sources
    from bot.model import RuleInfo

    root = root.resolve()  # every path below is the repository's, whatever the working directory
    composer = Composer()
    renames = config_renames(root, since) if since else []
    report = Report(repo=label or str(root), commit=head_commit(root),
                    rules=[RuleInfo(RULE_ID, True, "Overrides compose with the repository's Hydra config")])
    for source in shell_sources(root, report.skipped):
        report.files_scanned += 1
        data = read_source(source, report.skipped)
        if data is None or (b"python" not in data and b"torchrun" not in data and b"PYTHON" not in data):
            continue
        counted = (composer.stats.launches, len(composer.stats.unresolved))
        work = partial(_compose_file, root, source.path, data, composer, renames, report)
        _, error = isolated(source.path, "composing", work, seconds)
        if error is not None:
            composer.stats.launches = counted[0]
            del composer.stats.unresolved[counted[1]:]
            report.errors.append(replace(error, rules=(RULE_ID,)))
    report.errors.sort(key=lambda e: e.path)
    report.findings.sort(key=Finding.sort_key)
    report.extra["compose"] = {"launches": composer.stats.launches, "base_composes": composer.stats.base_composes,
                               "unresolved": [{"path": p, "line": n, "reason": r}
                                              for p, n, r in composer.stats.unresolved]}
    return report, composer.stats


def _launch_finding(path: str, script: ShellScript, launch: Launch, app: HydraApp, message: str) -> Finding:
    """The launch's config itself does not compose (a config name that is not there, say)."""
    from bot.lang.shell.launches import line_column

    _, column = line_column(script.src, launch.site.node.start_byte)
    where = f"launch of {launch.entry} at line {launch.line}" + (f" ({launch.branch})" if launch.branch else "")
    return Finding(rule=RULE_ID, path=path, line=launch.line, column=column, key="", value=app.config_name,
                   status=Status.MANUAL, message=f"{message} [{where}]")


def _finding(path: str, script: ShellScript, override: Override, message: str, launch: Launch,
             renames: list[Rename]) -> Finding:
    where = f"launch of {launch.entry} at line {launch.line}"
    if launch.branch:
        where += f" ({launch.branch})"
    finding = Finding(rule=RULE_ID, path=path, line=override.line, column=override.column, key=override.key,
                      value=override.value_text, status=Status.MANUAL, message=f"{message} [{where}]")
    if message.startswith(ALREADY_THERE) and override.prefix == "+" and override.prefix_span is not None:
        finding.status = Status.FIXABLE
        finding.message += "; the key exists now: drop the +"
        finding.edits = [Edit(path, override.prefix_span, "", RULE_ID)]
        finding.fix_site = (path, override.line)
    rename = rename_fix(override, message, renames)
    if rename is not None and override.key_span is not None:
        new_key = override.key.rsplit(".", 1)[0] + "." + rename.new if "." in override.key else rename.new
        finding.status = Status.FIXABLE
        finding.message += f"; {rename.source} renamed {rename.old} to {rename.new}: use {new_key}"
        finding.edits = [Edit(path, override.key_span, new_key, RULE_ID)]
        finding.fix_site = (path, override.line)
    return finding


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


@dataclass(frozen=True)
class Rename:
    """A key renamed in a config file: same parent, same value, removed and added by one change."""

    parent: tuple[str, ...]  # the parent's path inside its file
    old: str
    new: str
    source: str  # file, relative to the repository


def config_renames(root: Path, before: str) -> list[Rename]:
    """Renames in the YAML files that changed between `before` and the working tree."""
    import git
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    repo = git.Repo(root)
    try:
        old_commit = repo.commit(before)
    except (git.BadName, ValueError):
        raise UserError(f"--since {before}: no such commit in {root}") from None
    out: list[Rename] = []
    for diff in old_commit.diff(None):
        path = diff.a_path or ""
        if not path.endswith((".yaml", ".yml")) or diff.deleted_file or diff.new_file:
            continue
        try:
            old = yaml.load(old_commit.tree[path].data_stream.read().decode("utf-8"))
            new = yaml.load((root / (diff.b_path or path)).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, KeyError, ValueError):
            continue
        out.extend(_renames_between(old, new, (), path))
    return out


def _renames_between(old: Any, new: Any, parent: tuple[str, ...], source: str) -> list[Rename]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return []
    found: list[Rename] = []
    removed = [k for k in old if k not in new and k != "defaults"]
    added = [k for k in new if k not in old and k != "defaults"]
    for key in removed:
        matches = [a for a in added if new[a] == old[key]]
        twins = [r for r in removed if old[r] == old[key]]
        if len(matches) == 1 and len(twins) == 1:  # unambiguous: one removed, one added, same value
            found.append(Rename(parent, str(key), str(matches[0]), source))
    for key in old:
        if key in new:
            found.extend(_renames_between(old[key], new[key], (*parent, str(key)), source))
    return found


def rename_fix(override: Override, message: str, renames: list[Rename]) -> Rename | None:
    if not message.startswith("Could not override") or override.prefix or not renames:
        return None
    *parent, leaf = override.key.split(".")
    for rename in renames:
        if rename.old == leaf and tuple(parent[len(parent) - len(rename.parent):]) == rename.parent and (
                len(parent) >= len(rename.parent)):
            return rename
    return None


def compose_rule() -> Rule:
    """The built-in rule behind compose-check findings, for reports and pull requests."""
    return Rule(
        id=RULE_ID,
        title="Launch overrides must compose with the repository's Hydra config",
        description="Each launch was composed with hydra-core against the repository's own config tree, as "
                    "Hydra would at start-up; these overrides no longer compose (a `+` on a key that now "
                    "exists, or a key that was renamed).",
        severity="error", enabled=True, source="built-in")
