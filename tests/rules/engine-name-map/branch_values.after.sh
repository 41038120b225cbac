#!/bin/bash
# a sweep over the rollout engines, one run per element of the array
ENGINES=("vllm" 'sglang')
for engine in "${ENGINES[@]}"; do
    python3 -m verl.trainer.main_ppo \
        actor_rollout_ref.rollout.name="${engine}" \
        trainer.total_epochs=1
done

# the same sweep written as words
for engine in vllm sglang; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$engine
done

# one engine per branch
if [ "$FAST" = 1 ]; then
    ENGINE=sglang
else
    ENGINE=vllm
fi
python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$ENGINE

# text bash never expands names the variable: a comment (logs go to logs/$run.txt), single quotes, a quoted here-doc
for run in vllm sglang; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=$run
    echo 'engine: $run'
    cat > notes.txt <<'NOTES'
$run
NOTES
done
