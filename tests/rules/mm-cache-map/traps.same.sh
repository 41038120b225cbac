#!/bin/bash
# actor_rollout_ref.rollout.disable_mm_preprocessor_cache=True was needed for Qwen2-VL
echo "try actor_rollout_ref.rollout.disable_mm_preprocessor_cache=True if OOM"

cat <<HINT
actor_rollout_ref.rollout.disable_mm_preprocessor_cache=False
HINT

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache_x=True \
    actor_rollout_ref.rollout.disable_mm_preprocessor_caches=False \
    actor_rollout_ref.actor.disable_mm_preprocessor_cache=True \
    actor_rollout_ref.rollout.engine_kwargs.vllm.disable_mm_preprocessor_cache=True \
    actor_rollout_ref.rollout.mm_processor_cache_gb=4 \
    trainer.total_epochs=1  # disable_mm_preprocessor_cache=True
