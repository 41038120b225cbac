"""Publishing trusts nothing the repository controls: long texts reach git by file, the bot's own
comments and pull requests are the ones its account wrote, bodies stay within GitHub's limits and
render rule text inert, and rule ids git cannot take as branch names are refused when rules load."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.publish import body as texts
from bot.rules.loader import load_rules
from tests import test_publish
from tests.conftest import git
from tests.test_publish import ACTOR, BRANCH, CRITIC, FULL, TOKEN, Bed, decision


@pytest.fixture
def bed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Bed]:
    """test_publish's: a bare remote with two launches to fix, and the loopback GitHub."""
    with test_publish._bed(tmp_path, monkeypatch) as made:
        yield made


def test_a_huge_assert_message_reaches_git_by_file_not_argument(bed: Bed, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.commands.watch import watch
    from bot.publish.run import PublishOptions

    monkeypatch.setenv("BOT_GITHUB_TOKEN", TOKEN)
    engine = ("from verl.workers.config import McoreEngineConfig\n\n\nclass MegatronEngine:\n"
              "    def __init__(self, engine_config: McoreEngineConfig):\n        self.engine_config = engine_config\n")
    target = "_target_: verl.workers.config.McoreEngineConfig\n"
    before = bed.commit_upstream({
        "verl/workers/engine/megatron/transformer_impl.py": engine,
        "verl/trainer/config/ppo_megatron_trainer.yaml":
            f"actor_rollout_ref:\n  actor:\n    megatron:\n      {target}      use_mbridge: false\n",
    }, "engine and config")
    message = "use_mbridge must be True; " * 8000  # 208,000 characters, past what one argument may hold
    after = bed.commit_upstream({"verl/workers/engine/megatron/transformer_impl.py":
                                 engine + f'        assert self.engine_config.use_mbridge, "{message}"\n'},
                                "Assert use_mbridge in the Megatron engine (#4530)")
    result = watch(bed.repo, load_rules(include_bundled=False), before, after, PublishOptions(throttle=False),
                   dry_run=False)
    assert result.published is not None
    (decision_,) = result.published.decisions
    assert decision_.action == "opened", decision_.detail
    (pr,) = bed.fake.pulls(FULL)
    assert len(pr["body"]) <= texts.MAX_BODY
    logged = git(bed.bare, "log", "-1", "--format=%B", decision_.branch)
    assert logged.startswith(str(pr["title"])) and len(logged) < 20_000  # the commit says why, in bounds


# ---- the bot's own comments and pull requests are the ones its account wrote --------------------

HUMAN = "ghp_aliceT0kenValue0123456789abcdef"


def _as_alice(bed: Bed) -> Any:
    from github import Auth, Github

    bed.fake.tokens[HUMAN] = "alice"
    return Github(base_url=bed.fake.url, auth=Auth.Token(HUMAN), retry=None).get_repo(FULL)


def _user_requests(bed: Bed) -> int:
    return sum(1 for method, path, _ in bed.fake.requests if (method, path) == ("GET", "/user"))


def test_a_persons_comment_quoting_the_bots_marker_is_never_edited(bed: Bed) -> None:
    bed.run()
    (pr,) = bed.ours()
    number = int(pr["number"])
    quoted = f"{texts.COMMENT_MARKER}\nI copied the bot's comment here to discuss it."
    _as_alice(bed).get_issue(number).create_comment(quoted)
    git(bed.work, "fetch", "-q", "origin")
    git(bed.work, "checkout", "-q", "-b", "human", f"origin/{BRANCH}")
    (bed.work / "examples" / "note.txt").write_text("mine\n")
    git(bed.work, "add", "-A")
    git(bed.work, "commit", "-qm", "mine", "--author=Alice <alice@example.invalid>")
    git(bed.work, "push", "-q", "origin", f"HEAD:{BRANCH}")
    bed.commit_upstream({"recipe/a.sh": ACTOR}, "more")
    bed.fake.reset_counts()
    assert decision(bed.run())[0] == "blocked"
    comments = bed.fake.comments(FULL, number)
    assert [c["body"] for c in comments if c["user"] == "alice"] == [quoted]  # untouched
    (own,) = [c for c in comments if c["user"] == "followup-bot"]
    assert "recipe/a.sh" in own["body"]
    assert _user_requests(bed) == 1  # the account, asked once


def test_a_persons_closing_marker_does_not_silence_the_bots_closing_comment(bed: Bed) -> None:
    bed.run()
    (pr,) = bed.ours()
    number = int(pr["number"])
    _as_alice(bed).get_issue(number).create_comment(f"{texts.CLOSE_MARKER}\nClosing soon, I think.")
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": CRITIC.replace("False", "True")}, "fix by hand")
    assert decision(bed.run())[0] == "closed"
    comments = bed.fake.comments(FULL, number)
    assert len(comments) == 2  # alice's stays, and the bot said why it closed
    (own,) = [c for c in comments if c["user"] == "followup-bot"]
    assert own["body"].startswith(texts.CLOSE_MARKER) and "`fix by hand`" in own["body"]


def test_a_persons_pull_request_carrying_the_marker_is_not_the_bots(bed: Bed) -> None:
    bed.run()
    (pr,) = bed.ours()
    repo = _as_alice(bed)
    bed.fake.close_pull(FULL, int(pr["number"]))  # the bot's, closed; alice opens one from its branch
    own_body = "Alice's own description\n" + str(pr["body"]).rsplit("\n", 1)[-1]  # the marker, copied
    alices = repo.create_pull(base="main", head=BRANCH, title="alice's take", body=own_body)
    bed.commit_upstream({"recipe/m.sh": ACTOR}, "moves")
    sha = bed.fake.branches(FULL)[BRANCH]
    result = bed.run()
    action, detail = decision(result)
    assert action == "blocked" and "opened by alice, not the bot's account followup-bot" in detail
    assert bed.fake.pull(FULL, alices.number)["body"] == own_body  # not rewritten
    assert bed.fake.pull(FULL, alices.number)["state"] == "open"  # nor closed
    assert bed.fake.branches(FULL)[BRANCH] == sha  # nor pushed over


def _fingerprint(bed: Bed) -> str:
    """The fingerprint of the change the bot would make now, as a person could work it out."""
    from bot.publish.publisher import fingerprint
    from bot.publish.run import group_reports
    from bot.report.diff import render

    checkout = bed.root / "checkout"
    git(bed.root, "clone", "-q", str(bed.bare), str(checkout))
    _, groups = group_reports(checkout, load_rules(), "rule", False, FULL)
    (group,) = [g for g in groups if g.id == "megatron-use-mbridge"]
    return fingerprint(render(group.report))


def test_a_persons_closed_pull_request_with_the_bots_fingerprint_does_not_silence_it(bed: Bed) -> None:
    bed.fake.inject("POST", r"/pulls$", status=502)  # a run cut short: the branch pushed, no pull request
    assert decision(bed.run())[0] == "failed"
    marker = texts.Identity(("megatron-use-mbridge",), None, _fingerprint(bed)).render()
    alices = _as_alice(bed).create_pull(base="main", head=BRANCH, title="not now", body=f"copied\n{marker}")
    alices.edit(state="closed")
    assert decision(bed.run())[0] == "opened"  # her closed pull request is hers: the bot opens its own
    (own,) = [p for p in bed.ours("open") if p["user"] == "followup-bot"]
    assert own["head"] == BRANCH


def test_a_github_app_knows_its_account_from_the_installation(bed: Bed) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from bot.publish.credentials import Credentials
    from bot.publish.run import PublishOptions, publish

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    bed.fake.set_app("4242", 77, public)

    def run() -> str:
        result = publish(bed.repo, load_rules(), PublishOptions(throttle=False),
                         Credentials(kind="app", app_id="4242", private_key=private))
        return decision(result)[0]

    assert run() == "opened"
    bed.commit_upstream({"recipe/app.sh": ACTOR}, "moves")
    assert run() == "updated"  # its own pull request (GET /user answers an app 403: never asked)
    assert _user_requests(bed) == 0


# ---- bodies within GitHub's limits, rule text inert ---------------------------------------------

def _rule(tmp_path: Path, description: str, value: object = True, title: str = "Megatron needs the bridge") -> Path:
    """The use_mbridge rule, in a folder of its own, with the texts a test gives it (JSON is YAML)."""
    folder = tmp_path / "own-rules"
    folder.mkdir(exist_ok=True)
    (folder / "megatron-use-mbridge.yaml").write_text(
        f"id: megatron-use-mbridge\ntitle: {json.dumps(title)}\ndescription: {json.dumps(description)}\n"
        "severity: error\nmatch:\n  key: ['**.megatron.use_mbridge']\n  value_not: [true]\n"
        f"fix:\n  set: {json.dumps(value)}\n")
    return folder


def _publish(bed: Bed, folder: Path) -> Any:
    from bot.publish.credentials import Credentials
    from bot.publish.forge import RetryPolicy
    from bot.publish.run import PublishOptions, publish

    return publish(bed.repo, load_rules([folder], include_bundled=False),
                   PublishOptions(retry=RetryPolicy(attempts=2, base=0.01, cap=0.05), throttle=False),
                   Credentials(kind="token", token=TOKEN, token_source="BOT_GITHUB_TOKEN"))


def test_a_huge_rule_description_is_cut_to_githubs_limit_and_the_marker_kept(bed: Bed, tmp_path: Path) -> None:
    folder = _rule(tmp_path, "A sentence a rule author wrote at length. " * 2500)  # 105,000 characters
    assert decision(_publish(bed, folder))[0] == "opened"
    (pr,) = bed.ours()
    body = str(pr["body"])
    assert len(body) <= texts.MAX_BODY and texts.read_identity(body) is not None
    assert "(cut)" in body  # said, not silently dropped
    bed.fake.reset_counts()
    assert decision(_publish(bed, folder))[0] == "up-to-date"  # the marker reads back: no new pull request
    assert bed.fake.write_count == 0


def test_a_body_github_refuses_still_gets_the_pushed_branch_its_pull_request(bed: Bed, tmp_path: Path) -> None:
    bed.fake.inject("POST", r"/pulls$", status=422)  # whatever GitHub found wrong with the full body
    assert decision(_publish(bed, _rule(tmp_path, "Plain words.")))[0] == "opened"
    (pr,) = bed.ours()
    assert pr["head"] == BRANCH and texts.read_identity(str(pr["body"])) is not None
    assert "GitHub refused the bot's full description" in str(pr["body"])


LIVE = ("See [the docs](https://example.invalid/a) and ![a picture](https://example.invalid/p.png).\n"
        "# A heading\n<img src=x onerror=alert(1)> <b>bold</b> **strong** `code` and `a `` tick`\n"
        "Ping @alice and @acme/team about #123, acme/verl#45 and GH-6; www.example.invalid too.\n"
        "- a list\n1. a numbered one\n    indented code\n| a | table |\n$x^2$")


def test_rule_text_is_inert_in_the_title_and_body(bed: Bed, tmp_path: Path) -> None:
    folder = _rule(tmp_path, LIVE, value="@alice", title="Bridge #7 for @bob")
    assert decision(_publish(bed, folder))[0] == "opened"
    (pr,) = bed.ours()
    title, body = str(pr["title"]), str(pr["body"])
    for text in (title, body):
        assert not re.search(r"@\w", text), text  # no mention: a zero-width space after each @
        assert not re.search(r"(?:^|[^\w])#\d|GH-\d", text)  # no issue or pull request reference
        assert "://" not in text and "www." not in text  # no link
    assert "@\u200balice" in title
    assert "\\[the docs\\](" in body and "\\!\\[a picture\\]" in body  # no link, no image
    assert "\\<img src=x onerror=alert(1)\\>" in body and "\\*\\*strong\\*\\*" in body  # no HTML, no emphasis
    assert "\n\\#\u200b A heading" in body and "\n\\- a list" in body and "\n1\\. a numbered" in body
    assert "\nindented code" in body and "\\| a \\| table \\|" in body and "\\$x^2\\$" in body
    assert "`code`" in body  # the author's code spans, made again with a fence nothing inside closes


def test_rule_ids_git_cannot_take_as_branch_names_are_refused_when_rules_load(tmp_path: Path) -> None:
    import subprocess

    from bot.errors import UserError
    from bot.rules.loader import parse_rule

    body = {"match": {"key": ["a.b"], "value": [1]}, "fix": {"set": 2}}
    for bad in ("a..b", "x.lock", "x.", "v1..2.lock"):
        with pytest.raises(UserError, match=rf"{re.escape(bad)}\.yaml: id: expected a name git takes for a branch"):
            parse_rule({"id": bad, **body}, tmp_path / f"{bad}.yaml")
    accepted = []
    for good in ("a.b", "x.lock.y", "x-lock", "v1.2", "a_b.c-d", "lock", "9.lockx"):
        accepted.append(parse_rule({"id": good, **body}, tmp_path / f"{good}.yaml").id)
    for rule_id in accepted:  # what the loader takes, git takes as the branch `bot/<id>`
        subprocess.run(["git", "check-ref-format", "--branch", f"bot/{rule_id}"], check=True, capture_output=True)


def test_a_bad_rule_id_stops_the_command_with_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "drop.lock.yaml").write_text("id: drop.lock\nmatch: {key: [a.b], value: [1]}\nfix: {set: 2}\n")
    done = subprocess.run([sys.executable, "-m", "bot", "rules", "list", "--rules", str(folder)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert f"{folder / 'drop.lock.yaml'}: id:" in line and "'drop.lock'" in line


def test_a_body_over_the_limit_is_cut_at_a_line_with_its_code_block_closed_and_marker_kept() -> None:
    identity = texts.Identity(("r",), None, "f" * 16)
    text = "intro\n\n````sh\n" + "echo a line of a long script\n" * 5000 + "````\n\nafter\n\n" + identity.render()
    bounded = texts.bound(text, identity, "bot run --repo x --dry-run")
    assert len(bounded) <= texts.MAX_BODY and texts.read_identity(bounded) == identity
    cut_at = bounded.index("... cut here")
    assert bounded[:cut_at].rstrip().endswith("echo a line of a long script\n````".rstrip())
    assert "over GitHub's limit of 65,536" in bounded
    assert texts.bound("short", identity, "x") == "short"


def _edited_repo(tmp_path: Path) -> Any:
    from bot.publish.vcs import Remote
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "repo", {"[ab].sh": "one\n", "a.sh": "two\n"})
    (repo / "[ab].sh").write_text("one, edited\n")
    (repo / "a.sh").write_text("two, edited by someone else\n")
    return repo, Remote(repo, str(tmp_path / "nowhere.git"))


def test_the_commit_message_reaches_git_by_file(tmp_path: Path) -> None:
    from bot.publish.vcs import Author

    repo, remote = _edited_repo(tmp_path)
    message = "fix: a title\n\n" + " ".join(["why, at length;"] * 20_000) + "\n"  # 320 KB: over an argument
    sha = remote.commit(repo, ["[ab].sh"], message, Author("followup-bot", "bot@example.invalid"))
    assert git(repo, "log", "-1", "--format=%B", sha) == message + "\n"


def test_the_paths_reach_git_by_file_as_written(tmp_path: Path) -> None:
    from bot.publish.vcs import Author

    repo, remote = _edited_repo(tmp_path)
    sha = remote.commit(repo, ["[ab].sh"], "fix: one file\n", Author("followup-bot", "bot@example.invalid"))
    assert git(repo, "show", "--name-only", "--format=", sha).split() == ["[ab].sh"]  # not a glob of a.sh too
    assert git(repo, "status", "--porcelain").split() == ["M", "a.sh"]
