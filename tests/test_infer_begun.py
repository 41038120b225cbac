"""An inference begun before the caller needs it (`watch`: while git checks out the tree): the change's Python
files are handed to forked workers at once, and finishing it gives what a whole inference gives."""

from __future__ import annotations

import os
from pathlib import Path

from bot.upstream.infer import begin, infer
from tests.conftest import git, make_repo

ENGINE = '''\
from verl.workers.config import McoreEngineConfig


class MegatronEngine:
    def __init__(self, engine_config: McoreEngineConfig):
        self.engine_config = engine_config
{check}
'''
OTHER = "def limits(config):\n{check}\n"
YAML = """\
actor:
  megatron:
    _target_: verl.workers.config.McoreEngineConfig
    use_mbridge: false
"""


def test_a_begun_inference_reads_on_workers_at_once_and_finishes_as_a_whole_one(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"verl/workers/engine/megatron.py": ENGINE.format(check=""),
                                       "verl/utils/limits.py": OTHER.format(check="    pass"),
                                       "verl/trainer/config/ppo_megatron_trainer.yaml": YAML})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "verl/workers/engine/megatron.py").write_text(
        ENGINE.format(check='        assert self.engine_config.use_mbridge, "use_mbridge must be True"'))
    (repo / "verl/utils/limits.py").write_text(OTHER.format(check="    assert config.actor.tp > 0"))
    git(repo, "commit", "-qam", "checks")
    after = git(repo, "rev-parse", "HEAD").strip()
    begun = begin(repo, before, after)
    try:
        if len(os.sched_getaffinity(0)) >= 2:  # four texts handed to the workers before anyone waits for them
            assert begun.reading.forks is not None and begun.reading.forks.pending() == 4
        finished = infer(repo, before, after, [], begun)
    finally:
        begun.close()
    assert begun.reading.forks is None  # the workers ended
    whole = infer(repo, before, after, [])
    assert [p.rule for p in finished.proposals] == [p.rule for p in whole.proposals]
    assert [p.rule["id"] for p in finished.proposals] == ["inferred-use-mbridge"]
    assert finished.not_understood == whole.not_understood


def test_what_infer_makes_of_the_checks_needs_no_libcst() -> None:
    """libcst is imported where the files are read (a forked worker, or infer itself on one core), not by infer's
    module: the workers import it while the caller goes on."""
    import subprocess
    import sys

    probe = "import sys, bot.upstream.infer, bot.upstream.propose; print('libcst' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_inference_begun_beside_git_leaves_it_a_core_and_still_reads_on_a_worker(tmp_path: Path) -> None:
    """Begun while git checks out the tree (`beside` one process), the texts are read on one worker fewer than the
    cores, and on one even where there is a single core (each worker reads libcst in itself); once git is done, on
    one more where the cores allow."""
    repo = make_repo(tmp_path / "r", {"verl/workers/engine/megatron.py": ENGINE.format(check=""),
                                       "verl/utils/limits.py": OTHER.format(check="    pass"),
                                       "verl/trainer/config/ppo_megatron_trainer.yaml": YAML})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "verl/workers/engine/megatron.py").write_text(
        ENGINE.format(check='        assert self.engine_config.use_mbridge, "use_mbridge must be True"'))
    (repo / "verl/utils/limits.py").write_text(OTHER.format(check="    assert config.actor.tp > 0"))
    git(repo, "commit", "-qam", "checks")
    after = git(repo, "rev-parse", "HEAD").strip()
    begun = begin(repo, before, after, beside=1)
    try:
        assert begun.reading.forks is not None
        cores = len(os.sched_getaffinity(0))
        assert len(begun.reading.forks.workers) == min(max(1, cores - 1), 4)
        begun.widen()  # git is done: a worker more takes the texts still waiting
        assert len(begun.reading.forks.workers) == min(cores, 4)
        finished = infer(repo, before, after, [], begun)
    finally:
        begun.close()
    assert [p.rule["id"] for p in finished.proposals] == ["inferred-use-mbridge"]
