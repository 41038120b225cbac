#!/bin/bash
# two launches spread one array; each also sets a rollout key of its own
shared=(
    actor_rollout_ref.rollout.n=4
    actor_rollout_ref.rollout.temperature=0.7
    actor_rollout_ref.rollout.name=vllm
    data.train_batch_size=128
)
python3 -m verl.trainer.main_ppo "${shared[@]}" \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    trainer.total_epochs=1
python3 -m verl.trainer.main_ppo "${shared[@]}" \
    actor_rollout_ref.rollout.tensor_model_parallel_size=4 \
    trainer.total_epochs=2
