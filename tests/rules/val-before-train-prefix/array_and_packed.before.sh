#!/usr/bin/env bash
TRAINER=(
    trainer.logger='["console","wandb"]'
    # skip the initial validation pass
    +trainer.val_before_train=false \
    trainer.save_freq=-1
)
EXTRA="trainer.nnodes=1 +trainer.val_before_train=False trainer.n_gpus_per_node=8"

python3 -m verl.trainer.main_ppo \
    "${TRAINER[@]}" \
    $EXTRA \
    trainer.total_epochs=1
