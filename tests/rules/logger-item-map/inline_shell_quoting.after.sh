#!/bin/bash
# a list inside a single-quoted script keeps its own (unquoted) form
srun bash -c 'python3 -m verl.trainer.main_ppo trainer.logger=[console,tensorboard] trainer.total_epochs=1'
