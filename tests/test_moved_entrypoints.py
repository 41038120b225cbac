"""`fix.entrypoint` on a real checkout: a launch moves only to a module the repository holds, and
list element fixes (`map_items`, `remove_items`) as a scan writes them and a pull request names them."""

from __future__ import annotations

from pathlib import Path

from bot.engine.scan import scan
from bot.engine.write import write_changes
from bot.model import Status
from bot.publish.wording import summary
from bot.rules.loader import load_rules
from tests.conftest import RULE_DEFS, make_repo

LAUNCHES = """\
#!/usr/bin/env bash
python3 -m labs.async_rl.main trainer.total_epochs=1
python3 labs/async_rl/main.py trainer.total_epochs=2
python3 -m labs.async_rl.legacy.main trainer.total_epochs=3
"""
MOVED = """\
#!/usr/bin/env bash
python3 -m mylib.async_rl.main trainer.total_epochs=1
python3 mylib/async_rl/main.py trainer.total_epochs=2
python3 -m labs.async_rl.legacy.main trainer.total_epochs=3
"""


def rules(*ids: str) -> list:  # type: ignore[type-arg]
    return [r for r in load_rules([RULE_DEFS], include_bundled=False, only=ids)]


def test_a_launch_moves_only_to_a_module_in_the_checkout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {
        "mylib/__init__.py": "",
        "mylib/async_rl/__init__.py": "",
        "mylib/async_rl/main.py": "print('trains')\n",  # mylib.async_rl_legacy was never added
        "scripts/run.sh": LAUNCHES,
    })
    report = scan(repo, rules("trainer-module-move"))
    by_line = {f.line: f for f in report.findings}
    assert [by_line[n].status for n in (2, 3)] == [Status.FIXABLE, Status.FIXABLE]
    assert by_line[4].status is Status.MANUAL
    assert "the target is not in this checkout (no mylib.async_rl_legacy.main in the repository)" in by_line[4].message
    assert summary(rules("trainer-module-move"), report, report.findings) == (
        "move labs.async_rl to mylib.async_rl in 1 launch script")
    assert write_changes(repo, report) == ["scripts/run.sh"]
    assert (repo / "scripts/run.sh").read_text() == MOVED


def test_without_the_target_nothing_moves_and_the_answer_depends_on_the_target_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"scripts/run.sh": LAUNCHES, "labs/async_rl/main.py": "print('old')\n"})
    report = scan(repo, rules("trainer-module-move"))
    assert {f.status for f in report.findings} == {Status.MANUAL}
    assert report.changes == []
    assert {"mylib/async_rl/main.py", "src/mylib/async_rl/main.py"} <= set(report.reads)


def test_list_elements_are_mapped_and_removed_in_a_scan(tmp_path: Path) -> None:
    script = ("python3 -m mylib.train trainer.logger=['console','legacy_tb','stdout'] trainer.run=1\n"
              "python3 -m mylib.train trainer.logger=stdout trainer.run=2\n")
    config = "trainer:\n  logger:\n    - stdout\n    - legacy_tb\n"
    repo = make_repo(tmp_path / "r", {"run.sh": script, "examples/config/trainer.yaml": config})
    both = rules("logger-item-map", "logger-item-drop")
    report = scan(repo, both)
    write_changes(repo, report)
    assert (repo / "run.sh").read_text() == (
        "python3 -m mylib.train trainer.logger=['console','tensorboard'] trainer.run=1\n"
        "python3 -m mylib.train trainer.logger=stdout trainer.run=2\n")
    assert (repo / "examples/config/trainer.yaml").read_text() == "trainer:\n  logger:\n    - tensorboard\n"
    manual = [f for f in report.findings if f.status is Status.MANUAL]
    assert [(f.path, f.line) for f in manual] == [("run.sh", 2)]
    assert "without a value" in manual[0].message
