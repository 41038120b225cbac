#!/bin/bash
# trainer.accelerator=npu
# trainer.accelerator=npu trainer.epochs=1
python3 -m toolkit.train trainer.epochs=2
# python3 -m toolkit.train \
#     trainer.accelerator=npu \
#     trainer.epochs=1
# python3 -m toolkit.train \
#     trainer.accelerator=npu
