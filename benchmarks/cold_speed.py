"""Benchmark (issue 19): a cold `bot run --dry-run --no-cache` beside ast-grep, run alternately.

On verl's tip (from ../shared/corpus, `verl-tree`) and on synthetic trees of N launch scripts
(benchmarks/synthetic_tree.py, as benchmarks/large_tree.py builds them), the bot and ast-grep run
in turn, `--pairs` times; printed per tree: the median wall time of each, the median of the
per-pair ratios, and the bot's median peak RSS. Then `bot run --files one.sh` (the pre-commit
path: one script of the tree) the same way. ast-grep runs a rule matching the word
`use_mbridge=(False|false)`. Python children run with bytecode caching on, as an installed bot does.

    python benchmarks/cold_speed.py [--pairs 5] [--sizes 20000] [--no-verl] [--bot CMD] [--jobs N]

`--bot` replaces the bot's command (e.g. a wrapper running another checkout), so two versions
can be compared with the same script.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from large_tree import RULE, measure
from synthetic_tree import build_tree

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def pairs(first: list[str], second: list[str], cwd: Path, runs: int) -> list[tuple[tuple, tuple]]:
    measure(first, cwd)  # warm the file cache and the bytecode of both
    measure(second, cwd)
    return [(measure(first, cwd), measure(second, cwd)) for _ in range(runs)]


def report(name: str, samples: list[tuple[tuple, tuple]], peer: str) -> None:
    bot_wall = statistics.median(a[0] for a, _ in samples)
    peer_wall = statistics.median(b[0] for _, b in samples)
    ratio = statistics.median(a[0] / b[0] for a, b in samples)
    rss = statistics.median(a[2] for a, _ in samples)
    print(f"| {name} | {bot_wall:.3f} | {peer_wall:.3f} ({peer}) | {ratio:.2f} | {rss:.0f} |", flush=True)


def one_script(tree: Path) -> str:
    listing = subprocess.run(["git", "ls-files", "*.sh"], cwd=tree, capture_output=True, text=True, check=True)
    scripts = sorted(p for p in listing.stdout.splitlines() if "mbridge" in (tree / p).read_text(errors="replace"))
    return scripts[0] if scripts else listing.stdout.split()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=[20000])
    parser.add_argument("--no-verl", action="store_true")
    parser.add_argument("--bot", default=str(Path(sys.executable).parent / "bot"))
    parser.add_argument("--jobs", type=int, help="pass --jobs N to the bot (default: the bot's own default)")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    ast_grep = shutil.which("ast-grep", path=str(Path(sys.executable).parent)) or shutil.which("ast-grep")
    if ast_grep is None:
        raise SystemExit("ast-grep not found (pip install ast-grep-cli)")
    bot = shlex.split(args.bot)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"bot: {args.bot}; {args.pairs} alternating pairs each\n")
    print("| tree | bot median wall (s) | peer median wall (s) | median ratio | bot peak RSS (MB) |")
    print("|---|---:|---:|---:|---:|")
    work = Path(tempfile.mkdtemp(prefix="bot-cold-"))
    try:
        rule = work / "rule.yml"
        rule.write_text(RULE)
        trees: list[tuple[str, Path]] = []
        if not args.no_verl:
            tip = subprocess.run([str(CORPUS / "verl-tree")], capture_output=True, text=True, check=True)
            trees.append(("verl tip", Path(tip.stdout.strip())))
        for size in args.sizes:
            build_tree(work / f"tree{size}", size, size)
            trees.append((f"{size} scripts", work / f"tree{size}"))
        grep = [ast_grep, "scan", "--rule", str(rule), "--json=stream", "."]
        for name, tree in trees:
            run = [*bot, "run", "--repo", ".", "--dry-run", "--no-cache", "--format", "json",
                   *(["--jobs", str(args.jobs)] if args.jobs else [])]
            report(f"{name}: `bot run --dry-run --no-cache`", pairs(run, grep, tree, args.pairs), "ast-grep")
            script = one_script(tree)
            one = [*run, "--files", script]
            report(f"{name}: `bot run --files {script}`", pairs(one, grep, tree, args.pairs), "ast-grep")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
