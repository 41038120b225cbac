#!/bin/bash
# ends without a newline
python3 -m verl.trainer.main_ppo \
    data.image_key=images \
    actor_rollout_ref.rollout.mm_processor_cache_gb=4