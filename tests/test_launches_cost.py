"""`bot launches` at a lower cost (issue 41, fourth step): work done once that each launch used to redo, with
the same answers."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

from bot.engine.context import scan_context
from bot.hydra.app import HydraApp, resolve_app
from bot.ir import Launch
from bot.lang import launch_reader
from bot.lang.shell.parse import analyse
from bot.lang.shell.values import read_value
from bot.report import indented_json
from tests.conftest import make_repo

APP = """import hydra


@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(cfg):
    pass
"""
FILES = {
    "lab/train.py": APP,
    "lab/conf/train.yaml": "a: 1\n",
    "lab/conf/other.yaml": "hydra:\n  searchpath: [file://extra]\na: 2\n",
    "extra/more.yaml": "b: 1\n",
    "a.sh": "python lab/train.py a=1\n",
    "b.sh": "python lab/train.py a=2\n",
    "c.sh": "python lab/train.py --config-name other a=3\n",
    "d.sh": "cd lab\npython train.py a=4\n",
}


def _launch(root: Path, context: Any, path: str) -> Launch:
    data = (root / path).read_bytes()
    (view,) = launch_reader(path, "shell", context).launch_views(data)
    (launch,) = view.launches
    return launch


def test_launches_of_one_app_from_several_files_look_its_config_directory_up_once(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES).resolve()
    context = scan_context(root)
    apps = [resolve_app(context, _launch(root, context, name)) for name in ("a.sh", "b.sh", "c.sh", "d.sh")]
    assert all(isinstance(app, HydraApp) for app in apps)
    first, second, other, moved = apps
    assert isinstance(first, HydraApp) and isinstance(second, HydraApp)
    assert isinstance(other, HydraApp) and isinstance(moved, HydraApp)
    assert second == first and second.config_dir is first.config_dir  # chosen alike: found once
    assert (other.config_name, other.search_path) == ("other", (str(root / "extra"),))  # its own flag, its own
    assert other.config_dir == first.config_dir and first.search_path == ()
    assert moved == first  # from another directory (`cd lab`), the same app and config


def test_the_primary_configs_search_path_is_read_again_for_each_launch(tmp_path: Path) -> None:
    """The config directory is looked up once, but the primary config's text is read per launch: a fix written
    while the scan's context lives (then judged) is read as it now is."""
    root = make_repo(tmp_path / "repo", FILES).resolve()
    context = scan_context(root)
    before = resolve_app(context, _launch(root, context, "a.sh"))
    (root / "lab/conf/train.yaml").write_text("hydra:\n  searchpath: [file://extra]\na: 1\n", encoding="utf-8")
    after = resolve_app(context, _launch(root, context, "b.sh"))
    assert isinstance(before, HydraApp) and isinstance(after, HydraApp)
    assert (before.search_path, after.search_path) == ((), (str(root / "extra"),))


def test_an_overrides_value_pieces_are_cut_once_and_shared_by_readers(tmp_path: Path) -> None:
    script = analyse(b'V=5\nARGS=(a.b=1 "c=$V")\npython -m m "${ARGS[@]}" d=$V e=$X\n')
    (launch,) = script.launches
    values = [o.value_run for o in launch.overrides]
    assert [o.value_run is run for o, run in zip(launch.overrides, values)] == [True] * 4
    assert [o.value_pieces == list(run) and o.value_pieces is not o.value_pieces
            for o, run in zip(launch.overrides, values)] == [True] * 4  # a copy for whoever changes it
    # beyond the array the key came through: nothing, V, V, and a value of the caller's
    assert [read_value(o).origin() for o in launch.overrides] == [
        "", "from V (line 1)", "from V (line 1)", "from X, which this script never assigns (the caller's environment)"]


def test_the_indented_writer_writes_a_containers_leaves_without_a_call_each() -> None:
    calls = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call" and frame.f_code is indented_json._write.__code__:
            calls += 1

    value = {"launches": [{"text": f"k{i}=v", "line": i, "in": None} for i in range(50)], "words": ["a"] * 50}
    sys.setprofile(count)
    try:
        text = indented_json.dumps(value, 1)
    finally:
        sys.setprofile(None)
    assert calls == 1 + 1 + 50 + 1  # the top, the list of launches, each launch, the list of words
    import json

    assert text == json.dumps(value, indent=1, ensure_ascii=False)


def test_pieces_and_expansion_steps_are_slotted_values_equal_and_hashed_by_their_fields() -> None:
    from bot.lang.shell.text import Definition, Piece, Via
    from bot.model import Span

    definition = Definition("V", "scalar", 1)
    via = Via("V", definition, Span(0, 2), "b")
    one, same = (Piece("ab", range(0, 2), range(1, 3), via=(via,)) for _ in range(2))
    assert not hasattr(one, "__dict__") and not hasattr(via, "__dict__")  # made by the hundred thousand
    assert one == same and hash(one) == hash(same) and len({one, same}) == 1
    assert one != Piece("ab", range(0, 2), range(1, 3)) and via == Via("V", definition, Span(0, 2), "b")
    assert via != Via("V", Definition("V", "scalar", 1), Span(0, 2), "b")  # another assignment of V
