"""Publishing end to end: a real bare remote, PyGithub over HTTP to the loopback fake GitHub API."""

from __future__ import annotations

import contextlib
import re
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.config import RepoConfig
from bot.errors import UserError
from bot.publish.credentials import Credentials
from bot.publish.forge import GitHubForge, RetryPolicy
from bot.publish.publisher import PublishResult
from bot.publish.run import PublishOptions, publish
from bot.rules.loader import load_rules
from tests.conftest import git
from tests.fake_github import FakeGitHub

TOKEN = "ghp_s3cr3tT0kenValue0123456789abcdef"
FULL = "acme/verl"
BRANCH = "bot/megatron-use-mbridge"
BOT_EMAIL = "followup-bot@users.noreply.github.com"

ACTOR = """\
#!/bin/bash
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.actor.megatron.use_mbridge=False \\
    trainer.total_epochs=1 $@
"""
CRITIC = """\
#!/bin/bash
USE=${USE:-False}
python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$USE
"""


@dataclass
class Bed:
    root: Path
    bare: Path
    work: Path
    fake: FakeGitHub
    repo: RepoConfig

    def commit_upstream(self, files: dict[str, str], message: str, who: str = "Upstream Dev",
                        email: str = "dev@example.invalid") -> str:
        git(self.work, "checkout", "-q", "main")
        git(self.work, "pull", "-q", "--ff-only", "origin", "main")
        for rel, text in files.items():
            path = self.work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", f"--author={who} <{email}>", "-m", message)
        git(self.work, "push", "-q", "origin", "main")
        return git(self.work, "rev-parse", "HEAD").strip()

    def run(self, **options: object) -> PublishResult:
        opts = PublishOptions(retry=RetryPolicy(attempts=3, base=0.01, cap=0.05), throttle=False,
                              **options)  # type: ignore[arg-type]
        return publish(self.repo, load_rules(), opts, Credentials(kind="token", token=TOKEN,
                                                                   token_source="BOT_GITHUB_TOKEN"))

    def ours(self, state: str | None = None) -> list[dict[str, object]]:
        return [p for p in self.fake.pulls(FULL) if "followup-bot:" in str(p["body"])
                and (state is None or p["state"] == state)]

    def branch_file(self, branch: str, rel: str) -> str:
        return subprocess.run(["git", "--git-dir", str(self.bare), "show", f"{branch}:{rel}"],
                              capture_output=True, text=True, check=True).stdout


@pytest.fixture
def bed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Bed]:
    with _bed(tmp_path, monkeypatch) as made:
        yield made


