#!/bin/bash
# A short run on one GPU.
python train.py \
    trainer.epochs=3 \
    optim.lr=0.001
