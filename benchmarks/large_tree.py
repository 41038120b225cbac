"""Benchmark: large monorepos (2,000 and 20,000 launch scripts), the bot beside ast-grep and git grep.

For each size a git repository is built with the shapes of benchmarks/synthetic_tree.py (a third
of the scripts with a violation) among as many other files, then the peers run alternated:
`bot run --dry-run --jobs 2` cold (`--no-cache`) and with a warm result cache, `ast-grep scan`
with a rule matching the literal `use_mbridge=False` word, and `git grep -l use_mbridge=False`.
Reported per peer: median wall time, median CPU time (user + system), median peak RSS, and the
count it found.

    python benchmarks/large_tree.py [--sizes 2000 20000] [--runs 3]

ast-grep comes from PyPI (`pip install ast-grep-cli`); it is skipped with a note when missing.
"""

from __future__ import annotations

import argparse
import os
import platform
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


def measure(command: list[str], cwd: Path) -> tuple[float, float, float, str]:
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{command[0]} failed with exit code {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.decode("utf-8", "replace")


def count(name: str, out: str) -> int:
    if name.startswith("bot"):
        import json

        return int(json.loads(out)["summary"]["findings"])
    if name.startswith("ast-grep"):
        return sum(1 for line in out.splitlines() if line.strip().startswith("{"))
    return len(out.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    ast_grep = shutil.which("ast-grep", path=str(bin_dir)) or shutil.which("ast-grep")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    for size in args.sizes:
        work = Path(tempfile.mkdtemp(prefix="bot-large-"))
        try:
            tree = work / "tree"
            build_tree(tree, size, size)
            (work / "rule.yml").write_text(RULE)
            bot = [str(bin_dir / "bot"), "run", "--repo", ".", "--dry-run", "--format", "json", "--jobs", "2"]
            peers = {"bot run --dry-run --jobs 2": [*bot, "--no-cache"],
                     "bot, cache warm": [*bot, "--cache-dir", str(work / "cache")],
                     "git grep -l": ["git", "grep", "-l", "use_mbridge=False"]}
            if ast_grep:
                peers["ast-grep scan"] = [ast_grep, "scan", "--rule", str(work / "rule.yml"), "--json=stream", "."]
            for command in peers.values():
                measure(command, tree)
            samples: dict[str, list[tuple[float, float, float, str]]] = {name: [] for name in peers}
            for _ in range(args.runs):
                for name, command in peers.items():
                    samples[name].append(measure(command, tree))
            print(f"\n{size} launch scripts among {size} other files, {args.runs} alternated runs")
            print("| peer | median wall (s) | median CPU (s) | median peak RSS (MB) | found |")
            print("|---|---|---|---|---|")
            walls = {}
            for name, runs in samples.items():
                walls[name] = statistics.median(r[0] for r in runs)
                print(f"| `{name}` | {walls[name]:.2f} | {statistics.median(r[1] for r in runs):.2f} | "
                      f"{statistics.median(r[2] for r in runs):.0f} | {count(name, runs[-1][3])} |")
            bot_wall = walls["bot run --dry-run --jobs 2"]
            for name, wall in walls.items():
                if not name.startswith("bot"):
                    print(f"ratio bot / {name}: {bot_wall / wall:.1f}, "
                          f"warm cache / {name}: {walls['bot, cache warm'] / wall:.1f}")
            if not ast_grep:
                print("(ast-grep not installed: pip install ast-grep-cli)")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
