"""Two scans in one process never read each other's facts (issue 40, step 1): each holds its own
ScanContext (console scripts, package roots, Hydra apps, the composer), the workers hold theirs, and the
composer leaves Hydra's process state as it found it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.engine.scan import scan
from bot.model import Report
from bot.rules.loader import load_rules
from tests.conftest import make_repo

APP = """\
import hydra


@hydra.main(version_base=None, config_path="conf", config_name="train")
def train(cfg):
    print(cfg)
"""
TOOL = APP.replace('config_name="train"', 'config_name="run"')
LAUNCHES = {  # the same text in both repositories
    "scripts/console.sh": "#!/usr/bin/env bash\ntrainlab trainer.epochs=3 trainer.seed=1\n",
    "scripts/module.sh": "#!/usr/bin/env bash\npython3 -m trainlab.cli trainer.epochs=3\n",
    "scripts/tool.sh": "#!/usr/bin/env bash\npython3 -m tool.run trainer.epochs=3\n",
    "README.md": "# Training\n\n```\ntrainlab trainer.epochs=3\n```\n\nRun the tool:\n\n```\n"
                 "python3 -m tool.run trainer.epochs=3\n```\n",
    "docs/more.md": "More:\n\n```\ntrainlab trainer.epochs=3 trainer.seed=2\n```\n",
}
# `lab` declares the console script `trainlab` and has a package of its own in a directory with its packaging;
# `other` declares neither, and its config has no trainer.max_epochs
LAB = {
    "pyproject.toml": '[project]\nname = "trainlab"\n\n[project.scripts]\ntrainlab = "trainlab.cli:train"\n',
    "trainlab/__init__.py": "",
    "trainlab/cli.py": APP,
    "trainlab/conf/train.yaml": "trainer:\n  epochs: 1\n  max_epochs: 1\n  seed: 0\n",
    "pkgs/tool/pyproject.toml": '[project]\nname = "tool"\n',
    "pkgs/tool/tool/__init__.py": "",
    "pkgs/tool/tool/run.py": TOOL,
    "pkgs/tool/tool/conf/run.yaml": "trainer:\n  epochs: 1\n",
    **LAUNCHES,
}
OTHER = {
    "trainlab/__init__.py": "",
    "trainlab/cli.py": APP,
    "trainlab/conf/train.yaml": "trainer:\n  epochs: 1\n  seed: 0\n",
    **LAUNCHES,
}
RENAME = """\
id: epochs-renamed
title: trainer.epochs is trainer.max_epochs now
severity: error
files: ["scripts/*.sh", "*.md", "docs/*.md"]
match:
  key: ["trainer.epochs"]
fix:
  rename: trainer.max_epochs
"""
SEED = """\
id: seed-fixed
title: trainer.seed must be 0
severity: warning
match:
  key: ["trainer.seed"]
  value: [1, 2]
fix:
  set: 0
