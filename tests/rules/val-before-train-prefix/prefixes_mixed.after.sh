#!/bin/bash
# only the single + form breaks; ++ and plain already work
if [ "$QUICK" = "1" ]; then
    python3 -m verl.trainer.main_ppo \
        ++trainer.val_before_train=False \
        trainer.total_epochs=1
elif [ "$QUICK" = "2" ]; then
    python3 -m verl.trainer.main_ppo trainer.val_before_train=True trainer.total_epochs=1
else
    python3 -m verl.trainer.main_ppo trainer.val_before_train=True trainer.total_epochs=5 2>&1 | tee full.log
fi
