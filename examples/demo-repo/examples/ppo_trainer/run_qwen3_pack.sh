#!/usr/bin/env bash
# engine settings packed into strings and word-split at the launch
ACTOR_ENGINE="actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.use_mbridge=False"
REF_ENGINE="actor_rollout_ref.ref.megatron.use_mbridge=False actor_rollout_ref.ref.megatron.param_offload=True"

python3 -m verl.trainer.main_ppo \
    $ACTOR_ENGINE \
    $REF_ENGINE \
    trainer.total_epochs=1
