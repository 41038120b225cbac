ACTOR=actor_rollout_ref.actor.megatron.param_offload=True
python3 -m verl.trainer.main_ppo $ACTOR trainer.x=1
