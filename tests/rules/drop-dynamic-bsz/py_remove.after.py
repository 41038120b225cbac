OVERRIDES = dict(overrides=[
    "trainer.total_epochs=1",
])
LAST = ["python3", "-m", "verl.trainer.main_ppo", "trainer.total_epochs=1"]
