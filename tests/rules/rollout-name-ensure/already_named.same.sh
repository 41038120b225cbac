#!/bin/bash
# a name with any prefix or value (or from a variable) counts as present
ENGINE=${ENGINE:-sglang}
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.n=4 \
    +actor_rollout_ref.rollout.name=sglang \
    trainer.total_epochs=1
python3 -m verl.trainer.main_ppo \
    ++actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.5
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.temperature=1.0 \
    actor_rollout_ref.rollout.name=$ENGINE
