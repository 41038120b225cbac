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

# a test for the old value picks the mode: the mapped value would take the other branch
for engine in vllm sglang_async; do
    MODE=sync
    if [ "$engine" = sglang_async ]; then MODE=async; fi
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$engine actor_rollout_ref.rollout.mode=$MODE
done

# the body gives the loop's variable the new value once more
for engine in sglang_async vllm; do
    if [ "$engine" = vllm ]; then engine=sglang; fi
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$engine
done

# an element picked by a run-time index
for i in 0 1; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=${ENGINES[$i]}
done

# a case on the loop's variable, and a function that reads it when called
log_dir() { echo "/logs/$engine"; }
for engine in vllm sglang_async; do
    case $engine in
        sglang_async) MODE=async ;;
        *) MODE=sync ;;
    esac
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$engine actor_rollout_ref.rollout.mode=$MODE
done
for engine in vllm sglang_async; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$engine
    mkdir -p "$(log_dir)"
done
