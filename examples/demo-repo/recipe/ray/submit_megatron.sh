#!/bin/bash
set -x
RAY_ADDRESS=${RAY_ADDRESS:-http://127.0.0.1:8265}
WORKING_DIR=${WORKING_DIR:-$PWD}

ray job submit --address="$RAY_ADDRESS" \
    --runtime-env=verl/trainer/runtime_env.yaml \
    --working-dir="$WORKING_DIR" \
    -- python3 -m verl.trainer.main_ppo \
    --config-path=config \
    --config-name=ppo_megatron_trainer \
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    reward_model.megatron.use_mbridge=False \
    trainer.nnodes=2 \
    trainer.project_name=ray_demo $@
