#!/usr/bin/env bash
# the bridge choice also picks the checkpoint format below
bridge=False
if [ "$bridge" = "True" ]; then
    ckpt_args="actor_rollout_ref.actor.checkpoint.save_contents=[model,hf_model]"
else
    ckpt_args="actor_rollout_ref.actor.checkpoint.save_contents=[model]"
fi
case "$bridge" in
    True) echo "loading through the bridge" ;;
esac
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=$bridge \
    $ckpt_args \
    trainer.total_epochs=2
