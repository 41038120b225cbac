#!/bin/bash
ray job submit --address="http://127.0.0.1:8265" \
    --runtime-env=verl/trainer/runtime_env.yaml \
    -- python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1 \
    actor_rollout_ref.actor.optim.lr_scheduler_type=constant 2>&1 | tee warmup.log

for lr in 1e-6 3e-6; do
    python -m verl.trainer.main_ppo actor_rollout_ref.actor.optim.lr=$lr critic.optim.lr_scheduler_type=cosine trainer.total_epochs=1
done
