#!/bin/bash
# Every override of these launches has a value known only at run time: its word is still a place for the
# new one (a variable holding overrides is one only where its text is a literal).
srun python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.tensor_model_parallel_size=${TP} actor_rollout_ref.rollout.name=vllm
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.gpu_memory_utilization="$MEM" \
    actor_rollout_ref.rollout.n=${N:-4} \
    actor_rollout_ref.rollout.name=vllm
