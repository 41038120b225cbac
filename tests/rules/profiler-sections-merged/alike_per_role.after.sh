#!/usr/bin/env bash
# every role profiles the same way: one shared setting is enough
STEPS="[1,3]"
python3 -m team.run \
    team.profiler.steps=$STEPS \
    team.profiler.enable=True \
    team.trainer.lr=0.1
