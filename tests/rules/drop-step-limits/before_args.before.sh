#!/bin/bash
python3 -m lab.train \
    data.batch=64   \
    trainer.total_epochs=2 \
    trainer.total_training_steps=50 "$@"
python3 -m lab.train \
    trainer.total_epochs=2 \
    trainer.total_training_steps=50 \
    data.batch=64
