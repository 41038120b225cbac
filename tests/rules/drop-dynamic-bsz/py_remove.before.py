OVERRIDES = dict(overrides=[
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True",
    "trainer.total_epochs=1",
])
LAST = ["python3", "-m", "verl.trainer.main_ppo", "trainer.total_epochs=1", "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True"]
