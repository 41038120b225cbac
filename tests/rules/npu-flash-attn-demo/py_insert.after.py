CMD = [
    "python3",
    "-m",
    "verl.trainer.main_ppo",
    "actor_rollout_ref.actor.megatron.use_mbridge=True",
    "+actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True",
    "trainer.total_epochs=1",
]
INLINE = ["python3", "-m", "verl.trainer.main_ppo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2", "+actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True"]
