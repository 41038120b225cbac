#!/bin/bash
# SPIN on Megatron; the bridge flag depends on the model family
if [[ "$MODEL" == *deepseek* ]]; then
    BRIDGE=False
else
    BRIDGE=True
fi

train() {
    python -m recipe.spin.main_spin \
        actor_rollout_ref.actor.megatron.tensor_model_parallel_size="$1" \
        actor_rollout_ref.actor.megatron.use_mbridge=$BRIDGE
}

for tp in 2 4; do
    train "$tp"
done
