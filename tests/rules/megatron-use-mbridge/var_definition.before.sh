#!/bin/bash
USE_MBRIDGE=False
TP=2

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=$TP \
    actor_rollout_ref.actor.megatron.use_mbridge=$USE_MBRIDGE \
    actor_rollout_ref.ref.megatron.use_mbridge=${USE_MBRIDGE} \
    trainer.total_epochs=1
