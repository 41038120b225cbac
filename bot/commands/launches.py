"""`bot launches`: every launch the bot finds, and how it understood it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.collector import scanning
from bot.commands.output import EXIT_OK, crash_header, file_timeout_option, local_repository, relative, write_out
from bot.ir import DORA
from bot.lang.shell.continuations import cut_words
from bot.report import indented_json
from bot.report.summary import plural

if TYPE_CHECKING:
    from bot.downstream.detect import Downstream
    from bot.engine.launches import Launches, LaunchInfo


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    launches = commands.add_parser("launches", help="list every launch and how the bot understood it")
    launches.add_argument("--repo", required=True, help="a local repository path")
    launches.add_argument("--format", choices=("text", "json"), default="text")
    launches.add_argument("--output", type=Path)
    launches.add_argument("--files", nargs="*", metavar="PATH", help="only these files")
    launches.add_argument("--config", type=Path, help="the registry (default: ./bot.toml if present); the "
                          "repository's own bot.toml, which may name its upstream, is read beneath it")
    file_timeout_option(launches)


def main(args: argparse.Namespace) -> int:
    root = local_repository(Path(args.repo), args.repo)  # first: before Hydra is imported
    from bot.config import load_config
    from bot.downstream.detect import found_downstream, named_downstream

    config = load_config(args.config, repo=root)  # a bad bot.toml or pin: one line, before the scan
    upstream = named_downstream(root, config)
    from bot.engine.launches import collect  # hydra and libcst: only for this command

    only = {relative(root, f) for f in args.files} if args.files is not None else None
    from bot.commands.progress import Progress

    with Progress("reading launches") as progress:
        found = collect(root, args.repo, only, args.file_timeout or None, progress)
    upstream = upstream or found_downstream(root, config, found.launches)
    with scanning():
        text = render(found, args.format, upstream)
    write_out(args, text)
    if found.errors:
        from bot.engine.isolation import write_crash_log

        log = write_crash_log(found.errors, crash_header())
        print(f"bot: {len(found.errors)} file(s) could not be read (details in {log})", file=sys.stderr)
    return EXIT_OK


def render(launches: Launches, fmt: str, upstream: Downstream | None = None) -> str:
    """The launches as text or JSON; with an upstream, each says whether it runs it and at which pin."""
    if fmt == "json":
        data = {"version": 1, "repo": launches.repo,
                **({"upstream": upstream.as_dict(launches.launches)} if upstream is not None else {}),
                "launches": [info.as_dict() if upstream is None else {**info.as_dict(), **upstream.fields(info)}
                             for info in launches.launches],
                "errors": [{"path": e.path, "reason": e.reason, "stage": e.stage} for e in launches.errors],
                "summary": {"files_scanned": launches.files_scanned, "launches": len(launches.launches),
                            "by_class": launches.by_class()}}
        return indented_json.dumps(data, indent=1) + "\n"  # json.dumps's text, written faster
    lines: list[str] = []
    for info in launches.launches:
        entry = (f"-m {info.entry}" if info.entry_kind == "module" else f"(its package's {info.entry})"
                 if info.entry_kind == DORA else str(info.entry))
        lines.append(f"{info.path}:{info.line}: {info.launcher} {entry}: {info.cls}: {info.evidence}")
        if info.app is not None:
            search = f", search path {', '.join(info.app['search_path'])}" if info.app["search_path"] else ""
            lines.append(f"  config {info.app['config_dir']}/{info.app['config_name']}{search}")
        branch = (info.branch or "").rstrip("; ")
        where = [branch if branch.startswith("inside") else f"in {branch}" if branch else "",
                 f"in function {info.function}" if info.function else ""]
        if any(where):
            lines.append("  " + ", ".join(w for w in where if w))
        if info.cut_short is not None:
            why = cut_words(info.cut_by)
            lines.append(f"  cut short at line {info.cut_short}: {why} ends it, and the lines after "
                         "run as a command of their own")
        if upstream is not None:
            lines.extend(upstream_lines(upstream, info))
        for item in info.overrides:
            origin = "" if item["in"] == "command" else f" [{item['in']}]"
            lines.append(f"  {item['line']}: {item['text']}  <- {item['source']}{origin}")
    for error in launches.errors:
        lines.append(f"{error.path}: {error.reason}")
    if upstream is not None:
        lines.extend(upstream_summary(upstream, launches))
    counts = ", ".join(f"{cls} {n}" for cls, n in launches.by_class().items())
    holding = len({info.path for info in launches.launches})
    summary = f"{plural(len(launches.launches), 'launch', 'launches')} in {plural(holding, 'file')}"
    if launches.files_scanned != holding:
        summary += f" ({plural(launches.files_scanned, 'file')} read)"
    lines.append(summary + (f": {counts}" if counts else ""))
    return "\n".join(lines) + "\n"


def upstream_lines(upstream: Downstream, info: LaunchInfo) -> list[str]:
    via = upstream.runs(info)
    if via is None:
        return []
    pin = upstream.pin(info)
    at = f"at {pin.says()}" if pin is not None else "no pin covers it"
    return [f"  runs {upstream.upstream.name} ({via}), {at}"]


def upstream_summary(upstream: Downstream, launches: Launches) -> list[str]:
    named = f"named in {upstream.said_in}" if upstream.said_in else "found from the launches"
    up = upstream.upstream
    running = sum(upstream.runs(info) is not None for info in launches.launches)
    lines = [f"upstream {up.name} ({up.source_kind} {up.source}, {named}): "
             f"{running} of {plural(len(launches.launches), 'launch', 'launches')} run it"]
    lines += [f"  pin of {pin.covers}: {pin.kind}, {pin.says()}" for pin in upstream.reading.pins]
    lines += [f"  {note}" for note in upstream.reading.notes]
    return lines
