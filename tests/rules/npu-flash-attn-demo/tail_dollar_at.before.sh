#!/bin/bash
python3 -m verl.trainer.main_ppo \
    trainer.total_epochs=1 \
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4 $@
