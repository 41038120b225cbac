"""Smoke test that starts the PPO trainer the way CI does (made up for the demo; never run)."""
import subprocess
import sys

MEGATRON = [
    "actor_rollout_ref.actor.strategy=megatron",
    "actor_rollout_ref.actor.megatron.use_mbridge=False",
]


def test_ppo_megatron_starts(tmp_path):
    subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", *MEGATRON,
                    "critic.megatron.use_mbridge=False", "trainer.total_epochs=1"], check=True)


def test_config_default(config):
    config.critic.megatron.use_mbridge = False  # Python code, not an override: left alone
