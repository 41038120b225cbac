"""Smoke tests that start the trainer the way CI does."""
import os
import subprocess
import sys

from hydra import compose, initialize_config_dir

BASE = [
    "python3",
    "-m",
    "verl.trainer.main_ppo",
    "actor_rollout_ref.actor.strategy=megatron",
    "actor_rollout_ref.actor.megatron.use_mbridge=True",  # the old path
]


def test_compose_megatron(config_dir):
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        cfg = compose(config_name="ppo_megatron_trainer",
                      overrides=["critic.megatron.use_mbridge=true", "trainer.total_epochs=1"])
    assert cfg.trainer.total_epochs == 1


def test_subprocess(tmp_path):
    subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", 'actor_rollout_ref.ref.megatron.use_mbridge=True',
                    f"trainer.default_local_dir={tmp_path}"], check=True, env=os.environ)
