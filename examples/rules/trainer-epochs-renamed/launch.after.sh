#!/bin/bash
# A short run on one GPU.
python train.py \
    trainer.max_epochs=3 \
    optim.lr=0.001
