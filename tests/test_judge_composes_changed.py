"""The compose judge asks Hydra only about the launches the edits change (issue 41): a launch whose overrides,
words and branches the edits leave as they were, and none of whose config files the run edits, keeps its
verdict without being composed on either side. Counted with the composer's own count of compositions and
the judge's count of launches it composed."""

from __future__ import annotations

from pathlib import Path

from bot.compose.judge import judged, newly_failing
from bot.engine.context import repository_context
from bot.hydra.shadow import ConfigShadow
from bot.lang import launch_reader
from tests.conftest import make_repo

APP = '''\
import hydra


@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(cfg):
    pass
'''
CONFIG = """\
model:
  width: 8
  depth: 2
optim:
  lr: 0.1
"""
SCRIPT = """\
#!/bin/bash
RATE=0.2
python3 -m app.main model.width=16 optim.lr=$RATE

python3 -m app.main model.depth=4

if [ "$BIG" = 1 ]; then DEPTH=8; else DEPTH=3; fi
python3 -m app.main model.depth=$DEPTH
"""


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"app/__init__.py": "", "app/main.py": APP, "app/conf/train.yaml": CONFIG,
                                         "run.sh": SCRIPT})


def _judge(root: Path, after: bytes, shadow: ConfigShadow | None = None) -> tuple[list[str], int]:
    """(the judge's messages, the compositions Hydra was asked for, before and after the edits)."""
    context = repository_context(root)
    reader = launch_reader("run.sh", "shell", context)
    asked = context.composer.stats.composed
    messages = newly_failing(context, reader, SCRIPT.encode(), after, shadow=shadow)
    return messages, context.composer.stats.composed - asked


def test_only_the_launch_an_edit_reaches_is_composed(tmp_path: Path) -> None:
    """The edited launch still composes after the edits: what it did before is not asked."""
    root = _repo(tmp_path)
    assert _judge(root, SCRIPT.replace("model.depth=4", "model.depth=5").encode()) == ([], 1)


def test_an_edit_that_breaks_a_launch_is_reported_having_composed_it_before(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    messages, asked = _judge(root, SCRIPT.replace("model.depth=4", "model.height=4").encode())
    assert len(messages) == 1 and messages[0].startswith("line 5: model.height: Could not override 'model.height'")
    assert asked == 2  # after the edits (it fails), then before them (it composed)


def test_an_edited_variable_reaches_the_launches_that_read_it(tmp_path: Path) -> None:
    """The override's words stay `optim.lr=$RATE`; the value it passes changes, so the launch is composed."""
    root = _repo(tmp_path)
    assert _judge(root, SCRIPT.replace("RATE=0.2", "RATE=0.3").encode()) == ([], 1)
    assert _judge(root, SCRIPT.replace("DEPTH=3", "DEPTH=6").encode()) == ([], 2)  # each way through its branch


def test_moving_launches_down_the_file_composes_none(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    after = SCRIPT.replace("#!/bin/bash\n", "#!/bin/bash\n# a comment the edits add\n\n").encode()
    assert _judge(root, after) == ([], 0)


def test_the_runs_config_edits_recompose_the_launches_of_that_app(tmp_path: Path) -> None:
    """No launch is edited, but the run edits their app's config: each is composed again, with it."""
    root = _repo(tmp_path)
    shadow = ConfigShadow(root, {"app/conf/train.yaml": CONFIG.replace("  depth: 2\n", "").encode()})
    try:
        messages, asked = _judge(root, SCRIPT.encode(), shadow)
    finally:
        shadow.close()
    assert [m.split(": ")[0] for m in messages] == ["line 5", 'line 8 (when if [ "$BIG" = 1 ])']
    # after: the three launches (the third fails in its first way); before: the two that fail after
    assert asked == 3 + 3


def test_the_launches_of_a_text_are_composed_when_asked_and_once(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    context = repository_context(root)
    found = judged(context, launch_reader("run.sh", "shell", context), SCRIPT.encode())
    assert found.count == 3 and found.composed == 0
    assert found.verdict(1) is None and found.verdict(1) is None
    assert found.composed == 1
