#!/usr/bin/env bash
# two arms launch with one shared array; the second also sets a key of the transformer config itself
common=(
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
    actor_rollout_ref.actor.megatron.param_offload=False
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_method=uniform
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=full
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_num_layers=1
    trainer.total_epochs=1
)
if [ "$ACCEL" = gpu ]; then
    python3 -m verl.trainer.main_ppo "${common[@]}" $@
else
    python3 -m verl.trainer.main_ppo "${common[@]}" \
        +actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True \
        trainer.device=npu $@
fi
