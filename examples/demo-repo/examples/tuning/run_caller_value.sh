#!/bin/bash
# usage: bash run_caller_value.sh <use_mbridge> [more overrides]
USE_MBRIDGE=$1
shift

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.use_mbridge=$USE_MBRIDGE \
    critic.megatron.use_mbridge=${CRITIC_MBRIDGE} \
    trainer.total_epochs=1 "$@"
