uv run --frozen python reference-impls/ppo_v2/train.py env=cartpole \
    optim.lr=3e-4
torchrun --nproc-per-node 2 ./reference-impls/ppo_v2/train_multi.py env=ant
