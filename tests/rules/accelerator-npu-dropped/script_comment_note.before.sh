#!/bin/bash
# On Ascend machines this used to be needed:
# trainer.accelerator=npu
python3 -m toolkit.train \
    trainer.accelerator=npu \
    trainer.epochs=2
