"""An added override goes after the one nearest by key, as in a shell launch."""
import subprocess
import sys

subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", "actor_rollout_ref.rollout.n=4", "actor_rollout_ref.rollout.name=vllm",
                "trainer.total_epochs=1"], check=True)
