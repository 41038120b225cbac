#!/bin/bash
# every Megatron role, each accepted Hydra prefix, each non-true spelling
python -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    +actor_rollout_ref.ref.megatron.use_mbridge=false \
    ++critic.megatron.use_mbridge=0 \
    reward_model.megatron.use_mbridge=null \
    actor_rollout_ref.actor.megatron.param_offload=True \
    trainer.n_gpus_per_node=8 "$@"
