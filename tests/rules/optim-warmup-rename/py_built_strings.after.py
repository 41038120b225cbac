"""Overrides a Python expression builds (f-strings, `+`, `%`, `.format`): the key is written out, so a rename
rewrites it; the value stays."""
import subprocess
import sys

from hydra import compose


def run(style, tmp_path):
    compose(config_name="train", overrides=[f"actor.optim.lr_scheduler_type={style}", f"trainer.dir={tmp_path}"])
    subprocess.run([sys.executable, "-m", "trainer.main", "critic.optim.lr_scheduler_type=" + style], check=True)
    subprocess.run([sys.executable, "-m", "trainer.main", "critic.optim.lr_scheduler_type=%s" % style,
                    "actor.optim.lr_scheduler_type={}".format(style), "trainer.name=%s-{}" % style], check=True)


COMMON = ["actor.optim.lr_scheduler_type=cosine", "trainer.epochs=1"]  # what `[...] + COMMON` adds to a launch
LAUNCH = [sys.executable, "-m", "trainer.main", "trainer.seed=1"] + COMMON
