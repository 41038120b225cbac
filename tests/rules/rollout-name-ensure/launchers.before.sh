#!/bin/bash
ray job submit --address="http://127.0.0.1:8265" \
    --runtime-env=verl/trainer/runtime_env.yaml \
    -- python3 -m verl.trainer.main_ppo \
    --config-path=config \
    actor_rollout_ref.rollout.tensor_model_parallel_size=4 \
    trainer.project_name=demo

torchrun --standalone --nnodes=1 --nproc_per_node=8 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.mode=async \
    trainer.total_epochs=1

for n in 2 4; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=$n trainer.total_epochs=1
done
