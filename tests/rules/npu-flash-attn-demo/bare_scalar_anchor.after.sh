ACTOR=actor_rollout_ref.actor.megatron.param_offload=True
python3 -m verl.trainer.main_ppo $ACTOR trainer.x=1 +actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True
