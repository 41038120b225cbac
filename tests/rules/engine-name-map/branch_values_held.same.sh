#!/bin/bash
# the loop's variable also names the run: the new value would rename it, so a person decides
for engine in vllm sglang_async; do
    python3 -m verl.trainer.main_ppo \
        actor_rollout_ref.rollout.name=$engine \
        trainer.experiment_name="run_${engine}"
done

# the loop already runs the new engine: mapping would run it twice
for engine in sglang sglang_async; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$engine
done

# the array is printed too
ENGINES=(vllm sglang_async)
echo "engines: ${ENGINES[*]}"
for engine in "${ENGINES[@]}"; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$engine
done
