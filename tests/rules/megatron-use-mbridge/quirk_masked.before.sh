#!/bin/bash
# valid bash that tree-sitter-bash reads as an error unless masked: parentheses nested in
# arithmetic inside a default, and a default that starts with a bracket
GPUS=${GPUS:-$(((NODES + 1) * 8))}
TOOLS=${TOOLS:-['cpu','npu']}
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    trainer.n_gpus_per_node=$GPUS \
    actor_rollout_ref.actor.profiler.tools=$TOOLS \
    critic.megatron.use_mbridge=False \
    trainer.total_epochs=1
