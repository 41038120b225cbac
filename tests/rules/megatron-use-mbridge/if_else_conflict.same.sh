#!/bin/bash
if [ "$ENGINE" = "megatron" ]; then
    MBRIDGE=False
else
    MBRIDGE=True
fi

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=$MBRIDGE \
    trainer.total_epochs=1
