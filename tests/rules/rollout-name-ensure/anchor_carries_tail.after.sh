#!/bin/bash
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=256 \
    actor_rollout_ref.rollout.n=5 \
    actor_rollout_ref.rollout.name=vllm $@

python3 -m verl.trainer.main_ppo \
    trainer.total_epochs=1 \
    actor_rollout_ref.rollout.temperature=0.7 \
    actor_rollout_ref.rollout.name=vllm 2>&1 | tee gen.log

python3 -m verl.trainer.main_ppo \
    trainer.total_epochs=2 \
    actor_rollout_ref.rollout.top_p=0.95 \
    actor_rollout_ref.rollout.name=vllm "$@"
