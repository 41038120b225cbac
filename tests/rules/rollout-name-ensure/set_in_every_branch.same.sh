#!/bin/bash
# each way through the script names the engine
case "$BACKEND" in
    sgl) ROLLOUT=(actor_rollout_ref.rollout.name=sglang actor_rollout_ref.rollout.n=8) ;;
    *) ROLLOUT=(actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4) ;;
esac
python3 -m verl.trainer.main_ppo "${ROLLOUT[@]}" trainer.total_epochs=1
