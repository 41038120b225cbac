#!/usr/bin/env bash
set -xeuo pipefail

MODEL_PATH=${MODEL_PATH:-$HOME/models/Qwen2.5-7B}

python3 -m verl.trainer.main_ppo \
    --config-path=config \
    --config-name=ppo_megatron_trainer \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path="$MODEL_PATH" \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.use_mbridge=True \
    actor_rollout_ref.rollout.name=vllm \
    trainer.total_epochs=3 $@
