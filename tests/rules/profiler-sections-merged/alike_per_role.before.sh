#!/usr/bin/env bash
# every role profiles the same way: one shared setting is enough
STEPS="[1,3]"
python3 -m team.run \
    team.trainer.profiler.steps=$STEPS \
    team.trainer.profiler.enable=True \
    team.trainer.lr=0.1 \
    team.learner.profiler.steps=$STEPS \
    team.learner.profiler.enable=True \
    team.scorer.profiler.steps=$STEPS \
    team.scorer.profiler.enable=True
