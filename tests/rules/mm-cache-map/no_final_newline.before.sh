#!/bin/bash
# ends without a newline
python3 -m verl.trainer.main_ppo \
    data.image_key=images \
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache=False