# A launch held in a variable that recipes run with more words: an ensure adds nothing to it (a recipe
# may set the key itself, and a second setting of it would not compose)
RUN = python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=4

train:
	$(RUN) actor_rollout_ref.rollout.name=sglang
