"""Branch-true composition: a launch is composed once per way its own script's branches can go.

Our own fixtures of a shape common in real launch scripts: an `if/elif/else` on a backend variable
assigns a block of overrides per engine, and the launch after it passes that block together with a
config-group choice read from the same variable.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.engine.scan import compose_scan
from bot.lang.shell.combinations import MAX_COMBINATIONS, combinations
from bot.lang.shell.parse import analyse
from tests.conftest import make_repo

TRAINER = '''\
import hydra


@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(cfg):
    print(cfg)
'''
TREE = {
    "lab/train.py": TRAINER,
    "lab/conf/train.yaml": "defaults:\n  - backend: local\n  - _self_\nepochs: 1\n",
    "lab/conf/backend/local.yaml": "threads: 4\n",
    "lab/conf/backend/cluster.yaml": "nodes: 2\nqueue: short\n",
    "lab/conf/backend/cloud.yaml": "region: north\nnodes: 1\n",
}

SWITCH = """\
#!/bin/bash
kind=${KIND:-local}
if [ "$kind" = "local" ]; then
    ARGS="backend.threads=8"
elif [ "$kind" = "cluster" ]; then
    ARGS="backend.nodes=4 backend.queue=long"
else
    ARGS="backend.region=south"
fi
python3 -m lab.train backend=${kind} ${ARGS} epochs=3
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "lab", TREE)


def _scan(repo: Path, script: str) -> tuple[list[tuple[int, str, str]], object]:
    (repo / "run.sh").write_text(script)
    report, stats = compose_scan(repo)
    return [(f.line, f.key, f.message) for f in report.findings], stats


def test_each_arm_composes_with_the_group_choice_it_makes(repo: Path) -> None:
    findings, stats = _scan(repo, SWITCH)
    assert findings == []  # composed as one launch, every arm's keys would miss the default backend
    assert stats.readings == 3  # type: ignore[attr-defined]


def test_a_key_wrong_in_one_arm_is_reported_for_that_arm(repo: Path) -> None:
    findings, _ = _scan(repo, SWITCH.replace("backend.queue=long", "backend.region=east"))
    ((line, key, message),) = findings
    assert (line, key) == (6, "backend.region")
    assert "Key 'region' is not in struct" in message
    assert 'elif [ "$kind" = "cluster" ]' in message and "kind=cluster" in message


def test_the_else_arm_takes_each_group_option_the_tests_leave(repo: Path) -> None:
    findings, _ = _scan(repo, SWITCH)  # else: kind is neither local nor cluster, so backend=cloud
    assert findings == []
    wrong = SWITCH.replace('ARGS="backend.region=south"', 'ARGS="backend.threads=2"')
    ((line, key, message),) = _scan(repo, wrong)[0]
    assert (line, key) == (8, "backend.threads") and "kind=cloud" in message
    (repo / "lab/conf/backend/edge.yaml").write_text("threads: 1\n")
    assert _scan(repo, wrong)[0] == []  # with kind=edge it composes: not surely wrong, not reported


def test_a_definition_replaced_in_an_arm_is_not_read_there(repo: Path) -> None:
    script = """\
#!/bin/bash
EXTRA="backend.threads=8"
if [ -n "$REMOTE" ]; then
    EXTRA="backend@_here_=cluster"
fi
python3 -m lab.train ${EXTRA}
"""
    src = script.encode()
    parsed = analyse(src)
    (launch,) = parsed.launches
    found = combinations(launch, parsed.statements, parsed.reaching)
    assert sorted([o.text for o in c.overrides] for c in found.items) == [["backend.threads=8"],
                                                                          ["backend@_here_=cluster"]]


def test_a_command_chosen_in_an_arm_keeps_to_that_arm(repo: Path) -> None:
    script = """\
#!/bin/bash
if [ "$MODE" = solo ]; then
    CMD="python3 -m lab.train"
    OPTS="backend.threads=1"
else
    CMD="python3 -m lab.train_many"
    OPTS="backend.nodes=9"
fi
$CMD $OPTS
"""
    parsed = analyse(script.encode())
    single = next(launch for launch in parsed.launches if launch.entry == "lab.train")
    (only,) = combinations(single, parsed.statements, parsed.reaching).items
    assert [o.text for o in only.overrides] == ["backend.threads=1"]


def test_past_the_limit_the_report_says_so(repo: Path) -> None:
    arms = "".join(f'if [ "$F{i}" = on ]; then A{i}="epochs={i}"; else A{i}="epochs=0"; fi\n' for i in range(5))
    uses = " ".join(f"${{A{i}}}" for i in range(5))
    _, stats = _scan(repo, f"#!/bin/bash\n{arms}python3 -m lab.train {uses}\n")
    assert stats.readings == MAX_COMBINATIONS  # type: ignore[attr-defined]
    assert any("32 ways through the script's branches" in reason
               for _, _, reason in stats.unresolved)  # type: ignore[attr-defined]


def test_a_case_statement_splits_like_an_if(repo: Path) -> None:
    script = """\
#!/bin/bash
case "$SIZE" in
  small) ARGS="backend=local backend.threads=2" ;;
  big|huge) ARGS="backend=cluster backend.nodes=16" ;;
esac
python3 -m lab.train $ARGS
"""
    findings, stats = _scan(repo, script)
    assert findings == [] and stats.readings == 3  # type: ignore[attr-defined]  # small, big|huge, neither


def test_the_fast_base_copy_answers_as_omegaconf_copy_does(repo: Path) -> None:
    """Applied.fresh_copy (a pickling round trip) against OmegaConf's own copy, on every fixture launch."""
    from bot.compose.launches import check_script
    from bot.engine.context import scan_context
    from bot.hydra.compose import Composer
    from bot.lang import launch_reader
    from tests.test_compose import SCRIPT, TREE

    scripts = {"lab": (repo, [SWITCH, SWITCH.replace("backend.queue=long", "backend.region=east")])}
    other = make_repo(repo.parent / "other", TREE)
    scripts["verl"] = (other, [SCRIPT])
    for root, texts in scripts.values():
        for text in texts:
            (view,) = launch_reader("run.sh", "shell").launch_views(text.encode())
            fast = check_script("run.sh", scan_context(root), view.launches)
            (view,) = launch_reader("run.sh", "shell").launch_views(text.encode())
            plain = check_script("run.sh", replace(scan_context(root), composer=Composer(plain_copies=True)),
                                 view.launches)
            assert [(f.line, f.key, f.message) for f in fast] == [(f.line, f.key, f.message) for f in plain]
            assert fast or root == repo
