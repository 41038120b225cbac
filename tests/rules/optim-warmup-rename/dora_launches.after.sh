#!/bin/bash
# dora runs the `train` module of its package (-P, else the one beside it) with Hydra's overrides
dora run actor.optim.lr_scheduler_type=cosine
dora -P trainer run -d --clear actor.optim.lr_scheduler_type=cosine
python -m dora -P trainer --main_module main launch -g 8 -p big critic.optim.lr_scheduler_type=linear
srun --ntasks=1 dora run actor.optim.lr_scheduler_type=cosine
dora info -f 81aa3b2c critic.optim.lr_scheduler_type=linear
dora grid warmup_sweep --dry_run
