#!/bin/bash
MBRIDGE=False
echo "use_mbridge=$MBRIDGE"

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=$MBRIDGE \
    actor_rollout_ref.ref.megatron.use_mbridge=${MBRIDGE} \
    trainer.total_epochs=1
