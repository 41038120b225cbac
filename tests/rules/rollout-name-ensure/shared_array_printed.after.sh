#!/bin/bash
# the array is also written to a log, so a new element would change more than the launches
shared=(
    actor_rollout_ref.rollout.n=4
    data.train_batch_size=128
)
echo "args: ${shared[*]}" > run_args.txt
python3 -m verl.trainer.main_ppo "${shared[@]}" \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    actor_rollout_ref.rollout.name=vllm
python3 -m verl.trainer.main_ppo "${shared[@]}" \
    actor_rollout_ref.rollout.tensor_model_parallel_size=4 \
    actor_rollout_ref.rollout.name=vllm
