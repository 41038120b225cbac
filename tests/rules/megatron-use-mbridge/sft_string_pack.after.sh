#!/bin/bash
set -euo pipefail

ENGINE_CONFIG="engine.tensor_model_parallel_size=2 engine.use_mbridge=True"

torchrun --standalone --nnodes=1 --nproc_per_node=8 \
    -m verl.trainer.sft_trainer \
    model.path=Qwen/Qwen2.5-0.5B-Instruct \
    $ENGINE_CONFIG \
    trainer.total_epochs=1
