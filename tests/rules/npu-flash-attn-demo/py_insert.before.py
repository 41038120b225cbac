CMD = [
    "python3",
    "-m",
    "verl.trainer.main_ppo",
    "actor_rollout_ref.actor.megatron.use_mbridge=True",
    "trainer.total_epochs=1",
]
INLINE = ["python3", "-m", "verl.trainer.main_ppo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2"]
