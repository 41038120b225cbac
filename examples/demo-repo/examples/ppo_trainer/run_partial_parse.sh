#!/bin/bash
# the NUM_GPUS default nests parentheses in arithmetic (tree-sitter-bash needs a masked copy to read it),
# and the command was pasted with a backslash still ending its last line, which it cannot read at all
NODES=${NODES:-1}

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    trainer.n_gpus_per_node=${NUM_GPUS:-$(((NODES+1)*4))} \
    critic.megatron.use_mbridge=False \
    trainer.logger='["console"]' \
    trainer.total_epochs=1 \
    actor_rollout_ref.ref.megatron.use_mbridge=False \