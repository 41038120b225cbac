#!/usr/bin/env bash
# the roles profile different ranks: which one the shared section takes is a person's call
python3 -m team.run \
    team.trainer.profiler.ranks=[0,1] \
    team.trainer.profiler.enable=True \
    team.learner.profiler.ranks=[2,3] \
    team.learner.profiler.enable=True
python3 -m team.run team.profiler.enable=False team.scorer.profiler.enable=True
python3 -m team.run team.profiler.enable=True team.scorer.profiler.enable=True
