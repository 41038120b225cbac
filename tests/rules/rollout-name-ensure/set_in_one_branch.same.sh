#!/bin/bash
# only the sglang runs name their engine; the other runs rely on a default that is gone
if [ "$ENGINE" = sglang ]; then
    ENGINE_ARGS="actor_rollout_ref.rollout.name=sglang"
else
    ENGINE_ARGS=""
fi
python3 -m verl.trainer.main_ppo $ENGINE_ARGS \
    actor_rollout_ref.rollout.n=4 \
    trainer.total_epochs=1