@contextmanager
def _bed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Bed]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    work = tmp_path / "upstream"
    git(tmp_path, "clone", "-q", str(bare), str(work))
    git(work, "checkout", "-q", "-b", "main")
    (work / "examples").mkdir()
    (work / "examples" / "actor.sh").write_text(ACTOR)
    (work / "examples" / "critic.sh").write_text(CRITIC)
    (work / "README.md").write_text("verl-like\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "initial")
    git(work, "push", "-q", "origin", "main")
    fake = FakeGitHub(tokens={TOKEN: "followup-bot"}, logins={"alice@example.invalid": "alice",
                                                            BOT_EMAIL: "followup-bot"})
    fake.add_repo(FULL, bare, "main")
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    monkeypatch.setenv("BOT_CACHE_DIR", str(tmp_path / "cache"))
    repo = RepoConfig(name="verl", github=FULL, clone_url=str(bare), labels=("follow-up",),
                      rule_modules=(("megatron-*", "megatron"),))
    try:
        yield Bed(tmp_path, bare, work, fake, repo)
    finally:
        fake.stop()


def decision(result: PublishResult) -> tuple[str, str]:
    (only,) = result.decisions
    return only.action, only.detail


def test_open_then_rerun_makes_no_writes(bed: Bed) -> None:
    result = bed.run()
    assert decision(result)[0] == "opened"
    (pr,) = bed.ours()
    assert pr["state"] == "open" and pr["head"] == BRANCH
    assert pr["title"].startswith("[megatron] fix: ")
    assert "### What does this PR do?" in pr["body"] and "### Changes" in pr["body"]
    assert "bot run --repo verl --dry-run --format diff" in pr["body"]
    assert "follow-up" in [label if isinstance(label, str) else label["name"] for label in pr["labels"]]
    assert "use_mbridge=True" in bed.branch_file(BRANCH, "examples/actor.sh")
    assert "USE=${USE:-True}" in bed.branch_file(BRANCH, "examples/critic.sh")
    author = subprocess.run(["git", "--git-dir", str(bed.bare), "log", "-1", "--format=%ae", BRANCH],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert author == BOT_EMAIL

    bed.fake.reset_counts()
    again = bed.run()
    assert decision(again)[0] == "up-to-date"
    assert bed.fake.write_count == 0
    assert bed.fake.request_count <= 3
    assert again.api_requests == bed.fake.request_count
    assert len(bed.ours()) == 1


def test_upstream_moves_and_the_fix_changes(bed: Bed) -> None:
    bed.run()
    (before,) = bed.ours()
    bed.commit_upstream({"recipe/new.sh": ACTOR.replace("actor_rollout_ref.actor", "actor_rollout_ref.ref")},
                        "add a recipe")
    result = bed.run()
    assert decision(result)[0] == "updated"
    (after,) = bed.ours()
    assert after["number"] == before["number"] and after["body"] != before["body"]
    assert "use_mbridge=True" in bed.branch_file(BRANCH, "recipe/new.sh")
    assert "use_mbridge=True" in bed.branch_file(BRANCH, "examples/actor.sh")


def test_human_commit_blocks_and_the_comment_is_edited_in_place(bed: Bed) -> None:
    bed.run()
    git(bed.work, "fetch", "-q", "origin")
    git(bed.work, "checkout", "-q", "-b", "human", f"origin/{BRANCH}")
    (bed.work / "examples" / "actor.sh").write_text(ACTOR.replace("False", "True") + "# tuned by hand\n")
    git(bed.work, "commit", "-qam", "mine", "--author=Alice <alice@example.invalid>")
    git(bed.work, "push", "-q", "origin", f"HEAD:{BRANCH}")
    human_sha = git(bed.work, "rev-parse", "HEAD").strip()
    bed.commit_upstream({"recipe/a.sh": ACTOR}, "more")

    result = bed.run()
    assert decision(result) == ("blocked", "edited by alice")
    (pr,) = bed.ours()
    comments = bed.fake.comments(FULL, int(pr["number"]))
    assert len(comments) == 1 and "recipe/a.sh" in comments[0]["body"]
    assert bed.fake.branches(FULL)[BRANCH] == human_sha  # never pushed over

    bed.commit_upstream({"recipe/b.sh": ACTOR}, "even more")
    assert decision(bed.run()) == ("blocked", "edited by alice")
    comments = bed.fake.comments(FULL, int(pr["number"]))
    assert len(comments) == 1 and "recipe/b.sh" in comments[0]["body"]
    assert bed.fake.branches(FULL)[BRANCH] == human_sha


def test_fixed_on_main_by_others_closes_and_deletes_the_branch(bed: Bed) -> None:
    bed.run()
    head = bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                                "examples/critic.sh": CRITIC.replace("False", "True")}, "fix by hand")
    result = bed.run()
    assert decision(result)[0] == "closed"
    (pr,) = bed.ours()
    assert pr["state"] == "closed" and not pr["merged"]
    (comment,) = bed.fake.comments(FULL, int(pr["number"]))
    assert head[:12] in comment["body"] and "`fix by hand`" in comment["body"]
    assert BRANCH not in bed.fake.branches(FULL)
    bed.fake.reset_counts()
    assert decision(bed.run())[0] == "nothing"
    assert bed.fake.write_count == 0


def test_closed_unmerged_is_not_reopened_but_a_new_change_is(bed: Bed) -> None:
    bed.run()
    (pr,) = bed.ours()
    bed.fake.close_pull(FULL, int(pr["number"]))
    bed.fake.reset_counts()
    result = bed.run()
    assert decision(result)[0] == "skipped"
    assert bed.fake.write_count == 0 and len(bed.ours()) == 1
    bed.commit_upstream({"recipe/c.sh": ACTOR}, "new violation")
    assert decision(bed.run())[0] == "opened"
    assert len(bed.ours("open")) == 1 and len(bed.ours()) == 2


