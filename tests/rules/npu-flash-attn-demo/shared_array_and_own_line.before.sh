ACTOR=(
    actor_rollout_ref.actor.megatron.param_offload=True
)
python3 -m verl.trainer.main_ppo "${ACTOR[@]}" trainer.x=1
python3 -m verl.trainer.main_ppo "${ACTOR[@]}" \
    actor_rollout_ref.actor.megatron.override_transformer_config.num_layers=2 \
    trainer.y=1
