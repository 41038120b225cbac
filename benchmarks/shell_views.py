"""Benchmark (issue 41): the shell front end's analysis alone, as `bot launches` asks for it, replayed.

`bot launches` reads every shell-family file of a repository (scripts, docs' blocks, workflow steps, notebook
cells) and analyses each text once (bot.lang.shell.parse.analyse), then hands each launch on (as_launch). This
records those calls in one run of the collection, then replays them `--runs` times in the same process, their
syntax trees made beforehand, and prints the CPU seconds of each replay (and, per kind of file, of the first):
the part of `launches` that bot/lang/shell owns, without the start-up, the apps or the report around it.

    python benchmarks/shell_views.py --repo PATH [--runs 5]

Run it under callgrind (`valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/shell_views.py
--repo PATH --runs 1`) to compare two versions by instructions, which a shared machine does not move: the tree's
collection and the parses are the same for both.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path
from typing import Any


def recorded(repo: Path) -> list[tuple[bytes, dict[str, Any]]]:
    """Every call `bot launches` makes to the shell analysis on `repo`: the text, and how it is read."""
    from bot.engine.launches import collect
    from bot.lang.shell import front

    calls: list[tuple[bytes, dict[str, Any]]] = []
    real = front.analyse

    def kept(src: bytes, **how: Any) -> Any:
        calls.append((src, {k: v for k, v in how.items() if k != "tree"}))
        return real(src, **how)

    front.analyse = kept  # type: ignore[assignment]
    try:
        collect(repo, repo.name)
    finally:
        front.analyse = real  # type: ignore[assignment]
    return calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from bot.lang.shell.as_launch import as_launch
    from bot.lang.shell.parse import analyse, parse_tree

    calls = recorded(args.repo.resolve())
    trees = [parse_tree(src) for src, _ in calls]
    print(f"{len(calls)} texts, {sum(len(src) for src, _ in calls)} bytes; Python {sys.version.split()[0]}")
    for run in range(args.runs):
        kinds: collections.Counter[str] = collections.Counter()
        start = time.process_time()
        for (src, how), tree in zip(calls, trees, strict=True):
            began = time.process_time()
            script = analyse(src, tree=tree, **how)
            for launch in script.launches:
                as_launch(launch, script)
            kinds[os.path.splitext(how.get("path") or "")[1] or "other"] += time.process_time() - began
        print(f"run {run + 1}: {time.process_time() - start:.3f} s CPU")
        if run == 0:
            print("  " + ", ".join(f"{kind} {seconds:.3f} s" for kind, seconds in kinds.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
