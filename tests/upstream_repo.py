"""An upstream repository on a bare remote, served by the loopback fake GitHub: the Megatron engine and
two launch scripts that break the use_mbridge rule, and the events GitHub Actions would send."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import git
from tests.fake_github import FakeGitHub

TOKEN = "ghp_watchT0kenValue0123456789abcdef"
FULL = "acme/verl"
ENGINE = "verl/workers/engine/megatron/transformer_impl.py"
ENGINE_BEFORE = "class MegatronEngine:\n    def __init__(self, config):\n        self.engine_config = config\n"
ENGINE_AFTER = ENGINE_BEFORE + "        assert self.engine_config.use_mbridge, \"use_mbridge must be True\"\n"
SCRIPT = """\
#!/bin/bash
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=False \\
    trainer.total_epochs=1 $@
"""


@dataclass
class Upstream:
    root: Path
    bare: Path
    work: Path
    fake: FakeGitHub

    def commit(self, files: dict[str, str], subject: str) -> str:
        for rel, text in files.items():
            path = self.work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", "-m", subject, "--author=Upstream Dev <dev@example.invalid>")
        git(self.work, "push", "-q", "origin", "main")
        return git(self.work, "rev-parse", "HEAD").strip()

    def workspace(self, name: str) -> Path:
        """What actions/checkout with fetch-depth: 0 leaves: a full clone at the pushed commit."""
        target = self.root / name
        git(self.root, "clone", "-q", str(self.bare), str(target))
        return target

    def event_env(self, before: str, after: str, name: str) -> dict[str, str]:
        event = self.root / f"{name}-event.json"
        event.write_text(json.dumps({"ref": "refs/heads/main", "before": before, "after": after,
                                     "repository": {"full_name": FULL, "default_branch": "main"}}))
        summary, output = self.root / f"{name}-summary.md", self.root / f"{name}-output.txt"
        workspace = self.workspace(f"{name}-workspace")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "BOT_"))}
        env.update({
            "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": FULL, "GITHUB_WORKSPACE": str(workspace), "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_OUTPUT": str(output), "GITHUB_API_URL": self.fake.url, "BOT_GITHUB_TOKEN": TOKEN,
            "BOT_CACHE_DIR": str(self.root / "cache"), "BOT_RULES": "", "BOT_DRY_RUN": "false",
        })
        return env


@contextmanager
def upstream_repository(tmp_path: Path) -> Iterator[Upstream]:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    work = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(work))
    git(work, "checkout", "-q", "-b", "main")
    fake = FakeGitHub(tokens={TOKEN: "followup-bot"})
    fake.add_repo(FULL, bare, "main")
    up = Upstream(tmp_path, bare, work, fake)
    up.commit({"bot.toml": f'[repos.verl]\ngithub = "{FULL}"\nclone_url = "{bare}"\n',
               ENGINE: ENGINE_BEFORE, "examples/run_megatron.sh": SCRIPT,
               "recipe/dapo/run.sh": SCRIPT.replace("actor_rollout_ref.actor", "critic"), "README.md": "hi\n"},
              "initial")
    try:
        yield up
    finally:
        fake.stop()