"""


def _rules(tmp_path: Path) -> list[Any]:
    directory = tmp_path / "rules"
    directory.mkdir()
    for text in (RENAME, SEED):
        (directory / f"{text.split(chr(10))[0].removeprefix('id: ')}.yaml").write_text(text)
    return load_rules([directory], include_bundled=False)


def _said(report: Report) -> dict[str, Any]:
    """What a report says, in terms that do not depend on where or when it was made."""
    return {
        "findings": sorted((f.path, f.line, f.column, f.rule, f.key, str(f.value), f.status.value,
                            f.reason.value if f.reason is not None else None, f.message) for f in report.findings),
        "changes": sorted((c.path, c.after) for c in report.changes),
        "errors": sorted((e.path, e.reason) for e in report.errors),
        "launches": report.launches,
        "skipped": sorted((s.path, s.reason) for s in report.skipped),
    }


class _Turns:
    """Threads that run one at a time, each handing the turn to the next whenever it says so."""

    def __init__(self, count: int) -> None:
        self.turn = 0
        self.count = count
        self.done: set[int] = set()
        self.order: list[int] = []  # who handed the turn on, in order
        self.changed = threading.Condition()

    def wait(self, me: int) -> None:
        with self.changed:
            self.changed.wait_for(lambda: self.turn == me, timeout=120)
            assert self.turn == me, "the other scan never handed the turn back"

    def hand_on(self, me: int) -> None:
        with self.changed:
            self.order.append(me)
            self.turn = self._next(me)
            self.changed.notify_all()
        self.wait(me)

    def finish(self, me: int) -> None:
        with self.changed:
            self.done.add(me)
            if len(self.done) < self.count:
                self.turn = self._next(me)
            self.changed.notify_all()

    def _next(self, me: int) -> int:
        for step in range(1, self.count + 1):
            other = (me + step) % self.count
            if other not in self.done:
                return other
        return me


def _alternating(runs: list[Callable[[Callable[[int, int], None]], Report]]) -> tuple[list[Report], list[int]]:
    """Each run (a scan given a progress callback) in a thread of its own, one at a time: a scan hands the turn
    to the next each time it answers a file, so the scans step through their files in alternation."""
    turns = _Turns(len(runs))
    reports: list[Report | None] = [None] * len(runs)
    failures: list[BaseException] = []

    def work(me: int) -> None:
        turns.wait(me)
        try:
            reports[me] = runs[me](lambda done, total: turns.hand_on(me))
        except BaseException as exc:  # told to the test below
            failures.append(exc)
        finally:
            turns.finish(me)

    threads = [threading.Thread(target=work, args=(me,)) for me in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not failures, failures
    assert all(r is not None for r in reports)
    return [r for r in reports if r is not None], turns.order


def test_two_scans_in_alternation_give_what_each_gives_alone(tmp_path: Path) -> None:
    lab = make_repo(tmp_path / "lab", LAB)
    other = make_repo(tmp_path / "other", OTHER)
    rules = _rules(tmp_path)
    alone = [_said(scan(root, rules)) for root in (lab, other)]
    # the repositories are read differently: a console script, a package beside its packaging, a config
    assert alone[0] != alone[1]
    lab_findings = {(f[0], f[3], f[6], f[7]) for f in alone[0]["findings"]}
    assert ("scripts/console.sh", "epochs-renamed", "fixable", None) in lab_findings  # `trainlab` is a launch
    assert ("docs/more.md", "seed-fixed", "fixable", None) in lab_findings  # and a doc's bare block of it is shell
    assert ("scripts/tool.sh", "epochs-renamed", "manual", "uncomposed") in lab_findings  # run.yaml: no max_epochs
    other_findings = {(f[0], f[3], f[6], f[7]) for f in alone[1]["findings"]}
    assert not any(path == "scripts/console.sh" for path, *_ in other_findings)  # `trainlab` is no command here
    assert ("scripts/module.sh", "epochs-renamed", "manual", "uncomposed") in other_findings

    reports, order = _alternating([lambda progress, root=root: scan(root, rules, progress=progress)  # type: ignore[misc]
                                   for root in (lab, other)])
    assert order[:4] == [0, 1, 0, 1]  # they did take turns, file by file
    assert [_said(r) for r in reports] == alone


def test_two_compose_checks_in_alternation_give_what_each_gives_alone(tmp_path: Path) -> None:
    from bot.engine.scan import compose_scan

    lab = make_repo(tmp_path / "lab", LAB)
    other = make_repo(tmp_path / "other", {**OTHER, "scripts/module.sh": "python3 -m trainlab.cli trainer.nope=3\n"})
    alone = [_said(compose_scan(root)[0]) for root in (lab, other)]
    assert alone[0] != alone[1]
    reports, order = _alternating([lambda progress, root=root: compose_scan(root, progress=progress)[0]  # type: ignore[misc]
                                   for root in (lab, other)])
    assert order[:4] == [0, 1, 0, 1]
    assert [_said(r) for r in reports] == alone


def test_the_composer_leaves_hydras_process_state_as_it_found_it(tmp_path: Path) -> None:
    """A program that has Hydra initialised (its own app) and runs a scan still has its own Hydra after."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    own = tmp_path / "own"
    own.mkdir()
    (own / "app.yaml").write_text("mine: 1\n")
    lab = make_repo(tmp_path / "lab", LAB)
    with initialize_config_dir(config_dir=str(own), version_base="1.3"):
        hydra_before = GlobalHydra.instance().hydra
        report = scan(lab, _rules(tmp_path))
        assert any(f.reason is not None and f.reason.value == "uncomposed" for f in report.findings)  # it composed
        assert GlobalHydra.instance().hydra is hydra_before
        assert compose("app").mine == 1


def _hold(state: object, item: int) -> tuple[object, int]:
    return state, item


def _add(state: tuple[str, ...], word: str) -> tuple[str, ...]:
    return (*state, word)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="this platform cannot fork")
def test_a_worker_holds_the_state_it_was_forked_with_and_each_change_broadcast() -> None:
    from bot.engine.forks import Forks

    with Forks(2, ("forked",)) as forks:
        assert {s for s, _ in forks.map(_hold, list(range(8)))} == {("forked",)}
        forks.broadcast(_add, "changed")
        assert {s for s, _ in forks.map(_hold, list(range(8)))} == {("forked", "changed")}
