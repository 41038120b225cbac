"""Override lists handed to compose() through a name: the list it is assigned, and what is added to it."""
from hydra import compose


def build(name):
    overrides = ["actor.optim.lr_scheduler_type=cosine", "trainer.epochs=1"]
    overrides += ["critic.optim.lr_scheduler_type=linear"]
    overrides.extend(["++ref.optim.lr_scheduler_type=constant"])
    return compose(config_name=name, overrides=overrides)


def unrelated():
    notes = ["actor.optim.warmup_style=cosine"]  # never handed to compose(): text, left alone
    return notes


def reassigned(name, load):
    dead = ["actor.optim.warmup_style=cosine"]  # replaced before compose() reads it: not what it gets
    dead = load()
    return compose(config_name=name, overrides=dead)
