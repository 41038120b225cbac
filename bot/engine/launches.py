"""`bot launches`: every launch the bot finds, and how it understood it.

For each launch in a shell script, a doc's shell block, a notebook cell or a workflow step: the
launcher, the entry point, what that entry is (a Hydra app of the repository with its config, not
a Hydra app, outside the repository, chosen at run time, or a launch script handed the overrides),
with the evidence; the branch it sits in; and each override with where its value comes from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.collector import scanning
from bot.context import ScanContext
from bot.discover import read_source, sources
from bot.engine.context import scan_context
from bot.engine.isolation import DEFAULT_SECONDS, isolated
from bot.hydra.app import HYDRA, AppProblem, resolve_app
from bot.ir import CUT_BLANK, CUT_COMMENT, CUT_LINE_END, Launch, Override
from bot.lang import launch_reader, shell_family
from bot.model import FileError, Skipped

if TYPE_CHECKING:
    from bot.lang.embedded.views import ShellView

CLASSES = ("hydra", "not-hydra", "outside", "runtime", "script")


@dataclass
class LaunchInfo:
    path: str
    line: int
    kind: str
    launcher: str
    entry: str | None
    entry_kind: str
    cls: str
    evidence: str
    app: dict[str, Any] | None
    branch: str | None
    function: str | None
    flags: dict[str, str]
    overrides: list[dict[str, Any]]
    cut_short: int | None = None  # the line where a blank after `\` ends it (bot.lang.shell.continuations)
    cut_by: str = CUT_BLANK  # or a comment line inside its continuation (cut_short: that line), or a line's end

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "kind": self.kind, "launcher": self.launcher,
                "entry": self.entry, "entry_kind": self.entry_kind, "class": self.cls, "evidence": self.evidence,
                "app": self.app, "branch": self.branch, "function": self.function, "flags": self.flags,
                "overrides": self.overrides, "cut_short": self.cut_short,
                **({"cut_by_comment": True} if self.cut_by == CUT_COMMENT else {}),
                **({"cut_by_line_end": True} if self.cut_by == CUT_LINE_END else {})}


@dataclass
class Launches:
    repo: str
    launches: list[LaunchInfo] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    files_scanned: int = 0

    def by_class(self) -> dict[str, int]:
        counts = Counter(info.cls for info in self.launches)
        return {cls: counts[cls] for cls in CLASSES if counts[cls]}


def collect(root: Path, label: str, paths: set[str] | None = None, seconds: float | None = DEFAULT_SECONDS,
            progress: Callable[[int, int], None] | None = None) -> Launches:
    """Every launch of the repository's shell-family files (or only `paths`), each file isolated."""
    with scanning():  # millions of small objects made and dropped: the cyclic collector runs less often
        return _collect(root.resolve(), label, paths, seconds, progress)


def _collect(root: Path, label: str, paths: set[str] | None, seconds: float | None,
             progress: Callable[[int, int], None] | None) -> Launches:
    out = Launches(label)
    packaging: list[str] = []
    listed = list(sources(root, out.skipped, shell_family(), packaging=packaging))
    context = scan_context(root, listed, packaging)
    for done, source in enumerate(listed):
        if progress is not None:
            progress(done, len(listed))
        if paths is not None and source.path not in paths:
            continue
        out.files_scanned += 1
        data = read_source(source, out.skipped)
        if data is None:
            continue
        work = partial(_file, context, source.path, source.kind, data)
        found, error = isolated(source.path, "reading launches", work, seconds)
        if error is not None:
            out.errors.append(error)
        out.launches.extend(found or [])
    return out


def _file(context: ScanContext, path: str, kind: str, data: bytes) -> list[LaunchInfo]:
    try:
        views = launch_reader(path, kind, context).launch_views(data)
    except ValueError:
        return []  # not what its name says: `bot run` reports it
    out = []
    for read in views:  # a doc block read apart reports only its own launches
        host_line = partial(read.view.file_line, host=data)
        for launch in read.launches:
            out.append(_as_written(describe(context, path, kind, host_line(launch.start), launch, host_line),
                                   read.view, data))
    return out


def _as_written(info: LaunchInfo, view: ShellView, data: bytes) -> LaunchInfo:
    """The launch in the file's terms: a doc's `<placeholder>` or a workflow's `${{ expr }}` as the file says
    it, wherever the view's stand-in name shows (entry, evidence, app, flags, overrides), and the lines a
    value's origin names as the file's lines (a workflow's `env:` entry, a notebook cell's line)."""
    for item in info.overrides:
        for name, original in view.names.items():
            if name in item["source"] and original.startswith("<"):  # the value's origin is the placeholder
                item["source"] = f"run time: {original}, a placeholder the reader fills in"
        item["text"] = view.restore(item["text"])
        item["source"] = view.host_line_numbers(view.restore(item["source"]), data)
    app = None if info.app is None else {k: _restored(v, view) for k, v in info.app.items()}
    return replace(info, entry=None if info.entry is None else view.restore(info.entry),
                   evidence=view.restore(info.evidence), app=app,
                   flags={k: view.restore(v) for k, v in info.flags.items()})


def _restored(value: Any, view: ShellView) -> Any:
    if isinstance(value, str):
        return view.restore(value)
    if isinstance(value, list):
        return [_restored(v, view) for v in value]
    return value


def describe(context: ScanContext, path: str, kind: str, line: int, launch: Launch,
             host_line: Callable[[int], int]) -> LaunchInfo:
    root = context.root
    app = resolve_app(context, launch)
    if isinstance(app, AppProblem):
        cls, evidence, app_info = app.kind, app.reason, None
    else:
        cls = HYDRA
        config_dir = app.config_dir.relative_to(root).as_posix() if app.config_dir is not None else None
        evidence = f"{app.style} in {app.source}"
        app_info = {"source": app.source, "config_dir": config_dir, "config_name": app.config_name,
                    "search_path": [Path(p).relative_to(root).as_posix() for p in app.search_path]}
    flags = {name: value for name, value in (("config_path", launch.config_path), ("config_name", launch.config_name),
                                             ("config_dir", launch.config_dir)) if value is not None}
    if len(launch.config_names) > 1:
        flags["config_name"] = " | ".join(launch.config_names)
    return LaunchInfo(path, line, kind, launch.launcher, launch.entry, launch.entry_kind, cls, evidence, app_info,
                      launch.branch, launch.function, flags,
                      [_override(o, host_line) for o in launch.overrides],
                      None if launch.cut_short is None
                      else host_line(launch.end) + (launch.cut_by == CUT_COMMENT),  # a comment: the next
                      launch.cut_by)


def _override(override: Override, host_line: Callable[[int], int]) -> dict[str, Any]:
    line = host_line(override.key_span.start) if override.key_span is not None else override.line
    return {"text": override.written, "key": override.key, "prefix": override.prefix, "line": line,
            "source": override.came_from, "in": override.held_in}
