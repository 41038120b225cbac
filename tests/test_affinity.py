"""compose-check's workers share the files out by the base their launches compose against (bot.compose.affinity):
each base is composed by one worker, the files of no base go to whichever worker is free, and the report does not
depend on which worker composed what."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from bot.compose.affinity import Guesses, guess_keys, share_out
from bot.discover import SourceFile
from bot.engine.forks import Forks
from tests.conftest import make_repo

TRAINER = "import hydra\n\n\n@hydra.main(config_path='conf', config_name='a', version_base=None)\n" \
          "def main(cfg):\n    print(cfg)\n"


def test_a_file_s_key_is_the_hydra_entry_it_names_most_with_its_config_name(tmp_path: Path) -> None:
    make_repo(tmp_path, {"app/train.py": TRAINER, "tools/plain.py": "print('no app')\n",
                         "runs/local.py": TRAINER, "runs/x.sh": ""})
    guesses = Guesses(str(tmp_path))
    script = (b"python -m pip install -e .\npython tools/plain.py\n"
              b"python3 -m app.train --config-name='b.yaml' \\\n  lr=1\n"
              b"python app/train.py --config-name=b steps=2\npython app/train.py steps=3\n")
    assert guesses.key("runs/x.sh", script) == ("app/train.py", "b")
    assert guesses.key("runs/x.sh", b"python app/train.py steps=3\n") == ("app/train.py", None)
    assert guesses.key("runs/x.sh", b"python ./local.py\n") == ("runs/local.py", None)  # from the file's place
    assert guesses.key("runs/x.sh", b"python tools/plain.py\npython ../outside.py\npip install x\n") is None


def test_an_entry_that_leads_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(TRAINER)
    root = make_repo(tmp_path / "repo", {"runs/x.sh": "python app/train.py\n"})
    (root / "app").mkdir()
    (root / "app" / "train.py").symlink_to(outside)
    assert Guesses(str(root)).key("runs/x.sh", b"python app/train.py steps=3\n") is None


def _files(root: Path, weights: dict[str, int]) -> list[SourceFile]:
    return [SourceFile(path, root, "shell", size) for path, size in weights.items()]


def test_the_files_of_one_key_go_to_one_worker_the_heaviest_first(tmp_path: Path) -> None:
    files = _files(tmp_path, {"a1.sh": 900, "b1.sh": 800, "a2.sh": 100, "c1.sh": 300, "b2.sh": 50, "none.sh": 1000})
    keys = {"a1.sh": ("x.py", "a"), "a2.sh": ("x.py", "a"), "b1.sh": ("y.py", None), "b2.sh": ("y.py", None),
            "c1.sh": ("z.py", None)}
    first, second = share_out(files, keys, 2)
    assert [s.path for s in first] == ["a1.sh", "a2.sh"]  # 1000, then the lighter
    assert [s.path for s in second] == ["b1.sh", "b2.sh", "c1.sh"]  # 850 + 300
    assert share_out(files, keys, 2) == [first, second]  # the same files and keys, the same lists


def test_an_entry_heavier_than_a_worker_s_share_is_split_by_config_name(tmp_path: Path) -> None:
    files = _files(tmp_path, {"a.sh": 500, "b.sh": 400, "c.sh": 300, "d.sh": 100})
    keys = {"a.sh": ("x.py", None), "b.sh": ("x.py", "big"), "c.sh": ("x.py", None), "d.sh": ("y.py", None)}
    first, second = share_out(files, keys, 2)  # x.py weighs 1200 of 1300: more than a share
    assert sorted(s.path for s in first) == ["a.sh", "c.sh"] and sorted(s.path for s in second) == ["b.sh", "d.sh"]
    one, = share_out(files, keys, 1)
    assert len(one) == 4


def _pid(state: Any, pause: float) -> int:
    time.sleep(pause)
    return os.getpid()


def test_a_task_for_one_worker_runs_there_unless_another_would_wait() -> None:
    with Forks(2) as pool:
        pids = [w.pid for w in pool.workers]
        numbers = {pool.submit(_pid, [0.0], worker=n % 2): n % 2 for n in range(8)}
        anyone = [pool.submit(_pid, [0.05]) for _ in range(6)]  # after them: no worker is left waiting meanwhile
        answered = dict(pool.answer() for _ in [*numbers, *anyone])
        assert all(answered[number] == [pids[worker]] for number, worker in numbers.items())
        only_first = [pool.submit(_pid, [0.0], worker=0) for _ in range(6)]  # the second would wait: takes the last
        answered = dict(pool.answer() for _ in only_first)
        assert answered[only_first[0]] == [pids[0]] and answered[only_first[-1]] == [pids[1]]


def test_each_base_is_composed_by_one_worker(tmp_path: Path) -> None:
    from bot.engine.batches import PARALLEL_FROM
    from bot.engine.scan import compose_scan

    files = {"app/train.py": TRAINER, "app/conf/a.yaml": "lr: 0.1\nsteps: 10\n",
             "app/conf/b.yaml": "lr: 0.2\nsteps: 20\nwarmup: 1\n"}
    for number in range(PARALLEL_FROM + 10):  # enough to fork; sorted by size, the two configs' files alternate
        name = "ab"[number % 2]
        files[f"runs/run_{number}.sh"] = (f"# {'=' * (number // 2)}\n"
                                           f"python app/train.py --config-name={name} lr=0.{number % 7} steps=1\n")
    files["runs/typo.sh"] = "python app/train.py --config-name=b stepz=3\n"
    repo = make_repo(tmp_path / "repo", files)
    keys = guess_keys([SourceFile(path, repo, "shell") for path in files if path.endswith(".sh")])
    assert set(keys.values()) == {("app/train.py", "a"), ("app/train.py", "b")}
    report, stats = compose_scan(repo, jobs=2)
    alone, alone_stats = compose_scan(repo, jobs=1)
    assert alone_stats.base_composes == 2
    # each worker composes its own base (and the one it takes files of, if it would wait while the other has work
    # left: a busy machine): 4 when the workers take the files as they come, as every chunk holds both
    assert stats.base_composes in (2, 3)
    assert (stats.launches, len(report.findings)) == (PARALLEL_FROM + 11, 1)
    assert [f.message for f in report.findings] == [f.message for f in alone.findings]
    assert stats.unresolved == alone_stats.unresolved


ADDING = """
id: add-flag
title: Add a flag
when: {sets: ["trainer.**"]}
ensure:
  - {key: trainer.flag, value: true, prefix: "+"}
