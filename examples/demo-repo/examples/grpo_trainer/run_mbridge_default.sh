#!/bin/bash
set -x

USE_MBRIDGE=${USE_MBRIDGE:-False}
TP=${TP:-2}

python3 -m verl.trainer.main_ppo \
    --config-name=ppo_megatron_trainer \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=$TP \
    actor_rollout_ref.actor.megatron.use_mbridge=$USE_MBRIDGE \
    actor_rollout_ref.ref.megatron.tensor_model_parallel_size=$TP \
    actor_rollout_ref.ref.megatron.use_mbridge=${USE_MBRIDGE} \
    critic.megatron.use_mbridge=$USE_MBRIDGE \
    trainer.total_epochs=1 2>&1 | tee mbridge_default.log