def test_merged_means_nothing_left(bed: Bed) -> None:
    bed.run()
    (pr,) = bed.ours()
    bed.fake.merge_pull(FULL, int(pr["number"]))
    bed.fake.reset_counts()
    assert decision(bed.run())[0] == "nothing"
    assert bed.fake.write_count == 0


def test_group_all_opens_one_pull_request_for_the_fixes_and_one_for_the_chores(bed: Bed) -> None:
    result = publish(bed.repo, load_rules(enable=["megatron-recompute-uniform"]),
                     PublishOptions(group="all", retry=RetryPolicy(attempts=2, base=0.01, cap=0.02), throttle=False),
                     Credentials(kind="token", token=TOKEN, token_source="BOT_GITHUB_TOKEN"))
    assert [(d.group, d.action) for d in result.decisions] == [("all", "opened"), ("all-chore", "opened")]
    assert sorted(str(pr["head"]) for pr in bed.ours()) == ["bot/all", "bot/all-chore"]
    fixes = bed.branch_file("bot/all", "examples/actor.sh")
    chores = bed.branch_file("bot/all-chore", "examples/actor.sh")
    assert "use_mbridge=True" in fixes and "recompute_method=uniform" not in fixes
    assert "use_mbridge=False" in chores and "recompute_method=uniform" in chores


def test_dirty_local_checkout_is_refused(bed: Bed) -> None:
    from dataclasses import replace

    from bot.errors import UserError

    (bed.work / "examples" / "actor.sh").write_text("edited\n")
    with pytest.raises(UserError, match="uncommitted changes"):
        publish(replace(bed.repo, path=bed.work), load_rules(), PublishOptions(throttle=False),
                Credentials(kind="token", token=TOKEN, token_source="BOT_GITHUB_TOKEN"))


def test_transient_faults_are_retried_with_retry_after(bed: Bed) -> None:
    sleeps: list[float] = []
    bed.fake.inject("GET", r"/pulls$", status=502)
    bed.fake.inject("POST", r"/pulls$", status=429, retry_after=7)
    bed.fake.inject("POST", r"/labels$", status=403, retry_after=2)
    policy = RetryPolicy(attempts=4, base=0.01, cap=30.0, sleep=sleeps.append)
    result = publish(bed.repo, load_rules(), PublishOptions(retry=policy, throttle=False),
                     Credentials(kind="token", token=TOKEN, token_source="BOT_GITHUB_TOKEN"))
    assert decision(result)[0] == "opened"
    assert sleeps == [0.01, 7.0, 2.0]
    assert len(bed.ours()) == 1


def test_forge_counts_requests(bed: Bed) -> None:
    from github import Auth

    forge = GitHubForge(bed.fake.url, FULL, Auth.Token(TOKEN), throttle=False)
    assert forge.pulls(BRANCH) == []
    assert forge.requests == 1
    forge.close()


# ---- faults: one injected at each request of a publish, then a clean rerun ------------------

def _setup_open(bed: Bed) -> None:
    pass


def _setup_update(bed: Bed) -> None:
    bed.run()
    bed.commit_upstream({"recipe/u.sh": ACTOR}, "another violation")


def _setup_close(bed: Bed) -> None:
    bed.run()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": CRITIC.replace("False", "True")}, "fixed by hand")


def _setup_blocked(bed: Bed) -> None:
    bed.run()
    git(bed.work, "fetch", "-q", "origin")
    git(bed.work, "checkout", "-q", "-B", "human", f"origin/{BRANCH}")
    (bed.work / "examples" / "note.txt").write_text("mine\n")
    git(bed.work, "add", "-A")
    git(bed.work, "commit", "-qm", "mine", "--author=Alice <alice@example.invalid>")
    git(bed.work, "push", "-q", "origin", f"HEAD:{BRANCH}")
    bed.commit_upstream({"recipe/b.sh": ACTOR}, "more")


SCENARIOS = {"open": _setup_open, "update": _setup_update, "close": _setup_close, "blocked": _setup_blocked}
FAULTS = {"lost-answer": {"status": 500, "after_apply": True}, "dropped": {"drop": True},
          "refused": {"status": 502}, "rate-limited": {"status": 429, "retry_after": 1, "times": 2}}


def _requests_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scenario: str) -> list[tuple[str, str]]:
    with _bed(tmp_path / "probe", monkeypatch) as bed:
        SCENARIOS[scenario](bed)
        bed.fake.reset_counts()
        bed.run()
        return [(method, path) for method, path, _ in bed.fake.requests]


