"""Benchmark: `bot compose-check` over 200 launches against composing each launch from scratch.

Builds a verl-shaped config tree (a primary config with a defaults list of groups with
packages, a megatron variant inheriting it) and 200 launch scripts with 8-12 overrides each,
then alternates runs of `bot compose-check` (cached bases, overrides applied to copies) and of
a peer that calls hydra's `compose()` once per launch with all its overrides.

    python benchmarks/compose_check.py [--launches 200] [--runs 5]
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

GROUPS = {"actor": ["dp_actor", "megatron_actor"], "rollout": ["vllm", "sglang"], "critic": ["dp_critic"],
          "data": ["default"], "reward_model": ["dp_reward"], "algorithm": ["gae", "grpo"]}
PEER = '''
import sys, time
from pathlib import Path
from hydra import compose, initialize_config_dir
from bot.lang.shell.parse import analyse
from bot.hydra.compose import override_text
root = Path(sys.argv[1])
with initialize_config_dir(config_dir=str(root / "verl/trainer/config"), version_base=None):
    for path in sorted(root.glob("examples/*.sh")):
        for launch in analyse(path.read_bytes()).launches:
            texts = [t for t in (override_text(o) for o in launch.overrides) if t]
            try:
                compose(launch.config_name or "ppo_trainer", overrides=texts)
            except Exception:
                pass
'''


def section(name: str, rng: random.Random) -> str:
    lines = [f"{name}_param_{i}: {rng.randint(0, 100)}" for i in range(12)]
    lines += ["optim:", "  lr: 1e-6", "  warmup: 0", "megatron:", "  tensor_model_parallel_size: 1",
              "  use_mbridge: true", "  override_transformer_config: {}"]
    return "\n".join(lines) + "\n"


def build(root: Path, launches: int) -> None:
    rng = random.Random(3)
    config = root / "verl" / "trainer" / "config"
    for group, options in GROUPS.items():
        for option in options:
            path = config / group / f"{option}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(section(option, rng))
    defaults = "\n".join(f"  - {g}@actor_rollout_ref.{g}: {o[0]}" if g in ("actor", "rollout")
                         else f"  - {g}: {o[0]}" for g, o in GROUPS.items())
    (config / "ppo_trainer.yaml").write_text(f"defaults:\n{defaults}\n  - _self_\ntrainer:\n  total_epochs: 1\n"
                                             "  val_before_train: true\n  project_name: p\n")
    (config / "ppo_megatron_trainer.yaml").write_text(
        "defaults:\n  - ppo_trainer\n  - override actor@actor_rollout_ref.actor: megatron_actor\n  - _self_\n")
    (root / "verl" / "trainer" / "main_ppo.py").write_text(
        'import hydra\n\n@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)\n'
        "def main(config):\n    pass\n")
    keys = ["actor_rollout_ref.actor.optim.lr=2e-6", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2",
            "trainer.total_epochs=3", "+trainer.val_before_train=False", "critic.optim.lr=1e-5",
            "data.default_param_1=5", "actor_rollout_ref.rollout.optim.warmup=1", "trainer.nonexistent=1",
            "algorithm.gae_param_2=4", "+trainer.extra=1", "reward_model.optim.lr=$LR", "trainer.project_name=x"]
    (root / "examples").mkdir()
    for i in range(launches):
        chosen = rng.sample(keys, rng.randint(8, 12))
        name = " --config-name=ppo_megatron_trainer" if i % 2 else ""
        body = " \\\n    ".join(chosen)
        (root / "examples" / f"run_{i:03}.sh").write_text(
            f"#!/bin/bash\npython3 -m verl.trainer.main_ppo{name} \\\n    {body} $@\n")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root.parent)}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-q", "-m", "t"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bot-compose-bench-"))
    try:
        tree = work / "tree"
        tree.mkdir()
        build(tree, args.launches)
        bot = str(Path(sys.executable).parent / "bot")
        peers = {"bot compose-check (cached bases)": [bot, "compose-check", "--repo", str(tree), "--format", "json"],
                 "compose() per launch": [sys.executable, "-c", PEER, str(tree)]}
        times: dict[str, list[float]] = {name: [] for name in peers}
        for command in peers.values():
            timed(command)
        for _ in range(args.runs):
            for name, command in peers.items():
                times[name].append(timed(command))
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
        print(f"{args.launches} launches, 8-12 overrides each; {args.runs} alternated runs\n")
        print("| command | median wall (s) | min (s) |\n|---|---|---|")
        for name, values in times.items():
            print(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f} |")
        names = list(peers)
        ratio = statistics.median(times[names[1]]) / statistics.median(times[names[0]])
        print(f"\nfrom scratch / cached: {ratio:.1f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
