"""Benchmark: large monorepos (2,000 and 20,000 launch scripts), the bot beside ast-grep and git grep.

For each size a git repository is built with the shapes of benchmarks/synthetic_tree.py (a third
of the scripts with a violation) among as many other files, then the peers run alternated:
- `bot run --dry-run --jobs 2` three ways: cold (`--no-cache`); after 1% of the scripts were
  edited (a new comment line each round: the per-file cache checks those again); and with nothing
  changed since the previous identical run (every result comes from the per-file cache);
- the parse floor (benchmarks/parse_floor.py): py-tree-sitter parsing the same scripts in two
  processes and doing nothing else;
- `ast-grep scan` with a rule matching the literal `use_mbridge=False` word, and
  `git grep -l use_mbridge=False`.
Reported per peer: median wall time, median CPU time (user + system), median peak RSS, and the
count it found. Python children run with bytecode caching on (PYTHONDONTWRITEBYTECODE removed),
as an installed bot does.

    python benchmarks/large_tree.py [--sizes 2000 20000] [--runs 3]

ast-grep comes from PyPI (`pip install ast-grep-cli`); it is skipped with a note when missing.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_tree import build_tree

RULE = """\
id: mbridge-false
language: bash
rule:
  kind: word
  regex: use_mbridge=(False|false)$
"""


TIME = shutil.which("time", path="/usr/bin:/bin")


def measure(command: list[str], cwd: Path) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak RSS (MB) and stdout of one run.

    With GNU time the child's own figures are used: a child forked from this process would
    otherwise report this process's resident size (tens of MB) as its peak.
    """
    wrapped = [TIME, "-f", "%e %U %S %M", "--", *command] if TIME else command
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(wrapped, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{command[0]} failed with exit code {proc.returncode}")
    if TIME:
        _, user, system, rss_kb = err.decode().strip().splitlines()[-1].split()
        return wall, float(user) + float(system), int(rss_kb) / 1024, out.decode("utf-8", "replace")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # without GNU time: RSS is the largest so far
    cpu = usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, out.decode("utf-8", "replace")


def count(name: str, out: str) -> int:
    if name.startswith("bot"):
        import json

        return int(json.loads(out)["summary"]["findings"])
    if name.startswith("ast-grep"):
        return sum(1 for line in out.splitlines() if line.strip().startswith("{"))
    if name.startswith("parse floor"):
        return int(out.strip() or 0)
    return len(out.splitlines())


def edit_some(tree: Path, share: float, round_no: int) -> None:
    """Append a comment to `share` of the scripts: an ordinary edit the cache has not seen."""
    scripts = sorted(tree.rglob("run_*.sh"))
    for path in scripts[: max(1, int(len(scripts) * share))]:
        with path.open("a") as handle:
            handle.write(f"# tuned in round {round_no}\n")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    bin_dir = Path(sys.executable).parent
    ast_grep = shutil.which("ast-grep", path=str(bin_dir)) or shutil.which("ast-grep")
    floor = [sys.executable, str(Path(__file__).resolve().parent / "parse_floor.py")]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    for size in args.sizes:
        work = Path(tempfile.mkdtemp(prefix="bot-large-"))
        try:
            tree = work / "tree"
            build_tree(tree, size, size)
            (work / "rule.yml").write_text(RULE)
            bot = [str(bin_dir / "bot"), "run", "--repo", ".", "--dry-run", "--format", "json", "--jobs", "2"]
            warm = [*bot, "--cache-dir", str(work / "cache")]
            peers = {COLD: [*bot, "--no-cache"], EDITED: warm, UNCHANGED: warm, "parse floor (py-tree-sitter)": floor,
                     "git grep -l": ["git", "grep", "-l", "use_mbridge=False"]}
            if ast_grep:
                peers["ast-grep scan"] = [ast_grep, "scan", "--rule", str(work / "rule.yml"), "--json=stream", "."]
            for command in peers.values():
                measure(command, tree)
            samples: dict[str, list[tuple[float, float, float, str]]] = {name: [] for name in peers}
            for round_no in range(args.runs):
                for name, command in peers.items():
                    if name == EDITED:
                        edit_some(tree, 0.01, round_no)
                    samples[name].append(measure(command, tree))
            print(f"\n{size} launch scripts among {size} other files, {args.runs} alternated runs")
            print("| peer | median wall (s) | median CPU (s) | median peak RSS (MB) | found |")
            print("|---|---|---|---|---|")
            walls = {}
            for name, runs in samples.items():
                walls[name] = statistics.median(r[0] for r in runs)
                print(f"| `{name}` | {walls[name]:.2f} | {statistics.median(r[1] for r in runs):.2f} | "
                      f"{statistics.median(r[2] for r in runs):.0f} | {count(name, runs[-1][3])} |")
            for name, wall in walls.items():
                if not name.startswith("bot"):
                    ratios = [f"{bot_name} {walls[bot_name] / wall:.2f}" for bot_name in (COLD, EDITED, UNCHANGED)]
                    print(f"ratio to {name}: " + ", ".join(ratios))
            if not ast_grep:
                print("(ast-grep not installed: pip install ast-grep-cli)")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


COLD, EDITED, UNCHANGED = "bot cold (--no-cache)", "bot, 1% of scripts edited", "bot, nothing changed"


if __name__ == "__main__":
    sys.exit(main())
