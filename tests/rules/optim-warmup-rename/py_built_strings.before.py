"""Overrides a Python expression builds (f-strings, `+`, `%`, `.format`): the key is written out, so a rename
rewrites it; the value stays."""
import subprocess
import sys

from hydra import compose


def run(style, tmp_path):
    compose(config_name="train", overrides=[f"actor.optim.warmup_style={style}", f"trainer.dir={tmp_path}"])
    subprocess.run([sys.executable, "-m", "trainer.main", "critic.optim.warmup_style=" + style], check=True)
    subprocess.run([sys.executable, "-m", "trainer.main", "critic.optim.warmup_style=%s" % style,
                    "actor.optim.warmup_style={}".format(style), "trainer.name=%s-{}" % style], check=True)


COMMON = ["actor.optim.warmup_style=cosine", "trainer.epochs=1"]  # what `[...] + COMMON` adds to a launch
LAUNCH = [sys.executable, "-m", "trainer.main", "trainer.seed=1"] + COMMON
