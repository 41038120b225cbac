#!/bin/bash
# cluster jobs wrap the launch in a shell of its own
BRIDGE=True
srun --nodes=2 apptainer exec trainer.sif bash -c "
    cd \$HOME/verl 2>/dev/null; true
"
srun --nodes=2 apptainer exec trainer.sif bash -c "
    export RAY_DEDUP_LOGS=0 \
    && python3 -m verl.trainer.main_ppo \
        actor_rollout_ref.actor.megatron.use_mbridge=$BRIDGE \
        trainer.nnodes=$((2 * 1)) \
        critic.megatron.use_mbridge=true
"
apptainer exec trainer.sif bash -lc 'python3 -m verl.trainer.main_ppo actor_rollout_ref.ref.megatron.use_mbridge=True'
python3 -c "print('actor_rollout_ref.actor.megatron.use_mbridge=False')"
