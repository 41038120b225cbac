#!/bin/bash
# tabs indent the overrides; this comment ends in two spaces  
python3 -m verl.trainer.main_ppo \
	actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
	actor_rollout_ref.actor.megatron.use_mbridge=True \
	critic.megatron.use_mbridge=True