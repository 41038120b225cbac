out=$(python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False)
out=`python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False`
timeout -s KILL 3h python3 -m verl.trainer.main_ppo reward_model.megatron.use_mbridge=False
deepspeed --num_gpus 8 verl/trainer/main_ppo.py actor_rollout_ref.ref.megatron.use_mbridge=False
accelerate launch --num_processes 8 verl/trainer/main_ppo.py a.megatron.use_mbridge=False
python3 -m verl.trainer.main_ppo b.megatron.use_mbridge=${1:-False}
