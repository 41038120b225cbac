#!/bin/bash
# A launch inside `bash -c "..."` gets the override inside the string, in its own layout.
srun bash -c "
    python3 -m verl.trainer.main_ppo \
        actor_rollout_ref.rollout.n=4 \
        actor_rollout_ref.rollout.name=vllm \
        trainer.total_epochs=1
"
singularity exec img.sif bash -c 'python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.name=vllm'
