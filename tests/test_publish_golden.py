"""Publishing decisions over a whole life cycle, held against a golden file.

The loopback GitHub and a real bare remote, two rule groups, and the states a follow-up goes
through (opened, up to date, updated, blocked by a person, closed when fixed upstream, skipped when
closed unmerged, a new change after that). A change of structure must leave every decision as it
was; `BOT_UPDATE_GOLDEN=1` rewrites the file when a change of behaviour is meant (say so in its note).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from bot.publish.credentials import Credentials
from bot.publish.forge import RetryPolicy
from bot.publish.run import PublishOptions, publish
from bot.rules.loader import load_rules
from tests.conftest import TESTS, git
from tests.test_publish import ACTOR, CRITIC, FULL, TOKEN, Bed, _bed

GOLDEN = TESTS / "golden" / "publish_decisions.json"
_SHA = re.compile(r"\b[0-9a-f]{7,40}\b")


def _run(bed: Bed) -> list[list[object]]:
    result = publish(bed.repo, load_rules(enable=["megatron-recompute-uniform"]),
                     PublishOptions(retry=RetryPolicy(attempts=2, base=0.01, cap=0.02), throttle=False),
                     Credentials(kind="token", token=TOKEN, token_source="BOT_GITHUB_TOKEN"))
    return [[d.group, d.action, _SHA.sub("<sha>", d.detail), d.number] for d in result.decisions]


def test_publish_decisions_over_a_life_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps: list[list[object]] = []
    with _bed(tmp_path, monkeypatch) as bed:
        steps.append(["first run", _run(bed)])
        steps.append(["again, nothing new", _run(bed)])
        bed.commit_upstream({"recipe/new.sh": ACTOR.replace("actor_rollout_ref.actor", "actor_rollout_ref.ref")},
                            "a recipe with the old form")
        steps.append(["upstream adds a violation", _run(bed)])
        git(bed.work, "fetch", "-q", "origin")
        git(bed.work, "checkout", "-q", "-b", "human", "origin/bot/megatron-recompute-uniform")
        (bed.work / "examples" / "notes.md").write_text("tuned by hand\n")
        git(bed.work, "add", "-A")
        git(bed.work, "commit", "-qm", "mine", "--author=Alice <alice@example.invalid>")
        git(bed.work, "push", "-q", "origin", "HEAD:bot/megatron-recompute-uniform")
        bed.commit_upstream({"recipe/other.sh": ACTOR}, "another")
        steps.append(["a person commits to one branch", _run(bed)])
        bed.commit_upstream({"examples/actor.sh": ACTOR.replace("False", "True"),
                             "examples/critic.sh": CRITIC.replace("False", "True"),
                             "recipe/new.sh": ACTOR.replace("actor_rollout_ref.actor", "actor_rollout_ref.ref")
                             .replace("False", "True"), "recipe/other.sh": ACTOR.replace("False", "True")},
                            "fixed by hand")
        steps.append(["fixed upstream", _run(bed)])
        for pr in bed.ours("open"):
            bed.fake.close_pull(FULL, int(pr["number"]))
        steps.append(["closed unmerged", _run(bed)])
        bed.commit_upstream({"recipe/again.sh": ACTOR}, "the old form copied back")
        steps.append(["the old form comes back", _run(bed)])
    if os.environ.get("BOT_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(steps, indent=1) + "\n", encoding="utf-8")
    assert steps == json.loads(GOLDEN.read_text(encoding="utf-8"))
