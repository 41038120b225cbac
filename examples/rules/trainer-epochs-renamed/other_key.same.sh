#!/bin/bash
# Another section's epochs are not the trainer's.
python train.py eval.epochs=1
