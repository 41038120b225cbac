"""Apps that compose their config with Hydra's compose API, the config path and name taken from their
own command-line options: their launches are composed like `@hydra.main` apps'. Our own fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.launches import collect
from bot.engine.scan import compose_scan
from tests.conftest import make_repo

APP = '''\
import argparse

from hydra import compose, initialize


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config-path", dest="config_path", default="settings")
    parser.add_argument("--config_name", default="base")
    args, overrides = parser.parse_known_args()
    with initialize(config_path=args.config_path, version_base=None):
        cfg = compose(config_name=args.config_name, overrides=overrides)
    print(cfg)


if __name__ == "__main__":
    main()
'''
LOADER = '''\
import argparse
import sys

from omegaconf import OmegaConf

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="settings/base.yaml")
args, rest = parser.parse_known_args()
cfg = OmegaConf.merge(OmegaConf.load(args.config), OmegaConf.from_dotlist(rest))
'''
TREE = {
    "tool/run.py": APP,
    "tool/load.py": LOADER,
    "tool/settings/base.yaml": "defaults:\n  - optim: sgd\n  - _self_\nsteps: 10\n",
    "tool/settings/large.yaml": "defaults:\n  - base\n  - _self_\nsteps: 1000\nwidth: 4096\n",
    "tool/settings/optim/sgd.yaml": "lr: 0.1\n",
    "tool/settings/optim/adam.yaml": "lr: 0.001\nbetas: [0.9, 0.99]\n",
    "tool/other/solo.yaml": "seed: 1\n",
}
SCRIPT = """\
#!/bin/bash
python -m tool.run steps=5 optim=adam optim.betas=[0.8,0.9]
python -m tool.run --config_name large width=8 optim.betas=[0.8,0.9]
python -m tool.run --config-path=other --config_name=solo seed=2 steps=3
python -m tool.run --config_name "$NAME" steps=1
python -m tool.load --config tool/settings/base.yaml steps=4
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "tool", {**TREE, "scripts/train.sh": SCRIPT})


def test_a_compose_api_app_is_composed_with_its_options(repo: Path) -> None:
    report, stats = compose_scan(repo)
    found = {(f.line, f.key) for f in report.findings}
    # line 2 composes (adam has betas); line 3's large config keeps sgd, which has none; line 4's solo
    # config has no steps
    assert found == {(3, "optim.betas"), (4, "steps")}
    reasons = {line: reason for _, line, reason in stats.unresolved}
    assert reasons[5] == "tool/run.py: the compose API's config_name is $NAME, known at run time"
    assert reasons[6] == ("tool/load.py loads its config with OmegaConf.load (tool/settings/base.yaml), "
                          "not Hydra")


def test_bot_launches_names_the_compose_api(repo: Path) -> None:
    launches = collect(repo, "tool").launches
    first = launches[0]
    assert first.cls == "hydra" and first.evidence == "the compose API in tool/run.py"
    assert first.app is not None and first.app["config_dir"] == "tool/settings" and first.app["config_name"] == "base"
    assert launches[2].app is not None and launches[2].app["config_dir"] == "tool/other"


def test_an_else_branch_initialize_is_the_config_when_the_first_calls_option_is_not_given(tmp_path: Path) -> None:
    """`if args.config_dir is not None: initialize_config_dir(...) else: initialize(config_path="pkg://...")`:
    a launch without `--config-dir` composes the packaged config; one with it, the directory it names."""
    cli = ('import argparse\n\nfrom hydra import compose, initialize, initialize_config_dir\n\n\ndef main():\n'
           '    parser = argparse.ArgumentParser()\n    parser.add_argument("--config-dir")\n'
           '    parser.add_argument("--config-name", default="config")\n'
           '    args, overrides = parser.parse_known_args()\n    if args.config_dir is not None:\n'
           '        initialize_config_dir(version_base=None, config_dir=args.config_dir)\n    else:\n'
           '        initialize(version_base=None, config_path="pkg://lab.conf")\n'
           '    cfg = compose(config_name=args.config_name, overrides=overrides)\n\n\n'
           'if __name__ == "__main__":\n    main()\n')
    repo = make_repo(tmp_path / "r", {
        "lab/__init__.py": "", "lab/cli.py": cli, "lab/conf/config.yaml": "batch: 1\n",
        "mine/config.yaml": "batch: 1\nextra: 2\n",
        "run.sh": "python -m lab.cli batch=8 stale=1\npython -m lab.cli --config-dir mine extra=3\n"})
    launches = collect(repo, "r").launches
    assert [(launch.cls, launch.app and launch.app["config_dir"]) for launch in launches] == [
        ("hydra", "lab/conf"), ("hydra", "mine")]
    report, _ = compose_scan(repo)
    assert [(f.line, f.key) for f in report.findings] == [(1, "stale")]
