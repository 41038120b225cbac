#!/bin/bash
set -x
ray job submit --address="http://127.0.0.1:8265" \
    --runtime-env=verl/trainer/runtime_env.yaml \
    --no-wait \
    -- python3 -m verl.trainer.main_ppo \
    --config-path=config \
    --config-name=ppo_megatron_trainer \
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    critic.megatron.use_mbridge=False \
    trainer.project_name=demo 2>&1 | tee ray_run.log
