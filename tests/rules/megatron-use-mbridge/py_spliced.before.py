import subprocess
import sys

MEGATRON = [
    "actor_rollout_ref.actor.strategy=megatron",
    "actor_rollout_ref.actor.megatron.use_mbridge=False",
]
subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", *MEGATRON, "trainer.total_epochs=1"], check=True)
