"""The use_mbridge follow-up on verl's real history, through the loopback GitHub, as a maintainer sees it.

verl's own pull request checks (`tests/special_sanity/check_pr_title.py` and
`check_pr_description.py`) are run from the corpus at test time, never copied here. Skipped when
`../shared/corpus` is absent.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.compose.judge import newly_failing
from bot.config import RepoConfig
from bot.engine.context import repository_context
from bot.lang import launch_reader
from bot.publish.credentials import Credentials
from bot.publish.forge import RetryPolicy
from bot.publish.publisher import PublishResult
from bot.publish.run import PublishOptions, publish
from bot.rules.loader import load_rules
from tests.conftest import ROOT
from tests.fake_github import FakeGitHub

CORPUS = ROOT.parent / "shared" / "corpus"
HUMAN_FIX = "0664ab2d4d7443ed99b68c4a0cd4881f80a73f18"  # verl #6429: use_mbridge=True in two NPU scripts
TOKEN = "ghp_s3cr3tT0kenValue0123456789abcdef"
FULL = "verl-project/verl"

pytestmark = pytest.mark.skipif(not (CORPUS / "verl-tree").exists(), reason="../shared/corpus is absent")


@dataclass
class Verl:
    history: Path
    bare: Path
    tree: Path  # verl just before the human fix, as a plain work tree (for its own check scripts)
    fake: FakeGitHub
    repo: RepoConfig
    tmp: Path

    def run(self, rules: list | None = None, group: str | None = None) -> PublishResult:  # type: ignore[type-arg]
        options = PublishOptions(group=group, retry=RetryPolicy(attempts=3, base=0.01, cap=0.05), throttle=False)
        return publish(self.repo, rules or load_rules(), options,
                       Credentials(kind="token", token=TOKEN, token_source="BOT_GITHUB_TOKEN"))

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(self.bare), *args], capture_output=True, text=True,
                              check=True).stdout

    def verl_check(self, script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(self.tree / "tests" / "special_sanity" / script)],
                              capture_output=True, text=True, env={**os.environ, **env}, cwd=self.tree)


def _corpus(*args: str) -> Path:
    return Path(subprocess.run([str(CORPUS / "verl-tree"), *args], capture_output=True, text=True,
                               check=True).stdout.strip())


@pytest.fixture
def verl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Verl]:
    history = _corpus("--history")
    before = subprocess.run(["git", "-C", str(history), "rev-parse", f"{HUMAN_FIX}^"], capture_output=True,
                            text=True, check=True).stdout.strip()
    bare = tmp_path / "verl.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-tags", "--single-branch", "-b", "main", str(history),
                    str(bare)], check=True)
    subprocess.run(["git", "--git-dir", str(bare), "update-ref", "refs/heads/main", before], check=True)
    fake = FakeGitHub(tokens={TOKEN: "followup-bot"}, logins={})
    fake.add_repo(FULL, bare, "main")
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    repo = RepoConfig(name="verl", github=FULL, clone_url=str(bare), title="[{modules}] {type}: {summary}",
                      rule_modules=(("megatron-*", "megatron"),))
    try:
        yield Verl(history, bare, _corpus(before), fake, repo, tmp_path)
    finally:
        fake.stop()


def _passes_verls_checks(verl: Verl, pull: dict) -> None:  # type: ignore[type-arg]
    title = verl.verl_check("check_pr_title.py", {"PR_TITLE": str(pull["title"])})
    assert title.returncode == 0, title.stdout + title.stderr
    event = verl.tmp / f"event-{pull['number']}.json"
    event.write_text(json.dumps({"pull_request": {"body": pull["body"]}}))
    described = verl.verl_check("check_pr_description.py", {"GITHUB_EVENT_PATH": str(event),
                                                              "GITHUB_WORKSPACE": str(verl.tree)})
    assert described.returncode == 0, described.stdout + described.stderr
    template = (verl.tree / ".github" / "PULL_REQUEST_TEMPLATE.md").read_text()
    headings, fenced = [], False
    for line in template.splitlines():
        fenced = fenced != line.startswith("```")
        if line.startswith("#") and not fenced:
            headings.append(line)
    assert len(headings) == 6
    body = str(pull["body"])
    places = [body.find("\n" + h + "\n") if not body.startswith(h + "\n") else 0 for h in headings]
    assert all(p >= 0 for p in places) and places == sorted(places), (headings, places)


def test_the_use_mbridge_follow_up_is_verls_own_fix_and_closes_when_the_humans_land_it(verl: Verl) -> None:
    (opened,) = verl.run().decisions
    assert opened.action == "opened", opened
    (pull,) = verl.fake.pulls(FULL)
    assert pull["title"] == "[megatron] fix: set use_mbridge=True in 2 launch scripts"
    _passes_verls_checks(verl, pull)
    body = str(pull["body"])
    # why: the change that added the assert, found in the history (the rule cites it; #4530 never merged it)
    assert "#4528 (d7c82bde)" in body and "assert self.engine_config.use_mbridge" in body
    assert "| `False` | `True` |" in body and "(not set)" not in body
    assert body.count("| `composes` | `composes` |") == 2  # each changed launch composes before and after
    # the bot's change is the humans' #6429, byte for byte
    ours = verl.git("diff", "main", "bot/megatron-use-mbridge")
    theirs = subprocess.run(["git", "-C", str(verl.history), "diff", f"{HUMAN_FIX}^", HUMAN_FIX],
                            capture_output=True, text=True, check=True).stdout
    assert ours == theirs
    message = verl.git("log", "-1", "--format=%B", "bot/megatron-use-mbridge")
    assert message.startswith(pull["title"] + "\n\n") and "#4528" in message

    verl.git("update-ref", "refs/heads/main", HUMAN_FIX)  # the humans' fix lands on main
    (closed,) = verl.run().decisions
    assert closed.action == "closed", closed
    (pull,) = verl.fake.pulls(FULL)
    assert pull["state"] == "closed"
    (comment,) = verl.fake.comments(FULL, int(pull["number"]))
    assert HUMAN_FIX[:12] in comment["body"] and "(#6429)" in comment["body"]
    assert "bot/megatron-use-mbridge" not in verl.git("branch", "--list")


def test_optional_rules_come_as_a_separate_chore_pull_request_whose_launches_compose(verl: Verl) -> None:
    rules = [dataclasses.replace(r, enabled=True) for r in load_rules()]
    decisions = verl.run(rules, group="all").decisions
    assert [(d.group, d.action) for d in decisions] == [("all", "opened"), ("all-chore", "opened")]
    fix, chore = sorted(verl.fake.pulls(FULL), key=lambda p: p["number"])
    assert fix["title"] == "[megatron] fix: set use_mbridge=True in 2 launch scripts"
    assert chore["title"] == ("[megatron] chore: add use_flash_attn=True, recompute_method, recompute_granularity and "
                              "recompute_num_layers to 29 launch scripts")
    assert str(chore["body"]).count("| `composes` | `composes` |") == 28
    assert "| `composes` | `fails" not in str(chore["body"])
    for pull in (fix, chore):
        _passes_verls_checks(verl, pull)
    assert "This is not a fix: no launch fails without it." in chore["body"]
    assert "use_flash_attn" in chore["body"] and "recompute_method" in chore["body"]
    changed_lines = [line for line in verl.git("diff", "main", "bot/all-chore").splitlines() if line[:1] in "+-"]
    assert not [line for line in changed_lines if "use_mbridge" in line]  # the fix is not in the chore
    changed = [p for p in verl.git("diff", "--name-only", "-z", "main", "bot/all-chore").split("\0") if p]
    assert len(changed) > 20
    context = repository_context(verl.tree)
    for path in changed:  # Hydra composes every launch of the chore branch that composed before
        before, after = (subprocess.run(["git", "--git-dir", str(verl.bare), "show", f"{ref}:{path}"],
                                        capture_output=True, check=True).stdout for ref in ("main", "bot/all-chore"))
        assert newly_failing(context, launch_reader(path, "shell", context), before, after) == [], path
