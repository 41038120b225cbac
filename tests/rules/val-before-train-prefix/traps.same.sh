#!/bin/bash
# +trainer.val_before_train=False used to be required
echo "pass +trainer.val_before_train=False to skip validation"
cat > extra.args <<ARGS
+trainer.val_before_train=False
ARGS

python3 -m verl.trainer.main_ppo \
    ++trainer.val_before_train=False \
    +trainer.val_before_train_steps=2 \
    +trainer.val_only=False \
    +critic.trainer.val_before_train=False \
    ~trainer.val_before_train \
    trainer.total_epochs=1  # +trainer.val_before_train=True
