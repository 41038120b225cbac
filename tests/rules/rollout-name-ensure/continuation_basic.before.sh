#!/usr/bin/env bash
set -xeuo pipefail
python3 -m verl.trainer.main_ppo \
    --config-name=ppo_trainer \
    data.train_batch_size=1024 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \
    actor_rollout_ref.rollout.val_kwargs.n=4 \
    actor_rollout_ref.ref.fsdp_config.param_offload=True \
    trainer.total_epochs=15 $@
