#!/bin/bash
# A commented launch follows a rename to the interpolations it holds too, as notes.
# python3 -m trainer.main actor.optim.warmup_style=cosine trainer.run_dir='runs/${actor.optim.warmup_style}'
python3 -m trainer.main actor.optim.warmup_style=linear
