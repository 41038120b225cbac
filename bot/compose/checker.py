"""compose-check as a checker: every launch of a file, as its front end read them, composed with the
repository's Hydra config.

The engine's check (bot.engine.check) runs it on the file's reading: the launch views of the file's own
front end (bot.lang.front.LaunchReader), so what the rules' evaluator and the judge have parsed is not
parsed again. Its findings take the engine's one path to a change (bot.engine.settle), whose second look
at an edited text is `again`: composing it. What it counts (launches, ways, launches not composed) is the
file's own (`Composer.counting`), so a worker sends it back with the file's result.
"""

from __future__ import annotations

import importlib
from collections.abc import Container
from dataclasses import dataclass, field

from bot.compose.context import ComposeContext
from bot.compose.findings import compose_rule
from bot.compose.launches import check_script
from bot.hydra.app import HydraApp, resolve_app
from bot.hydra.compose import ComposeStats
from bot.hydra.inputs import ChangedPaths
from bot.hydra.messages import in_repository_terms
from bot.hydra.renames import Rename
from bot.lang.front import LaunchReader, LaunchView
from bot.model import FileError, FileResult, Finding, Skipped, Status

Key = tuple[str, str, str | None]  # path, key and value of a failing override

# what composing a file imports besides this module's own imports: the shell family's front end and parser,
# Hydra's compose with its override grammar and defaults lists, OmegaConf
_COMPOSING = ("bot.lang.shell.front", "bot.lang.shell.combinations", "bot.lang.embedded.views",
              "bot.lang.embedded.workflow", "bot.lang.embedded.blocks", "bot.lang.yaml.packages", "bot.lang.yaml.fast",
              "ruamel.yaml", "tree_sitter", "tree_sitter_bash", "bot.hydra.api_app", "bot.hydra.group_keys",
              "bot.hydra.plain_compose", "bot.hydra.plain_index", "hydra.compose", "hydra.initialize",
              "hydra._internal.hydra", "hydra._internal.config_loader_impl", "hydra._internal.defaults_list",
              "hydra.core.override_parser.overrides_parser", "omegaconf", "omegaconf._impl")


def load_composing() -> None:
    """Import what composing a file will, and let Hydra find its plugins: workers forked after this inherit it
    all instead of each doing it again (about 0.15 s of CPU a worker)."""
    for name in _COMPOSING:
        importlib.import_module(name)
    from hydra.core.plugins import Plugins

    Plugins.instance()


@dataclass(frozen=True)
class ComposeOptions:
    """What a compose-check is asked besides the launches: the keys a config change renamed (fixed to their
    new names) and the failures older than that change, not reported (`--since`: bot.engine.drift); with
    `changed`, only the files holding a launch the change reaches are composed (bot.hydra.inputs): the others
    compose the same before and after it (`watch`)."""

    renames: tuple[Rename, ...] = ()
    known: Container[Key] | None = None  # a set, or what finds them when asked (bot.engine.before)
    changed: ChangedPaths | None = None


@dataclass
class Composed:
    """What composing one file's launches gave: why it was not read (`skipped`, or `quiet`: it cannot hold a
    launch), its result (findings, verified change, launches, parts not parsed), or its error entry; and
    what it counted."""

    path: str
    kind: str
    skipped: list[Skipped] = field(default_factory=list)
    quiet: bool = False
    result: FileResult | None = None
    error: FileError | None = None
    stats: ComposeStats = field(default_factory=ComposeStats)

    @property
    def read(self) -> bool:
        """Whether its launches were read (or reading them failed): a file of its kind the report counts."""
        return not self.quiet and (self.result is not None or self.error is not None)


class ComposeChecker:
    """The launches of one file (each view of it: a script, a doc's blocks, a notebook's cells, a workflow's
    steps), composed; `reader`: the file's front end, whose parses it shares."""

    def __init__(self, context: ComposeContext, reader: LaunchReader, path: str, options: ComposeOptions) -> None:
        self.context = context
        self.reader = reader
        self.path = path
        self.options = options

    def read(self, data: bytes) -> FileResult:
        """The file's findings, launches and the parts its parser could not read (ValueError: not its kind)."""
        views = self.reader.launch_views(data)
        findings, launches, partial = self._composed(data, views, self._reached(views))
        known = self.options.known
        if known is not None:  # --since: only what the config change broke (bot.engine.drift)
            drift = [f for f in findings if (self.path, f.key, f.value) not in known]
            self.context.composer.stats.known += len(findings) - len(drift)
            findings = drift
        unsure: tuple[str, ...] = ()
        if partial:
            from bot.rules.parse_reach import rules_reached

            unsure = tuple(rules_reached([r for view in partial for r in view.regions()], [compose_rule()]))
        return FileResult(findings=findings, launches=launches, kind=self.reader.kind, partly_parsed=bool(partial),
                          unsure=unsure)

    def again(self, new: bytes) -> list[Finding]:
        """The findings of an edited text (ValueError: it no longer reads as its kind); its launches, ways and
        launches not composed are not counted: they are the file's, counted once."""
        stats = self.context.composer.stats
        counted = (stats.launches, len(stats.unresolved), stats.readings)
        try:  # every launch of the edited text: the edits may reach one the change did not
            return self._composed(new, self.reader.launch_views(new))[0]
        finally:
            stats.launches, stats.readings = counted[0], counted[2]
            del stats.unresolved[counted[1]:]

    def _reached(self, views: list[LaunchView]) -> bool:
        """Whether the change (`options.changed`) reaches a launch of the file, or what one composes from; a
        file whose launches it reaches none of is not composed, on either side of the change."""
        changed = self.options.changed
        if changed is None or self.path in changed.paths:
            return True
        for read in views:
            for launch in read.launches:
                app = resolve_app(self.context, launch)
                if isinstance(app, HydraApp) and changed.reach(app, launch):
                    return True
        return False

    def _composed(self, data: bytes, views: list[LaunchView], compose: bool = True
                  ) -> tuple[list[Finding], int, list[LaunchView]]:
        """(findings in the file's terms, launches, views partly parsed) of each of the file's views; their
        launches composed unless `compose` is False."""
        composer = self.context.composer
        findings: list[Finding] = []
        launches = 0
        partial: list[LaunchView] = []
        for read in views:
            view = read.view
            launches += len(read.launches)
            if read.partly_parsed:
                partial.append(read)
            if not compose:
                continue
            first = len(composer.stats.unresolved)
            found = check_script(self.path, self.context, read.launches, list(self.options.renames), self.reader.kind)
            near = read.near_errors()
            for finding in found:
                if finding.edits and finding.line in near:
                    finding.status, finding.edits, finding.fix_site = Status.MANUAL, [], None
                    finding.message += "; not edited: next to a part the shell parser could not read"
            if view.host_at is not None or view.names:  # a doc's block, a notebook's cell: as the file says it
                composer.stats.unresolved[first:] = [
                    (p, view.host_line(line, data) if view.host_at is not None else line, view.restore(why))
                    for p, line, why in composer.stats.unresolved[first:]]
            findings.extend(view.to_host(f, data) for f in found)
        return findings, launches, partial

    def in_repository_terms(self, result: FileResult) -> None:
        """Hydra's messages (search paths, file names) relative to the repository, never the machine's paths."""
        root = self.context.root
        for finding in (*result.findings, *result.silenced):
            finding.message = in_repository_terms(finding.message, root)
        stats = self.context.composer.stats
        stats.unresolved[:] = [(path, line, in_repository_terms(why, root)) for path, line, why in stats.unresolved]
