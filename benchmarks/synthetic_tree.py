"""Benchmark: `bot run --dry-run` over a verl-shaped synthetic tree, side by side with `git grep`.

Builds a git repository with N launch scripts (the shapes of shared/verl-patterns.md, a third of
them with a violation) among M other files, then alternates runs of the bot and of
`git grep -l use_mbridge` so both see the same machine load. Reports medians of wall time and
peak resident memory (per child process, from wait4), and their ratio.

    python benchmarks/synthetic_tree.py [--scripts 200] [--others 1000] [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHAPES = [
    """#!/bin/bash
set -x
python3 -m verl.trainer.main_ppo \\
    data.train_batch_size={bs} \\
    actor_rollout_ref.actor.strategy=megatron \\
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size={tp} \\
    actor_rollout_ref.actor.megatron.use_mbridge={flag} \\
    actor_rollout_ref.ref.megatron.use_mbridge={flag} \\
    trainer.total_epochs={epochs} $@
""",
    """#!/usr/bin/env bash
USE_MBRIDGE=${{USE_MBRIDGE:-{flag}}}
ACTOR=(
    actor_rollout_ref.actor.megatron.use_mbridge=$USE_MBRIDGE
    # parallelism
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size={tp} \\
)
python3 -m verl.trainer.main_ppo "${{ACTOR[@]}}" \\
    critic.megatron.use_mbridge=$USE_MBRIDGE \\
    trainer.n_gpus_per_node=8 2>&1 | tee log_{i}.txt
""",
    """#!/bin/bash
ENGINE="engine.use_mbridge={flag} engine.tensor_model_parallel_size={tp}"
torchrun --nnodes=1 --nproc_per_node=8 -m verl.trainer.sft_trainer \\
    data.train_files=$HOME/data/train.parquet \\
    $ENGINE \\
    trainer.total_epochs={epochs}
""",
    """#!/bin/bash
if [ "$BACKEND" = megatron ]; then
    python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge={flag} trainer.x={i}
else
    python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.fsdp_config.param_offload=True
fi
""",
]


def build_tree(root: Path, scripts: int, others: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    root.mkdir(parents=True)
    for i in range(scripts):
        shape = SHAPES[i % len(SHAPES)]
        flag = "False" if i % 3 == 0 else "True"
        text = shape.format(bs=rng.choice([256, 512, 1024]), tp=rng.choice([1, 2, 4]), flag=flag,
                            epochs=rng.randint(1, 30), i=i)
        path = root / ["examples", "recipe", "tests"][i % 3] / f"group{i % 17}" / f"run_{i}.sh"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for i in range(others):
        kind = i % 4
        directory = root / "verl" / f"pkg{i % 23}"
        directory.mkdir(parents=True, exist_ok=True)
        if kind == 0:
            (directory / f"mod_{i}.py").write_text(f"def f_{i}(config):\n    return config.get('x', {i})\n" * 20)
        elif kind == 1:
            (directory / f"doc_{i}.md").write_text(f"# Page {i}\n\nSome prose about training.\n" * 10)
        elif kind == 2:
            (directory / f"cfg_{i}.yaml").write_text(f"trainer:\n  total_epochs: {i}\n  project: p{i}\n" * 5)
        else:
            (directory / f"data_{i}.json").write_text('{"a": 1, "b": [1, 2, 3]}\n' * 10)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root.parent)}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "tree"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)


def measure(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run of `command`."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{command[0]} failed with exit code {code}")
    return wall, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scripts", type=int, default=200)
    parser.add_argument("--others", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", action="store_true", help="keep the generated tree")
    args = parser.parse_args()
    bot = shutil.which("bot", path=str(Path(sys.executable).parent)) or "bot"
    workdir = Path(tempfile.mkdtemp(prefix="bot-bench-"))
    tree = workdir / "tree"
    try:
        build_tree(tree, args.scripts, args.others)
        peers = {
            "bot run --dry-run": [bot, "run", "--repo", ".", "--dry-run", "--format", "json"],
            "git grep -l use_mbridge": ["git", "grep", "-l", "use_mbridge"],
        }
        for command in peers.values():  # warm the page cache once
            measure(command, tree)
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in peers}
        for _ in range(args.runs):
            for name, command in peers.items():
                results[name].append(measure(command, tree))
        findings = subprocess.run(peers["bot run --dry-run"], cwd=tree, capture_output=True, text=True).stdout
        found = findings.count('"rule":')
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
              f"{platform.platform()}")
        print(f"tree: {args.scripts} launch scripts among {args.others} other files; {args.runs} runs each, "
              f"alternated; bot findings: {found}")
        print()
        print("| command | median wall (s) | min wall (s) | median peak RSS (MB) |")
        print("|---|---|---|---|")
        medians = {}
        for name, samples in results.items():
            walls = [w for w, _ in samples]
            rss = [m for _, m in samples]
            medians[name] = statistics.median(walls)
            print(f"| `{name}` | {statistics.median(walls):.3f} | {min(walls):.3f} | {statistics.median(rss):.1f} |")
        bot_wall = medians["bot run --dry-run"]
        grep_wall = medians["git grep -l use_mbridge"]
        print()
        print(f"ratio bot / git grep (median wall): {bot_wall / grep_wall:.1f}x")
    finally:
        if args.keep:
            print(f"tree kept at {tree}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