"""
SETTING = """
id: set-steps
title: Set the steps
match: {key: ["trainer.steps"], value_not: [8]}
fix: {set: 8}
"""


def test_the_files_a_rule_adds_keys_to_go_to_the_worker_of_their_base(tmp_path: Path) -> None:
    import yaml

    from bot.engine.batches import Batches, Setup
    from bot.engine.context import scan_context
    from bot.engine.wanted import focus_for
    from bot.rules.loader import parse_rule

    files = {"app/train.py": TRAINER, "app/other.py": TRAINER.replace("'a'", "'b'"),
             "app/conf/a.yaml": "trainer: {steps: 1}\n", "app/conf/b.yaml": "trainer: {steps: 2}\n",
             "docs/notes.sh": "python app/train.py other.steps=1\n"}  # no token of the rule's: not placed
    for number in range(8):
        entry = ("app/train.py", "app/other.py")[number % 2]
        files[f"runs/run_{number}.sh"] = f"python {entry} trainer.steps={number}\n"
    root = make_repo(tmp_path / "repo", files)
    todo = [SourceFile(path, root, "shell", len(text)) for path, text in files.items() if path.endswith(".sh")]
    for text, placed in ((ADDING, True), (SETTING, False)):
        doc = yaml.safe_load(text)
        rule = parse_rule(doc, Path(f"{doc['id']}.yaml"))
        setup = Setup(scan_context(root, todo, (), [rule], focus_for([rule])), None, (), None)
        with Batches(setup, 2) as batches, Forks(2) as pool:
            places = batches.judged_places(pool, todo)
        if not placed:  # a rule that only changes what a launch sets: nothing read first
            assert places == {}
            continue
        assert "docs/notes.sh" not in places and len(places) == 8
        by_entry = {(files[path].split()[1], worker) for path, worker in places.items()}
        assert by_entry == {("app/train.py", 0), ("app/other.py", 1)} or by_entry == {("app/train.py", 1),
                                                                                     ("app/other.py", 0)}


def test_a_scan_that_runs_rules_and_composes_gives_each_file_the_worker_of_its_base(tmp_path: Path) -> None:
    """`watch` and `run --compose`: every file the rules read is composed in the task that reads it, so those tasks go
    to the worker of their base too, whatever the rules (one that only changes what a launch sets, here); the report
    is the one process's."""
    import yaml

    from bot.compose.checker import ComposeOptions
    from bot.engine.batches import PARALLEL_FROM, Batches, Setup
    from bot.engine.checker import Composing
    from bot.engine.context import scan_context
    from bot.engine.scan import scan_all
    from bot.engine.wanted import focus_for
    from bot.rules.loader import parse_rule

    files = {"app/train.py": TRAINER, "app/other.py": TRAINER.replace("'a'", "'b'"),
             "app/conf/a.yaml": "trainer: {steps: 1}\n", "app/conf/b.yaml": "trainer: {steps: 2, warmup: 1}\n",
             "docs/notes.sh": "echo nothing to launch\n"}
    for number in range(PARALLEL_FROM + 10):
        entry = ("app/train.py", "app/other.py")[number % 2]
        files[f"runs/run_{number}.sh"] = f"# {'=' * (number // 2)}\npython {entry} trainer.steps={number % 7}\n"
    files["runs/typo.sh"] = "python app/other.py trainer.stepz=3\n"
    root = make_repo(tmp_path / "repo", files)
    doc = yaml.safe_load(SETTING)
    rules = [parse_rule(doc, Path(f"{doc['id']}.yaml"))]
    todo = [SourceFile(path, root, "shell", len(text)) for path, text in files.items() if path.endswith(".sh")]
    context = scan_context(root, todo, (), rules, focus_for(rules))
    setup = Setup(context, None, (), None, compose=Composing(ComposeOptions(), None))
    with Batches(setup, 2) as batches, Forks(2) as pool:
        places = batches.judged_places(pool, todo)
    assert "docs/notes.sh" not in places and len(places) == len(todo) - 1  # a file of no base: any worker
    by_entry = {(files[path].split()[-2], worker) for path, worker in places.items() if path.startswith("runs/run_")}
    assert by_entry == {("app/train.py", 0), ("app/other.py", 1)} or by_entry == {("app/train.py", 1),
                                                                                 ("app/other.py", 0)}
    scanned = scan_all(root, rules, jobs=2, compose=ComposeOptions())
    alone = scan_all(root, rules, jobs=1, compose=ComposeOptions())
    assert [(f.path, f.message) for f in scanned.report.findings] == [(f.path, f.message)
                                                                     for f in alone.report.findings]
    assert any(f.rule == "hydra-compose" for f in alone.report.findings)
