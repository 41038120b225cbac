#!/bin/bash
# the function reads ENGINE when it is called: the assignment stays, the override gets the new name
report() { echo "$ENGINE" >> runs.log; }
ENGINE=sglang_async
python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=sglang
report
