"""The pre-commit hooks as a user gets them: `pre-commit try-repo` of this checkout on a copy of
tests/precommit_repo (a .slurm file, an extensionless script, a doc block, a YAML config and a
notebook, each breaking the bundled use_mbridge rule). The check hook must fail naming each file, the
fixing hook must fix each, and the check must pass after. Run by `make precommit-try` (CI)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "precommit_repo"
BROKEN = ["configs/megatron_run.yaml", "docs/quickstart.md", "jobs/train.slurm", "notebooks/try_it.ipynb",
          "tools/launch"]


def run(cwd: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(words), cwd=cwd, capture_output=True, text=True, check=False)


def hook(repo: Path, pre_commit: str, hook_id: str) -> subprocess.CompletedProcess[str]:
    return run(repo, pre_commit, "try-repo", str(ROOT), hook_id, "--all-files", "--verbose")


def main() -> int:
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or "pre-commit"
    with tempfile.TemporaryDirectory() as temp:
        repo = Path(temp) / "repo"
        shutil.copytree(FIXTURE, repo)
        (repo / "tools" / "launch").chmod(0o755)
        for words in (["init", "-q", "-b", "main"], ["add", "-A"],
                      ["-c", "user.name=ci", "-c", "user.email=ci@example.invalid", "commit", "-q", "-m", "fixture"]):
            run(repo, "git", *words).check_returncode()
        check = hook(repo, pre_commit, "followup-bot")
        problems = [f"check hook: expected a failure naming {path}" for path in BROKEN if path not in check.stdout]
        if check.returncode == 0:
            problems.append("check hook: passed on broken files")
        fix = hook(repo, pre_commit, "followup-bot-fix")
        changed = run(repo, "git", "diff", "--name-only").stdout.split()
        if sorted(changed) != BROKEN:
            problems.append(f"fixing hook: changed {changed}, expected {BROKEN}\n{fix.stdout}{fix.stderr}")
        after = hook(repo, pre_commit, "followup-bot")
        if after.returncode != 0:
            problems.append(f"check hook after the fix: failed\n{after.stdout}{after.stderr}")
    for line in problems:
        print(f"precommit-try: {line}", file=sys.stderr)
    if not problems:
        print(f"precommit-try: the check hook reported and the fixing hook fixed {len(BROKEN)} files")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
