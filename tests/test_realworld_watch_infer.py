"""Issue 20's Done-when on verl's real history: `bot watch` over d7c82bdec (#4528) with no bundled rules,
on the loopback GitHub, infers the use_mbridge rule from the new assert and opens the follow-up that fixes
`USE_MBRIDGE=${USE_MBRIDGE:-False}` in tests/special_e2e/run_ppo_trainer_megatron.sh.

Works on a bare clone of the corpus history (never on the corpus clone itself). Skipped when
`../shared/corpus` is absent.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.config import RepoConfig
from bot.publish.forge import RetryPolicy
from bot.publish.run import PublishOptions
from bot.rules.loader import load_rules
from tests.conftest import ROOT
from tests.fake_github import FakeGitHub

CORPUS = ROOT.parent / "shared" / "corpus"
MBRIDGE = "d7c82bdec28525506614ca81c643d7e667da64b5"  # verl #4528: MegatronEngine asserts use_mbridge
SCRIPT = "tests/special_e2e/run_ppo_trainer_megatron.sh"
TOKEN = "ghp_inferT0kenValue0123456789abcdef"
FULL = "verl-project/verl"

pytestmark = pytest.mark.skipif(not (CORPUS / "verl-tree").exists(), reason="../shared/corpus is absent")


def _git(bare: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(bare), *args], capture_output=True, text=True,
                          check=True).stdout


def test_watch_over_the_mbridge_commit_infers_the_rule_and_opens_the_follow_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.upstream.watching import watch

    history = Path(subprocess.run([str(CORPUS / "verl-tree"), "--history"], capture_output=True, text=True,
                                  check=True).stdout.strip())
    bare = tmp_path / "verl.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-tags", "--single-branch", "-b", "main", str(history),
                    str(bare)], check=True)
    _git(bare, "update-ref", "refs/heads/main", MBRIDGE)
    fake = FakeGitHub(tokens={TOKEN: "followup-bot"}, logins={})
    fake.add_repo(FULL, bare, "main")
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    monkeypatch.setenv("BOT_GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    repo = RepoConfig(name="verl", github=FULL, clone_url=str(bare))
    options = PublishOptions(retry=RetryPolicy(attempts=3, base=0.01, cap=0.05), throttle=False)
    try:
        result = watch(repo, load_rules(include_bundled=False), f"{MBRIDGE}^", MBRIDGE, options, dry_run=False)
    finally:
        fake.stop()
    assert "assert self.engine_config.use_mbridge" in result.reasons["inferred-use-mbridge"]
    assert result.published is not None
    decision = next(d for d in result.published.decisions if d.branch == "bot/inferred-use-mbridge")
    assert decision.action == "opened", decision
    pull = next(p for p in fake.pulls(FULL) if p["head"] == "bot/inferred-use-mbridge")
    assert pull["draft"] is True  # an inferred rule is reviewed before it is merged
    body = str(pull["body"])
    assert "#4528" in body and SCRIPT in body
    before = _git(bare, "show", f"main:{SCRIPT}")
    after = _git(bare, "show", f"bot/inferred-use-mbridge:{SCRIPT}")
    assert "USE_MBRIDGE=${USE_MBRIDGE:-False}" in before
    assert "USE_MBRIDGE=${USE_MBRIDGE:-True}" in after
    assert after == before.replace("USE_MBRIDGE=${USE_MBRIDGE:-False}", "USE_MBRIDGE=${USE_MBRIDGE:-True}")