def _check_end_state(bed: Bed, scenario: str) -> None:
    open_prs = bed.ours("open")
    if scenario == "close":
        assert open_prs == []
        (pr,) = bed.ours()
        comments = bed.fake.comments(FULL, int(pr["number"]))
        assert len(comments) == 1
        assert BRANCH not in bed.fake.branches(FULL)
        return
    (pr,) = open_prs
    assert len(bed.ours()) == 1
    labels = [label if isinstance(label, str) else label["name"] for label in pr["labels"]]
    assert labels == ["follow-up"]
    if scenario == "blocked":
        assert len(bed.fake.comments(FULL, int(pr["number"]))) == 1
        return
    assert "use_mbridge=True" in bed.branch_file(BRANCH, "examples/actor.sh")
    if scenario == "update":
        assert "use_mbridge=True" in bed.branch_file(BRANCH, "recipe/u.sh")


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_fault_at_any_request_is_completed_by_the_next_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            scenario: str) -> None:
    probe = _requests_of(tmp_path, monkeypatch, scenario)
    assert probe, "the scenario makes API requests"
    tried = 0
    for index, (method, path) in enumerate(probe):
        for name, fault in FAULTS.items():
            with _bed(tmp_path / f"{index}-{name}", monkeypatch) as bed:
                SCENARIOS[scenario](bed)
                bed.fake.inject(method, "^" + re.escape(path.split("?")[0]) + "$", **fault)  # type: ignore[arg-type]
                with contextlib.suppress(UserError):
                    bed.run()  # a run may fail; the next one must finish the job
                bed.run()
                _check_end_state(bed, scenario)
                bed.fake.reset_counts()
                bed.run()
                assert bed.fake.write_count == 0, (scenario, index, name, bed.fake.requests)
                tried += 1
    assert tried == len(probe) * len(FAULTS)


# ---- the command line, the config file, and the token -------------------------------------

VERL_TITLE = re.compile(
    r"^(\[BREAKING\] )?\[(fsdp|megatron|veomni|sglang|vllm|trtllm|rollout|trainer|tests|training_utils|recipe|"
    r"hardware|deployment|ray|worker|single_controller|misc|docker|ci|perf|model|algo|env|tool|ckpt|doc|data|cfg|"
    r"reward|fully_async|one_step_off)(, ?(fsdp|megatron|recipe|trainer|tests|misc|ci|doc|cfg|rollout))*\] "
    r"(feat|fix|refactor|chore|test): \S.*$"
)


def _config(bed: Bed) -> Path:
    path = bed.root / "bot.toml"
    path.write_text(f'[repos.verl]\ngithub = "{FULL}"\nclone_url = "{bed.bare}"\nlabels = ["follow-up"]\n')
    return path


