"""Benchmark (issue 41): what a maintainer waits for on each merge, against the plain cold scan.

On verl's tip, each measured command runs alternately with the plain cold scan
(`bot run --dry-run --no-cache --format json`), `--runs` times, in one loop; printed per command: the
median wall and CPU seconds (user + system of the process and the workers it waited for) of both,
the ratio of the medians, and the issue's bar for it.

    python benchmarks/verl_costs.py [--runs 5] [--bot CMD] [--against CMD] [--only NAME ...] [--corpus ../shared/corpus]

The commands: `compose-check` (CPU bar 4x), the optional rules' run (`--enable` both optional
rules: every edit judged by Hydra; CPU bar 3x), `launches` (CPU bar 2x) and `watch` over verl's
#4528 (d7c82bde: a merge that touches configs; wall bar 5x, from a bare clone of the history whose
main is at the merge, as a user's bot.toml names it). `--bot` replaces the bot's command (a wrapper
that runs another checkout), so two versions can be timed the same way; `--against` times a second version in the
same loop, its runs alternating with the first's (which goes first every other run), and prints the A/B of the
medians and the median of the pairs' ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
WATCHED = "d7c82bde"  # verl #4528: the Megatron engine uses mbridge by default (configs and scripts touched)
OPTIONAL = ["--enable", "megatron-flash-attn", "--enable", "megatron-recompute-uniform"]
BARS = {"compose-check": ("cpu", 4.0), "optional rules": ("cpu", 3.0), "launches": ("cpu", 2.0),
        "watch #4528": ("wall", 5.0)}


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; the CPU of the children it waited for is counted."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def corpus_path(corpus: Path, *args: str) -> Path:
    out = subprocess.run([str(corpus / "verl-tree"), *args], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def watch_setup(history: Path, scratch: Path) -> Path:
    """A bare clone of the history sharing its objects, main at the watched merge; the bot.toml naming it."""
    upstream = scratch / "upstream.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--shared", str(history), str(upstream)], check=True)
    full = subprocess.run(["git", "-C", str(upstream), "rev-parse", WATCHED], capture_output=True, text=True,
                          check=True).stdout.strip()
    subprocess.run(["git", "-C", str(upstream), "update-ref", "refs/heads/main", full], check=True)
    config = scratch / "bot.toml"
    config.write_text(f'[repos.verl]\ngithub = "verl-project/verl"\nclone_url = "{upstream}"\n', encoding="utf-8")
    return config


def ab(name: str, plain: list[str], command: list[str], other: list[str], cwd: Path, runs: int) -> str:
    """One line: `command` (named `name`) against `other` (the same command of a second bot), alternating, each
    loop beside the plain cold scan: medians of wall and CPU, the A/B of the medians and the median of the pairs'
    wall ratios."""
    samples: dict[str, list[tuple[float, float]]] = {"plain": [], "a": [], "b": []}
    for run in range(runs):
        samples["plain"].append(timed(plain, cwd))
        for side in ("a", "b") if run % 2 == 0 else ("b", "a"):
            samples[side].append(timed(command if side == "a" else other, cwd))
    wall = {k: statistics.median(w for w, _ in v) for k, v in samples.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in samples.items()}
    pairs = statistics.median(a[0] / b[0] for a, b in zip(samples["a"], samples["b"], strict=True))
    return (f"{name}: wall {wall['a']:.2f} s against {wall['b']:.2f} s (A/B {wall['a'] / wall['b']:.3f}, pairs "
            f"{pairs:.3f}), CPU {cpu['a']:.2f} s against {cpu['b']:.2f} s (A/B {cpu['a'] / cpu['b']:.3f}); "
            f"plain {wall['plain']:.2f} s wall, {cpu['plain']:.2f} s CPU: {wall['a'] / wall['plain']:.2f}x "
            f"against {wall['b'] / wall['plain']:.2f}x wall, {cpu['a'] / cpu['plain']:.2f}x against "
            f"{cpu['b'] / cpu['plain']:.2f}x CPU")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bot", default=str(Path(sys.executable).parent / "bot"))
    parser.add_argument("--corpus", type=Path, default=HERE.parent / "shared" / "corpus")
    parser.add_argument("--against", help="a second bot command, timed in the same loop (an A/B)")
    parser.add_argument("--only", nargs="*", default=[], choices=list(BARS), metavar="NAME")
    args = parser.parse_args()
    bot = shlex.split(args.bot)
    other = shlex.split(args.against) if args.against else None
    tree = corpus_path(args.corpus)
    scratch = Path(tempfile.mkdtemp(prefix="verl-costs-"))
    try:
        commands = {
            "compose-check": [*bot, "compose-check", "--repo", str(tree), "--format", "json"],
            "optional rules": [*bot, "run", "--repo", str(tree), "--dry-run", "--no-cache", "--format", "json",
                               *OPTIONAL],
            "launches": [*bot, "launches", "--repo", str(tree), "--format", "json"],
        }
        if not args.only or "watch #4528" in args.only:
            config = watch_setup(corpus_path(args.corpus, "--history"), scratch)
            commands["watch #4528"] = [*bot, "watch", "--repo", "verl", "--config", str(config), "--before",
                                       f"{WATCHED}^", "--after", WATCHED, "--dry-run", "--format", "json"]
        plain = [*bot, "run", "--repo", str(tree), "--dry-run", "--no-cache", "--format", "json"]
        print(f"verl tip {tree.name[:10]}, {args.runs} runs each, alternating with the plain cold scan; "
              f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}\n")
        if other is None:
            print("| command | median wall s | median CPU s | plain wall s | plain CPU s | ratio | bar |")
            print("|---|---:|---:|---:|---:|---:|---|")
        for name, command in commands.items():
            if args.only and name not in args.only:
                continue
            if other is not None:
                print(ab(name, plain, command, [*other, *command[len(bot):]], scratch, args.runs), flush=True)
                continue
            samples = [(timed(plain, scratch), timed(command, scratch)) for _ in range(args.runs)]
            walls = [s[1][0] for s in samples]
            cpus = [s[1][1] for s in samples]
            plain_walls = [s[0][0] for s in samples]
            plain_cpus = [s[0][1] for s in samples]
            measure, bar = BARS[name]
            ratio = (statistics.median(cpus) / statistics.median(plain_cpus) if measure == "cpu"
                     else statistics.median(walls) / statistics.median(plain_walls))
            verdict = "met" if ratio <= bar else "not met"
            print(f"| {name} | {statistics.median(walls):.2f} | {statistics.median(cpus):.2f} | "
                  f"{statistics.median(plain_walls):.2f} | {statistics.median(plain_cpus):.2f} | "
                  f"{ratio:.1f}x {measure} | <= {bar:g}x: {verdict} |", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
