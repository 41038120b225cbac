"""What a follow-up says, on the loopback GitHub: title, body under the repository's template, the
upstream change found in the history, the commit message, the chore pull request, and one closing
comment however many runners close it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.rules.loader import load_rules
from tests.conftest import ROOT, RULE_DEFS, git
from tests.test_publish import ACTOR, BRANCH, FULL, TOKEN, Bed, _bed, decision

TEMPLATE = """\
## Summary

<!-- one paragraph: what and why -->

## How was this tested?

```md
# not a heading: inside a fence
```

## Risk

Low / medium / high?

## Checklist

- [ ] I read the guide
"""
ENGINE = "verl/workers/engine/megatron/engine.py"


@pytest.fixture
def bed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    with _bed(tmp_path, monkeypatch) as made:
        yield made


def _history(bed: Bed) -> tuple[str, str]:
    """An engine whose check came with #12, then an unrelated #13 that mentions the key elsewhere."""
    check = bed.commit_upstream({ENGINE: "def start(cfg):\n    assert cfg.use_mbridge, 'use_mbridge must be True'\n"},
                                "Make the engine require mbridge (#12)")
    bed.commit_upstream({"docs/engine.md": "use_mbridge is required\n"}, "Document the engine (#13)")
    return check, "#13"


def _rules(tmp_path: Path, upstream: str | None) -> list:  # type: ignore[type-arg]
    text = (ROOT / "rules" / "megatron-use-mbridge.yaml").read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith("upstream:"))
    if upstream:
        text += f"\nupstream: {upstream}\n"
    folder = tmp_path / "own-rules"
    folder.mkdir(exist_ok=True)
    (folder / "megatron-use-mbridge.yaml").write_text(text)
    return load_rules([folder], include_bundled=False)


def _run(bed: Bed, rules: list, group: str | None = None):  # type: ignore[no-untyped-def,type-arg]
    from bot.publish.credentials import Credentials
    from bot.publish.forge import RetryPolicy
    from bot.publish.run import PublishOptions, publish

    options = PublishOptions(group=group, retry=RetryPolicy(attempts=3, base=0.01, cap=0.05), throttle=False)
    return publish(bed.repo, rules, options, Credentials(kind="token", token=TOKEN, token_source="BOT_GITHUB_TOKEN"))


def test_the_title_says_the_change_and_the_body_follows_the_repositorys_template(bed: Bed, tmp_path: Path) -> None:
    bed.commit_upstream({".github/pull_request_template.md": TEMPLATE}, "Add a PR template")
    assert decision(_run(bed, _rules(tmp_path, None)))[0] == "opened"
    (pr,) = bed.ours()
    assert pr["title"] == "[megatron] fix: set use_mbridge=True in 2 launch scripts"
    body = str(pr["body"])
    places = [body.find(h) for h in ("## Summary\n", "## How was this tested?\n", "## Risk\n", "## Checklist\n")]
    assert min(places) == 0 and places == sorted(places)
    assert "# not a heading" not in body
    summary, tested = body[:places[1]], body[places[1]:places[2]]
    assert "Set use_mbridge=True in 2 launch scripts: 2 overrides that break" in summary
    assert "parses again (tree-sitter-bash)" in tested and "finds nothing left to change" in tested
    assert "bot run --repo verl --dry-run --format diff --rule megatron-use-mbridge" in tested
    assert "Nothing from the bot for this section." in body[places[2]:places[3]]
    # the changes have no heading of their own in this template: they come after it, under the bot's
    changes = body[body.index("### Changes\n"):]
    assert "| `examples/actor.sh` | 3 | `actor_rollout_ref.actor.megatron.use_mbridge` | `False` | `True` |" in changes
    assert "| `examples/critic.sh` | 2 | `critic.megatron.use_mbridge` | `False` | `True` |" in changes


def test_without_a_template_the_body_has_the_default_sections(bed: Bed, tmp_path: Path) -> None:
    _run(bed, _rules(tmp_path, None))
    (pr,) = bed.ours()
    body = str(pr["body"])
    places = [body.find(h) for h in ("### What does this PR do?\n", "### Test\n", "### Changes\n")]
    assert min(places) == 0 and places == sorted(places)