def test_cli_publishes_with_the_bundled_verl_settings(bed: Bed, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    monkeypatch.setenv("BOT_GITHUB_TOKEN", TOKEN)
    code = main(["run", "--repo", "verl", "--config", str(_config(bed)), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    import json

    report = json.loads(out)
    assert [d["action"] for d in report["publish"]["decisions"]] == ["opened"]
    assert report["publish"]["api_requests"] == 3, bed.fake.requests
    (pr,) = bed.ours()
    assert VERL_TITLE.match(str(pr["title"])), pr["title"]


def test_the_token_never_appears_anywhere(bed: Bed, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    monkeypatch.setenv("BOT_GITHUB_TOKEN", TOKEN)
    config = _config(bed)
    seen: list[str] = []
    bed.commit_upstream({"recipe/evil.sh": ACTOR.replace("trainer.total_epochs=1",
                                                         f"trainer.note={TOKEN} trainer.who=@maintainers")}, "evil")
    for argv in (["run", "--repo", "verl", "--config", str(config)],
                 ["run", "--repo", "verl", "--config", str(config), "--format", "json"],
                 ["run", "--repo", "verl", "--config", str(config), "--dry-run", "--format", "markdown"]):
        main(argv)
        seen += capsys.readouterr()
    bed.fake.inject("*", ".", status=401, times=50)  # every request fails: the error path
    assert main(["run", "--repo", "verl", "--config", str(config)]) == 3
    seen += capsys.readouterr()
    http = bed.root / "http.toml"
    http.write_text(f'[repos.verl]\ngithub = "{FULL}"\nclone_url = "http://127.0.0.1:9/acme/verl.git"\n')
    bed.fake.reset_counts()
    main(["run", "--repo", "verl", "--config", str(http), "--dry-run"])  # git fails with the token in use
    seen += capsys.readouterr()
    for pr in bed.fake.pulls(FULL):
        seen += [str(pr["title"]), str(pr["body"])]
        seen += [str(c["body"]) for c in bed.fake.comments(FULL, int(pr["number"]))]
    for path in (bed.root / "cache").rglob("*"):
        if path.is_file() and path.stat().st_size < 1_000_000:
            seen.append(path.read_bytes().decode("utf-8", "replace"))
    for log in Path(tempfile.gettempdir()).glob("bot-crash-*.log"):
        seen.append(log.read_text())
    assert seen and not [text for text in seen if TOKEN in text]
    bodies = " ".join(str(pr["body"]) for pr in bed.fake.pulls(FULL))
    assert "@maintainers" not in bodies  # mentions from scanned files are defused


def test_a_github_app_installation_opens_the_pull_request(bed: Bed) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    bed.fake.set_app("4242", 77, public)
    result = publish(bed.repo, load_rules(), PublishOptions(throttle=False),
                     Credentials(kind="app", app_id="4242", private_key=private))
    assert decision(result)[0] == "opened"
    (pr,) = bed.ours()
    assert pr["user"] == "followup-bot[bot]"
    assert ("POST", "/app/installations/77/access_tokens", 201) in bed.fake.requests


def test_credentials_from_the_environment() -> None:
    from bot.publish.credentials import from_environment
    from bot.secrets import redact

    assert from_environment({}) is None
    token = from_environment({"GITHUB_TOKEN": "ghs_actions_token_123456", "BOT_GITHUB_TOKEN": "ghp_personal_98765"})
    assert token is not None and token.token_source == "BOT_GITHUB_TOKEN"
    assert "ghp_personal_98765" not in repr(token)
    assert redact("failed with ghp_personal_98765 at https://user:pw@host/x") == "failed with *** at https://***@host/x"
    with pytest.raises(UserError, match="BOT_GITHUB_APP_PRIVATE_KEY"):
        from_environment({"BOT_GITHUB_APP_ID": "1"})


def test_dry_run_warns_about_the_actions_token(bed: Bed, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    monkeypatch.delenv("BOT_GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["run", "--repo", "verl", "--config", str(_config(bed)), "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert "GITHUB_TOKEN" in err and "do not trigger" in err
    assert "2 findings" in out  # the dry-run by name fetched the default branch and scanned it
    assert bed.ours() == []


def test_a_huge_change_gets_a_shorter_body(bed: Bed) -> None:
    many = {f"recipe/r{i:03}.sh": ACTOR for i in range(700)}
    bed.commit_upstream(many, "many scripts")
    assert decision(bed.run())[0] == "opened"
    (pr,) = bed.ours()
    assert len(str(pr["body"])) < 65_536
    assert "more: run the command under" in str(pr["body"]) and "followup-bot:" in str(pr["body"])


# ---- regressions from review ----------------------------------------------------------------

def test_a_human_amend_of_the_bot_commit_is_never_pushed_over(bed: Bed) -> None:
    bed.run()
    git(bed.work, "fetch", "-q", "origin")
    git(bed.work, "checkout", "-q", "-B", "amend", f"origin/{BRANCH}")
    (bed.work / "examples" / "notes.md").write_text("kept by hand\n")
    git(bed.work, "add", "-A")
    git(bed.work, "commit", "-q", "--amend", "--no-edit")  # keeps the bot as author; the committer is a person
    env_sha = git(bed.work, "rev-parse", "HEAD").strip()
    git(bed.work, "push", "-q", "-f", "origin", f"HEAD:{BRANCH}")
    bed.commit_upstream({"recipe/z.sh": ACTOR}, "upstream moves")
    assert decision(bed.run())[0] == "blocked"
    assert bed.fake.branches(FULL)[BRANCH] == env_sha


def test_an_unreadable_script_keeps_the_pull_request_open(bed: Bed) -> None:
    bed.run()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": CRITIC.replace("False", "True")}, "fixed")
    (bed.work / "examples" / "latin.sh").write_bytes(b"# caf\xe9\n")
    git(bed.work, "add", "-A")
    git(bed.work, "commit", "-q", "-m", "latin-1")
    git(bed.work, "push", "-q", "origin", "main")
    assert decision(bed.run())[0] == "kept"
    assert len(bed.ours("open")) == 1 and BRANCH in bed.fake.branches(FULL)


UNRELATED_PARSE_ERROR = """\
#!/bin/bash
GPUS=${GPUS:-$(((NODES + 1) * 4)}
echo "$GPUS"

python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 actor_rollout_ref.actor.megatron.use_mbridge=True
"""
NEAR_PARSE_ERROR = """\
#!/bin/bash
python3 -m verl.trainer.main_ppo \\
    trainer.n_gpus_per_node=${GPUS:-$(((NODES + 1) * 4)} \\
    critic.megatron.use_mbridge=False
"""


def test_errors_away_from_what_the_rule_reads_do_not_hold_the_pull_request(bed: Bed) -> None:
    bed.run()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": CRITIC.replace("False", "True"),
                         "examples/gpus.sh": UNRELATED_PARSE_ERROR}, "fix by hand; a script with a slip")
    result = bed.run()
    assert decision(result)[0] == "closed"
    assert result.report.partly_parsed == ["examples/gpus.sh"]  # still reported, but it cannot hide a use_mbridge


def test_a_parse_error_next_to_a_launch_keeps_the_pull_request_open(bed: Bed) -> None:
    bed.run()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": CRITIC.replace("False", "True"),
                         "examples/near.sh": NEAR_PARSE_ERROR}, "fixed, and a launch with a slip")
    action, detail = decision(bed.run())
    assert action == "kept" and "examples/near.sh is partly parsed" in detail


def test_an_open_pull_request_without_the_marker_is_not_touched(bed: Bed) -> None:
    bed.run()
    (pr,) = bed.ours()
    sha = bed.fake.branches(FULL)[BRANCH]
    from github import Auth, Github

    maintainer = Github(base_url=bed.fake.url, auth=Auth.Token(TOKEN), retry=None)
    maintainer.get_repo(FULL).get_pull(int(pr["number"])).edit(body="rewritten by a maintainer")
    bed.commit_upstream({"recipe/m.sh": ACTOR}, "moves")
    result = bed.run()
    assert decision(result)[0] == "blocked" and "no bot marker" in decision(result)[1]
    assert bed.fake.branches(FULL)[BRANCH] == sha


def test_a_branch_left_after_closing_is_deleted_later(bed: Bed) -> None:
    bed.run()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": CRITIC.replace("False", "True")}, "fixed")
    (pr,) = bed.ours()
    bed.fake.close_pull(FULL, int(pr["number"]))  # closed by a person; the branch stays
    result = bed.run()
    assert decision(result)[0] == "branch-deleted" and f"#{pr['number']}" in decision(result)[1]
    assert BRANCH not in bed.fake.branches(FULL)


def test_closed_history_costs_no_extra_requests(bed: Bed) -> None:
    for name in ("p1", "p2", "p3"):
        bed.run()
        (pr,) = bed.ours("open")
        bed.fake.close_pull(FULL, int(pr["number"]))
        bed.commit_upstream({f"recipe/{name}.sh": ACTOR}, name)
    bed.run()
    bed.fake.reset_counts()
    assert decision(bed.run())[0] == "up-to-date"
    assert bed.fake.request_count == 1 and bed.fake.write_count == 0


def test_the_token_goes_only_to_the_forge_host_over_https(tmp_path: Path) -> None:
    from bot.publish.vcs import Remote

    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    forge = Remote(tmp_path / "r", "https://github.com/acme/verl.git", TOKEN, "github.com")
    mirror = Remote(tmp_path / "r", "https://gitlab.example/acme/verl.git", TOKEN, "github.com")
    plain = Remote(tmp_path / "r", "http://github.com/acme/verl.git", TOKEN, "github.com")
    assert "GIT_CONFIG_VALUE_0" in forge._env(network=True)
    assert "GIT_CONFIG_VALUE_0" not in forge._env(network=False)  # local commands never carry it
    assert "GIT_CONFIG_VALUE_0" not in mirror._env(network=True)
    assert "GIT_CONFIG_VALUE_0" not in plain._env(network=True)
