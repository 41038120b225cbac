"""A scan that composes on forked workers loads what composing imports first, so the workers inherit it
(Hydra, OmegaConf and the shell front end) instead of each importing it again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo

TRAINER = "import hydra\n\n\n@hydra.main(config_path='conf', config_name='main', version_base=None)\n" \
          "def main(cfg):\n    print(cfg)\n"

# runs in a process of its own, where nothing has imported Hydra yet: what each fork finds already loaded
WATCHING_FORKS = """
import os, sys
from pathlib import Path

loaded = []
fork = os.fork


def watched():
    loaded.append(all(name in sys.modules for name in ("hydra.compose", "omegaconf", "bot.lang.shell.front")))
    return fork()


os.fork = watched
from bot.engine.scan import compose_scan

report, stats = compose_scan(Path(sys.argv[1]), jobs=2)
print(len(loaded), all(loaded), stats.launches, len(report.findings))
"""


def test_workers_forked_to_compose_inherit_what_composing_imports(tmp_path: Path) -> None:
    from bot.engine.batches import PARALLEL_FROM

    files = {"app/train.py": TRAINER, "app/conf/main.yaml": "lr: 0.1\nsteps: 10\n"}
    for number in range(PARALLEL_FROM + 10):  # enough files for the scan to fork its workers
        files[f"runs/run_{number}.sh"] = f"python app/train.py lr=0.{number % 7} steps={number}\n"
    files["runs/typo.sh"] = "python app/train.py stepz=3\n"
    repo = make_repo(tmp_path / "repo", files)
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", WATCHING_FORKS, str(repo)], capture_output=True, text=True,
                         check=True, cwd=root)
    forks, inherited, launches, findings = out.stdout.split()
    assert int(forks) == 2 and inherited == "True"
    assert (launches, findings) == (str(PARALLEL_FROM + 11), "1")  # and every launch composed, the typo found
