#!/bin/bash
# The last override of a launch inside `bash -c "..."` goes with the continuation before it.
srun bash -c "
    python3 -m verl.trainer.main_ppo \
        trainer.total_epochs=1
"
