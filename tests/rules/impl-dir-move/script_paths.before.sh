uv run --frozen python reference-impls/ppo/train.py env=cartpole \
    optim.lr=3e-4
torchrun --nproc-per-node 2 ./reference-impls/ppo/train_multi.py env=ant
