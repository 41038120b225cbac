"""An upstream with a Hydra app and a downstream that runs it, as real git repositories (issue 43, item 2).

The upstream `upkg` renames `optim.warmup` to `optim.schedule` (#12), then moves its entry point `upkg.main` to
`upkg.trainer.main` (#13). The downstream runs `python3 -m upkg.main` with the old key, and has an app of its own
whose config extends the upstream's through the search path `pkg://upkg.config`, in a package `recipe` the
upstream has one of too.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.fake_github import FakeGitHub

MAIN = '''import hydra


@hydra.main(config_path="{where}", config_name="trainer", version_base=None)
def main(cfg):
    print(cfg.optim.lr, cfg.optim.{key}, cfg.trainer.steps)


if __name__ == "__main__":
    main()
'''
TRAINER = "optim:\n  lr: 0.1\n  {key}: cosine\ntrainer:\n  steps: 10\n  save_every: 5\n"
OWN_LAUNCH = "#!/bin/bash\npython3 -m {module} trainer.steps=2\n"

RECIPE_MAIN = '''import hydra


@hydra.main(config_path="config", config_name="boosted", version_base=None)
def main(cfg):
    print(cfg.recipe.boost, cfg.optim.lr)


if __name__ == "__main__":
    main()
'''
# the downstream's config: the upstream's `trainer` through the search path, with a section of its own
BOOSTED = "hydra:\n  searchpath:\n    - pkg://upkg.config\ndefaults:\n  - trainer\n  - _self_\nrecipe:\n  boost: 2\n"
TRAIN = """#!/bin/bash
set -e
python3 -m upkg.main optim.warmup=linear trainer.steps=3
"""
BOOST = """#!/bin/bash
python3 -m recipe.main recipe.boost=3 optim.warmup=constant trainer.save_every=2
"""


@dataclass
class Pair:
    upstream: Path
    downstream: Path
    base: str  # the upstream before its changes
    renamed: str  # after #12, the key renamed
    moved: str  # after #13, the entry point moved


def upstream_and_downstream(tmp_path: Path) -> Pair:
    up = make_repo(tmp_path / "upstream", {
        "upkg/__init__.py": "", "upkg/main.py": MAIN.format(where="config", key="warmup"),
        "upkg/config/trainer.yaml": TRAINER.format(key="warmup"),
        "examples/run.sh": OWN_LAUNCH.format(module="upkg.main"), "README.md": "upkg\n",
        # a `recipe` package of the upstream's own, as verl had: the downstream's `recipe` is never replaced by it
        "recipe/__init__.py": "", "recipe/main.py": "print('the upstream's recipe')\n"})
    base = git(up, "rev-parse", "HEAD").strip()
    (up / "upkg/config/trainer.yaml").write_text(TRAINER.format(key="schedule"))
    (up / "upkg/main.py").write_text(MAIN.format(where="config", key="schedule"))
    git(up, "commit", "-qam", "Rename optim.warmup to optim.schedule (#12)")
    renamed = git(up, "rev-parse", "HEAD").strip()
    (up / "upkg/trainer").mkdir()
    (up / "upkg/trainer/__init__.py").write_text("")
    git(up, "mv", "upkg/main.py", "upkg/trainer/main.py")
    (up / "upkg/trainer/main.py").write_text(MAIN.format(where="../config", key="schedule"))
    (up / "examples/run.sh").write_text(OWN_LAUNCH.format(module="upkg.trainer.main"))
    git(up, "add", "-A")
    git(up, "commit", "-qm", "Move the trainer's entry point into upkg.trainer (#13)")
    moved = git(up, "rev-parse", "HEAD").strip()
    down = make_repo(tmp_path / "downstream", {
        "scripts/train.sh": TRAIN, "scripts/boost.sh": BOOST, "recipe/__init__.py": "",
        "recipe/main.py": RECIPE_MAIN, "recipe/config/boosted.yaml": BOOSTED,
        "requirements.txt": f"upkg @ git+https://example.invalid/upkg.git@{base}\n"})
    return Pair(up, down, base, renamed, moved)


@dataclass
class Published:
    """The downstream behind the loopback GitHub as `acme/recipes` (a bare clone), with a bot.toml naming it and the
    upstream `upkg`."""

    fake: FakeGitHub
    bare: Path
    config: Path

    def shown(self, ref: str, path: str) -> str:
        """A file of the bare repository at `ref`."""
        return subprocess.run(["git", "--git-dir", str(self.bare), "show", f"{ref}:{path}"], capture_output=True,
                              text=True, check=True).stdout


@contextmanager
def published(pair: Pair, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token: str) -> Iterator[Published]:
    """The pair's downstream published on a loopback fake of GitHub's API, the environment pointing the bot at it."""
    bare = tmp_path / "recipes.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(pair.downstream), str(bare)], check=True)
    fake = FakeGitHub(tokens={token: "followup-bot"})
    try:
        fake.add_repo("acme/recipes", bare, "main")
        config = tmp_path / "bot.toml"
        config.write_text(f'[repos.recipes]\ngithub = "acme/recipes"\nclone_url = "{bare}"\n\n'
                          f'[repos.upkg]\npath = "{pair.upstream}"\n')
        monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
        monkeypatch.setenv("GITHUB_API_URL", fake.url)
        monkeypatch.setenv("BOT_GITHUB_TOKEN", token)
        yield Published(fake, bare, config)
    finally:
        fake.stop()
