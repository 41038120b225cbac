"""Publishing decisions without HTTP: the pure decide() over a group's state, and the publisher over
an in-memory forge with a real bare remote (the loopback GitHub covers the adapter in test_publish)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.config import RepoConfig
from bot.model import Finding, Status
from bot.publish import body as texts
from bot.publish.decide import GroupState, decide
from bot.publish.forge import PullInfo
from bot.publish.publisher import PublishResult
from bot.publish.run import PublishOptions, publish
from bot.rules.loader import load_rules
from tests.conftest import git
from tests.memory_forge import MemoryForge

BRANCH = "bot/megatron-use-mbridge"
RULES = ("megatron-use-mbridge",)


def _ours(number: int, fp: str, state: str = "open", merged: bool = False, rules: tuple[str, ...] = RULES,
          labels: tuple[str, ...] = ()) -> PullInfo:
    body = "text\n" + texts.Identity(rules, "abc", fp).render()
    return PullInfo(number, state, merged, "t", body, BRANCH, f"u/{number}", labels, author="followup-bot")


def _state(fp: str | None, remote: str | None = None, pulls: list[PullInfo] | None = None,
           editor: str | None = None, errors: str | None = None, manual: bool = False,
           labels: tuple[str, ...] = ()) -> tuple[GroupState, list[str]]:
    asked: list[str] = []

    def listed() -> list[PullInfo]:
        asked.append("pulls")
        return pulls or []

    def edited(number: int | None) -> str | None:
        asked.append("editor")
        return editor

    findings = [Finding("megatron-use-mbridge", "a.sh", 3, 5, "k", "False", Status.MANUAL, "m")] if manual else []
    def account() -> str:
        asked.append("account")
        return "followup-bot"

    return GroupState("g", BRANCH, RULES, fp, remote, findings, errors, labels, listed, edited, account), asked


def test_nothing_to_fix_and_no_branch_asks_the_forge_nothing() -> None:
    state, asked = _state(None, manual=True)
    step = decide(state)
    assert (step.action, step.detail) == ("nothing", "nothing to fix (1 manual findings in the report)")
    assert asked == []


@pytest.mark.parametrize(("kwargs", "action"), [
    ({"errors": "x.sh could not be checked"}, "kept"),
    ({"manual": True}, "kept"),
    ({"editor": "alice"}, "kept"),
    ({}, "close"),
])
def test_an_open_pull_request_with_nothing_left_is_closed_only_when_safe(kwargs: dict[str, object],
                                                                         action: str) -> None:
    state, _ = _state(None, remote="sha", pulls=[_ours(4, "fp1")], **kwargs)  # type: ignore[arg-type]
    step = decide(state)
    assert step.action == action and step.pull is not None and step.pull.number == 4


def test_an_open_pull_request_is_updated_kept_or_blocked() -> None:
    assert decide(_state("fp2", "sha", [_ours(4, "fp1")])[0]).action == "update"
    step = decide(_state("fp1", "sha", [_ours(4, "fp1", labels=("a",))], labels=("a", "b"))[0])
    assert (step.action, step.labels) == ("up-to-date", ["b"])
    step = decide(_state("fp2", "sha", [_ours(4, "fp1")], editor="alice")[0])
    assert (step.action, step.login) == ("comment-blocked", "alice")
    step = decide(_state("fp2", "sha", [_ours(4, "fp1", rules=("a", "b"))])[0])
    assert step.action == "kept" and "covers a, b" in step.detail


def test_someone_elses_pull_request_on_the_branch_is_never_touched() -> None:
    foreign = PullInfo(9, "open", False, "mine", "hand-written", BRANCH, "u/9")
    step = decide(_state("fp1", "sha", [foreign, _ours(4, "fp1")])[0])
    assert step.action == "blocked" and "#9" in step.detail


def test_without_an_open_pull_request() -> None:
    assert decide(_state("fp1", None, [_ours(4, "fp1", "closed")])[0]).action == "skipped"
    assert decide(_state("fp2", None, [_ours(4, "fp1", "closed")])[0]).action == "open"
    assert decide(_state("fp1", "sha", [], editor="alice")[0]).action == "blocked"
    assert decide(_state(None, "sha", [_ours(4, "fp1", "closed")])[0]).action == "delete-branch"
    assert decide(_state(None, "sha", [_ours(4, "fp1", "closed", merged=True)])[0]).action == "nothing"
    assert decide(_state(None, "sha", [], errors="partly parsed")[0]).action == "nothing"


# ---- the publisher over the in-memory forge --------------------------------------------
SCRIPT = "#!/bin/bash\npython3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False\n"
BOT_EMAIL = "followup-bot@users.noreply.github.com"


@dataclass
class Bed:
    bare: Path
    work: Path
    forge: MemoryForge
    repo: RepoConfig

    def run(self) -> PublishResult:
        return publish(self.repo, load_rules(), PublishOptions(), credentials=None, forge=self.forge)

    def push_main(self, files: dict[str, str]) -> None:
        git(self.work, "checkout", "-q", "main")
        for rel, text in files.items():
            (self.work / rel).write_text(text)
        git(self.work, "add", "-A")
        git(self.work, "commit", "-qm", "upstream")
        git(self.work, "push", "-q", "origin", "main")

    def branches(self) -> str:
        return git(self.bare, "branch", "--list")


@pytest.fixture
def bed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Bed]:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(bare), str(work))
    git(work, "checkout", "-q", "-b", "main")
    (work / "run.sh").write_text(SCRIPT)
    git(work, "add", "-A")
    git(work, "commit", "-qm", "initial")
    git(work, "push", "-q", "origin", "main")
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    forge = MemoryForge(bare, logins={"alice@example.invalid": "alice", BOT_EMAIL: "followup-bot"})
    yield Bed(bare, work, forge, RepoConfig(name="verl", github="acme/verl", clone_url=str(bare),
                                            labels=("follow-up",)))


def _only(result: PublishResult) -> str:
    (decision,) = result.decisions
    return decision.action


def test_a_whole_life_in_memory(bed: Bed) -> None:
    assert _only(bed.run()) == "opened"
    (pull,) = bed.forge.pull_requests.values()
    assert pull.labels == ("follow-up",) and texts.read_identity(pull.body) is not None
    assert BRANCH in bed.branches()

    bed.forge.calls.clear()
    assert _only(bed.run()) == "up-to-date"
    assert bed.forge.writes == []

    bed.push_main({"run.sh": SCRIPT.replace("False", "True")})
    assert _only(bed.run()) == "closed"
    (pull,) = bed.forge.pull_requests.values()
    assert pull.state == "closed" and len(bed.forge.notes[pull.number]) == 1
    assert BRANCH not in bed.branches()
    bed.forge.calls.clear()
    assert _only(bed.run()) == "nothing" and bed.forge.calls == []


def test_a_lost_answer_to_opening_makes_no_second_pull_request(bed: Bed) -> None:
    bed.forge.lose_answer.add("create_pull")
    assert _only(bed.run()) == "opened"  # the publisher looked before failing, and found it
    assert len(bed.forge.pull_requests) == 1
    assert _only(bed.run()) == "up-to-date"


def test_a_lost_answer_to_the_closing_comment_is_finished_once_by_the_next_run(bed: Bed) -> None:
    bed.run()
    bed.push_main({"run.sh": SCRIPT.replace("False", "True")})
    bed.forge.lose_answer.add("comment")
    result = bed.run()
    assert _only(result) == "failed" and "502" in result.decisions[0].detail
    assert _only(bed.run()) == "closed"
    (pull,) = bed.forge.pull_requests.values()
    assert len(bed.forge.notes[pull.number]) == 1  # the comment made before the lost answer is not repeated


def test_a_human_commit_blocks_and_one_comment_is_kept_current(bed: Bed) -> None:
    bed.run()
    git(bed.work, "fetch", "-q", "origin")
    git(bed.work, "checkout", "-q", "-b", "human", f"origin/{BRANCH}")
    (bed.work / "notes.txt").write_text("tuned by hand\n")
    git(bed.work, "add", "-A")
    git(bed.work, "commit", "-qm", "mine", "--author=Alice <alice@example.invalid>")
    git(bed.work, "push", "-q", "origin", f"HEAD:{BRANCH}")
    bed.push_main({"other.sh": SCRIPT})
    result = bed.run()
    assert (result.decisions[0].action, result.decisions[0].detail) == ("blocked", "edited by alice")
    bed.push_main({"third.sh": SCRIPT})
    bed.run()
    (pull,) = bed.forge.pull_requests.values()
    (comment,) = bed.forge.notes[pull.number]
    assert "third.sh" in comment.body


def test_closed_by_hand_is_not_reopened(bed: Bed) -> None:
    bed.run()
    (pull,) = bed.forge.pull_requests.values()
    bed.forge.close_by_hand(pull.number)
    assert _only(bed.run()) == "skipped"
    assert len(bed.forge.pull_requests) == 1
