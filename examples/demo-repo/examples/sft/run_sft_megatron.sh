#!/bin/bash
set -euo pipefail

nproc_per_node=8
save_path=${SAVE_PATH:-/tmp/sft}

torchrun --standalone --nnodes=1 --nproc_per_node=$nproc_per_node \
    -m verl.trainer.sft_trainer \
    data.train_files=$HOME/data/gsm8k/train.parquet \
    model.path=Qwen/Qwen2.5-0.5B-Instruct \
    engine=megatron \
    engine.tensor_model_parallel_size=2 \
    engine.use_mbridge=False \
    trainer.default_local_dir=$save_path \
    trainer.total_epochs=1 "$@"
