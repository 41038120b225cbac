#!/usr/bin/env bash
ROLLOUT=(
    actor_rollout_ref.rollout.name=vllm
    # pack log-prob batches by token count
    # at most this many tokens per GPU
    actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=24000
)
REF=(actor_rollout_ref.ref.log_prob_use_dynamic_bsz=True actor_rollout_ref.ref.fsdp_config.param_offload=True)

python3 -m verl.trainer.main_ppo \
    "${ROLLOUT[@]}" \
    "${REF[@]}" \
    trainer.total_epochs=1