@pytest.mark.parametrize(("cited", "said", "unsaid"), [
    (None, "The check came with #12 (", "The rule cites"),
    ("acme/verl#12", "The check came with #12 (", "The rule cites"),
    ("acme/verl#13",  # the rule's citation is no live reference (a zero-width space); the history's is
     "The rule cites acme/verl#\u200b13; this repository's history shows the check arriving with #12",
     "Upstream: acme/verl#\u200b13"),
    ("acme/verl#99", "The rule cites acme/verl#\u200b99", "Upstream: acme/verl#\u200b99"),
    ("other/framework#7", "The check came with #12 (", "not checked"),
])
def test_the_upstream_change_is_checked_against_the_history(bed: Bed, tmp_path: Path, cited: str | None, said: str,
                                                            unsaid: str) -> None:
    check, _ = _history(bed)
    _run(bed, _rules(tmp_path, cited))
    (pr,) = bed.ours()
    body = str(pr["body"])
    assert said in body and unsaid not in body
    assert f"#12 ({check[:8]})" in body and "`assert cfg.use_mbridge, 'use_mbridge must be True'`" in body
    message = subprocess.run(["git", "--git-dir", str(bed.bare), "log", "-1", "--format=%B", BRANCH],
                             capture_output=True, text=True, check=True).stdout
    assert message.startswith(str(pr["title"]) + "\n\n") and f"#12 ({check[:8]})" in message
    assert "- examples/actor.sh\n" in message


def test_a_citation_without_a_check_in_the_history_is_given_as_written(bed: Bed, tmp_path: Path) -> None:
    _run(bed, _rules(tmp_path, "acme/verl#12"))
    (pr,) = bed.ours()
    assert "Upstream: acme/verl#\u200b12 (not checked: this history does not show the check)." in str(pr["body"])


def test_optional_additions_come_as_a_separate_chore_pull_request_with_group_all(bed: Bed) -> None:
    rules = load_rules([RULE_DEFS], enable=["npu-flash-attn-demo"])
    rules = [r for r in rules if r.id in ("megatron-use-mbridge", "npu-flash-attn-demo")]
    decisions = _run(bed, rules, group="all").decisions
    assert [(d.group, d.action) for d in decisions] == [("all", "opened"), ("all-chore", "opened")]
    fix, chore = sorted(bed.ours(), key=lambda p: int(p["number"]))
    assert fix["title"].startswith("[megatron] fix: set use_mbridge=True in 2 launch scripts")
    assert str(chore["title"]).startswith("[misc] chore: add use_flash_attn=True to 1 launch script")
    assert "This is not a fix: no launch fails without it." in str(chore["body"])
    assert "| (not set) | `+actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True` |" \
        in str(chore["body"])
    assert "--rule npu-flash-attn-demo" in str(chore["body"]) and "megatron-use-mbridge" not in str(chore["body"])
    diff = subprocess.run(["git", "--git-dir", str(bed.bare), "diff", "main", "bot/all-chore"], capture_output=True,
                          text=True, check=True).stdout
    assert "use_flash_attn" in diff and "-    actor_rollout_ref.actor.megatron.use_mbridge" not in diff


def test_the_closing_comment_names_the_commit_that_fixed_it(bed: Bed) -> None:
    bed.run()
    fixed = bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                                 "examples/critic.sh": "#!/bin/bash\npython3 -m verl.trainer.main_ppo\n"},
                                "Fix the launches by hand (#77)")
    assert decision(bed.run())[0] == "closed"
    (pr,) = bed.ours()
    (comment,) = bed.fake.comments(FULL, int(pr["number"]))
    assert fixed[:12] in comment["body"] and "Fix the launches by hand (#77)" in comment["body"]


