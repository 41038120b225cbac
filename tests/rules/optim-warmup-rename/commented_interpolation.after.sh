#!/bin/bash
# A commented launch follows a rename to the interpolations it holds too, as notes.
# python3 -m trainer.main actor.optim.lr_scheduler_type=cosine trainer.run_dir='runs/${actor.optim.lr_scheduler_type}'
python3 -m trainer.main actor.optim.lr_scheduler_type=linear
