"""One table of bad input for every subcommand: each case is one line on stderr naming what is wrong
(`bot: error: ...`), nothing on stdout, exit 2; never a crash log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo

BOT = str(Path(sys.executable).parent / "bot")

# (arguments with {plain}: a directory outside git, {empty}: a git repository with no commit, {repo}: one
#  with a commit, {file}: a file; the words the one line must hold)
CASES = [
    ("run --repo {missing} --dry-run", "--repo"),
    ("run --repo {repo} --dry-run --jobs 0", "--jobs"),
    ("run --repo {repo} --dry-run --jobs -3", "--jobs"),
    ("run --repo {repo} --dry-run --jobs many", "--jobs"),
    ("run --repo {repo} --dry-run --file-timeout -5", "--file-timeout"),
    ("run --repo {repo} --dry-run --file-timeout nan", "--file-timeout"),
    ("run --repo {repo} --dry-run --format yaml", "--format"),
    ("run --repo {repo} --dry-run --baseline {missing}", "--baseline"),
    ("run --repo {repo} --dry-run --files {file}", "--files"),
    ("run --repo {repo} --dry-run --rules {missing}", "expected a directory of rule files"),
    ("run --repo {repo} --dry-run --rule no-such-rule", "no-such-rule"),
    ("run --repo {plain} --dry-run --since HEAD", "not a git repository"),
    ("run --repo {repo} --dry-run --since no-such-commit", "--before no-such-commit"),
    ("watch --repo {plain} --before HEAD", "not a git repository"),
    ("watch --repo {empty} --before abc", "--before abc"),
    ("watch --repo {repo} --before no-such-commit", "--before no-such-commit"),
    ("watch --repo {repo} --before HEAD --after no-such-commit", "--after no-such-commit"),
    ("infer --repo {missing} --before a --after b", "--repo"),
    ("infer --repo {plain} --before a --after b", "not a git repository"),
    ("infer --repo {empty} --before a --after b", "--before a"),
    ("infer --repo {repo} --before HEAD --after --upload-pack=x", "--after"),
    ("infer --repo {repo} --before HEAD~1 --after HEAD", "--before HEAD~1"),
    ("watch --repo {repo} --before HEAD~1", "--before HEAD~1"),
    ("compose-check --repo {missing}", "--repo"),
    ("compose-check --repo {file}", "--repo"),
    ("compose-check --repo {plain} --since HEAD", "not a git repository"),
    ("compose-check --repo {repo} --since no-such-commit", "--since no-such-commit"),
    ("compose-check --repo {repo} --file-timeout -1", "--file-timeout"),
    ("launches --repo {missing}", "--repo"),
    ("launches --repo {file}", "--repo"),
    ("launches --repo {repo} --format yaml", "--format"),
    ("rules test --tests {missing}", "--tests"),
    ("rules list --rules {missing}", "expected a directory of rule files"),
    ("rules frobnicate", "rules"),
    ("action", "GITHUB_ACTIONS"),
    ("frobnicate", "frobnicate"),
]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("bad")
    (base / "plain").mkdir()
    (base / "a-file.txt").write_text("x\n")
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    os.environ.update(env)
    subprocess.run(["git", "init", "-q", str(base / "empty")], check=True)
    make_repo(base / "repo", {"run.sh": "python3 -m verl.trainer.main_ppo a.b=1\n"})
    return {"plain": str(base / "plain"), "empty": str(base / "empty"), "repo": str(base / "repo"),
            "file": str(base / "a-file.txt"), "missing": str(base / "no-such-place")}


@pytest.mark.parametrize(("words", "names"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(words: str, names: str, places: dict[str, str], tmp_path: Path) -> None:
    argv = [w.format(**places) for w in words.split()]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "BOT_"))}
    env["BOT_CACHE_DIR"] = str(tmp_path / "cache")
    result = subprocess.run([BOT, *argv], capture_output=True, text=True, check=False, cwd=tmp_path, env=env,
                            timeout=120)
    lines = result.stderr.splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith("bot: error: "), result.stderr
    assert names in lines[0]
    assert result.stdout == ""
