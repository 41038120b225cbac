"""What a run reports does not rest on how it ran: one process or several, a cold run or a warm cache.
A doc whose second block only may call a script is the shape that told them apart (whether that block
was analysed depended on whether the workers had answered the scripts yet)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo

BOT = str(Path(sys.executable).parent / "bot")
DOC = """\
# Training

Prepare the data, then train:

```bash
bash scripts/prepare.sh
python3 -m verl.trainer.main_ppo trainer.total_epochs=1
```

With Megatron (the block does not parse alone: it is read in a view of its own):

```bash
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False trainer.total_epochs=1 (
```
"""


def summary(repo: Path, *options: str) -> dict[str, object]:
    out = subprocess.run([BOT, "run", "--repo", str(repo), "--dry-run", "--format", "json", *options],
                         capture_output=True, text=True, check=True, env={**os.environ}).stdout
    report = json.loads(out)
    found = report["summary"]
    found["where"] = sorted((f["path"], f["line"], f["status"]) for f in report["findings"])
    return found


def test_jobs_and_the_cache_give_the_same_counts(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {f"scripts/step_{i}.sh": f"echo step {i}\n" for i in range(450)}
    files |= {"scripts/prepare.sh": "echo preparing\n", "docs/train.md": DOC,
              "run_megatron.sh": "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n"}
    repo = make_repo(tmp_path / "repo", files)
    one = summary(repo, "--no-cache", "--jobs", "1")
    two = summary(repo, "--no-cache", "--jobs", "2")
    cache = str(tmp_path / "cache")
    summary(repo, "--cache-dir", cache, "--jobs", "2")
    warm = summary(repo, "--cache-dir", cache, "--jobs", "1")
    assert one == two == warm
    assert one["launches"] == 2  # the doc's first block and the script: the second block holds nothing


def test_files_naming_a_doc_that_may_call_a_script_is_checked(tmp_path: Path) -> None:
    """`--files` checks no script, so the scripts are read only once a file waits for them."""
    doc = "```bash\nbash scripts/prepare.sh\npython3 -m verl.trainer.main_ppo trainer.total_epochs=1\n```\n"
    repo = make_repo(tmp_path / "repo", {"scripts/prepare.sh": "echo preparing\n", "docs/prepare.md": doc,
                                         "scripts/train.sh": "python3 -m m critic.megatron.use_mbridge=$B\n"})
    found = summary(repo, "--no-cache", "--files", str(repo / "docs" / "prepare.md"))
    assert found["findings"] == 0
