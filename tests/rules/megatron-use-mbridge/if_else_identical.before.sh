#!/bin/bash
if [ "$NODES" -gt 1 ]; then
    MBRIDGE=False
    GPUS=16
else
    MBRIDGE=False
    GPUS=8
fi

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=$MBRIDGE \
    trainer.n_gpus_per_node=$GPUS