def test_two_runners_closing_the_same_pull_request_leave_one_comment(bed: Bed) -> None:
    bed.run()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": "#!/bin/bash\npython3 -m verl.trainer.main_ppo\n"}, "Fixed by hand")
    config = bed.root / "bot.toml"
    config.write_text(f'[repos.verl]\ngithub = "{FULL}"\nclone_url = "{bed.bare}"\n')
    bed.fake.inject("GET", r"/pulls$", delay=2.0, times=2)  # both runners decide before either acts
    runners = []
    for name in ("one", "two"):  # two machines: separate caches, so no local lock orders them
        env = {**os.environ, "BOT_CACHE_DIR": str(bed.root / f"cache-{name}"), "BOT_GITHUB_TOKEN": TOKEN,
               "PYTHONPATH": str(ROOT)}
        runners.append(subprocess.Popen([sys.executable, "-m", "bot", "run", "--repo", "verl", "--config",
                                         str(config), "--format", "json"], env=env, cwd=bed.root,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = [runner.communicate(timeout=180) for runner in runners]
    assert [r.returncode for r in runners] == [0, 0], outputs
    (pr,) = bed.ours()
    assert pr["state"] == "closed"
    assert len(bed.fake.comments(FULL, int(pr["number"]))) == 1
    assert all('"closed"' in out for out, _ in outputs)
    assert BRANCH not in bed.fake.branches(FULL)
    git(bed.work, "fetch", "-q", "origin")


def test_a_marker_edited_to_hold_a_git_option_never_reaches_git(bed: Bed) -> None:
    import json
    import urllib.request

    bed.run()
    (pr,) = bed.ours()
    trap = bed.root / "written-by-git"
    body = str(pr["body"]).replace('"upstream": "', f'"upstream": "--output={trap} ').replace(
        f'--output={trap} ', f'--output={trap}", "was": "')
    assert f'"upstream": "--output={trap}"' in body
    request = urllib.request.Request(f"{bed.fake.url}/repos/{FULL}/pulls/{pr['number']}", method="PATCH",
                                     data=json.dumps({"body": body}).encode(),
                                     headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"})
    urllib.request.urlopen(request).read()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": "#!/bin/bash\npython3 -m verl.trainer.main_ppo\n"}, "Fixed by hand")
    assert decision(bed.run())[0] == "closed"
    assert not trap.exists()


def test_closing_counts_and_removes_only_the_bots_own_closing_comments(bed: Bed) -> None:
    import json
    import urllib.request

    from bot.publish.body import CLOSE_MARKER

    bed.run()
    (pr,) = bed.ours()
    bed.fake.tokens["ghp_alice0123456789abcdef0123456789abcd"] = "alice"
    quoted = f"Quoting the bot's last one:\n> {CLOSE_MARKER}\n> fixed elsewhere"
    request = urllib.request.Request(f"{bed.fake.url}/repos/{FULL}/issues/{pr['number']}/comments", method="POST",
                                     data=json.dumps({"body": quoted}).encode(),
                                     headers={"Authorization": "token ghp_alice0123456789abcdef0123456789abcd",
                                              "Content-Type": "application/json"})
    urllib.request.urlopen(request).read()
    bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                         "examples/critic.sh": "#!/bin/bash\npython3 -m verl.trainer.main_ppo\n"}, "Fixed by hand")
    assert decision(bed.run())[0] == "closed"
    comments = bed.fake.comments(FULL, int(pr["number"]))
    assert [c["body"] == quoted for c in comments] == [True, False]  # alice's stays; the bot's closing one is added
    assert comments[1]["body"].startswith(CLOSE_MARKER)


def test_pipes_are_escaped_in_table_cells_only_and_the_commit_message_is_plain_text() -> None:
    from bot.model import Report
    from bot.publish.body import code, commit_message, plain
    from bot.publish.describe import Context, what
    from bot.upstream.origin import Origin

    (rule,) = [r for r in load_rules() if r.id == "megatron-use-mbridge"]
    origin = Origin(None, "a" * 40, "Check a | b (#5)", 5, "e.py", "assert a or b, 'x|y'")
    ctx = Context([rule], Report("r", None, []), [], "bot run", code, plain, origins={rule.id: origin})
    sentence = next(line for line in what(ctx) if line.startswith("The check came with"))
    assert "\\|" not in sentence and "`Check a | b (#5)`" in sentence  # prose: GitHub would show the backslash
    assert code("a|b", cell=True) == "`a\\|b`"  # a table cell: the pipe would end the cell
    message = commit_message("[megatron] fix: set use_mbridge=True in 1 launch script", ctx)
    assert "**" not in message and "The check came with #5 (aaaaaaaa), Check a | b (#5)." in message


def test_the_templates_own_headings_stay_as_written(bed: Bed, tmp_path: Path) -> None:
    """A repository's checks look for its template's headings verbatim (verl's `### Design & Code Changes`)."""
    template = "### What & why\n\n### Design & Code Changes *(if any)*\n"
    bed.commit_upstream({".github/pull_request_template.md": template}, "Add a PR template")
    assert decision(_run(bed, _rules(tmp_path, None)))[0] == "opened"
    (pr,) = bed.ours()
    assert "\n### Design & Code Changes *(if any)*\n" in str(pr["body"])
    assert str(pr["body"]).startswith("### What & why\n")
