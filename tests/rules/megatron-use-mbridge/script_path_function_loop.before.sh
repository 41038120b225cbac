#!/bin/bash
run_one() {
    local seed=$1
    python3 verl/trainer/main_ppo.py \
        --config-name ppo_megatron_trainer \
        actor_rollout_ref.actor.megatron.use_mbridge=False \
        data.seed="$seed"
}

for seed in 1 2 3; do
    run_one "$seed"
done

for tp in 1 2; do
    python -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.tensor_model_parallel_size=$tp actor_rollout_ref.ref.megatron.use_mbridge=false
done
