#!/bin/bash
# set up the tools first: none of these words is an override
python3 -m pip install zero==2.1.0
python -m pip install "zero>=2" --upgrade
python3 -m venv zero
pip install zero==2.1.0

# an app of another repository: its overrides are still renamed
python3 -m trainer_pkg.main \
    optim.sharding=3 \
    run.steps=10

# the same kind of word handed to an unknown module: Hydra would refuse it, so it is left to a person
python3 -m other_pkg.entry zero==2.1.0 run.steps=10
