"""The tree before a change, exported once for a scan on several processes (bot.engine.before, bot.engine.ahead):
begun in a forked process before the workers are forked, read by every worker that asks, removed by the process
that began it; a tree that could not be made ahead is made by whoever asks, with the same answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.engine.ahead import Ahead
from bot.engine.before import FailingBefore
from bot.engine.changed import differences
from bot.engine.forks import Forks, can_fork
from tests.conftest import git, make_repo

pytestmark = pytest.mark.skipif(not can_fork(), reason="this platform cannot fork")

ENTRY = """\
import hydra


@hydra.main(config_path="conf", config_name="run", version_base=None)
def main(cfg):
    print(cfg)


if __name__ == "__main__":
    main()
"""
FILES = {
    "pkg/train.py": ENTRY,
    "pkg/conf/run.yaml": "trainer:\n  epochs: 3\n  steps: 10\n",
    "scripts/a.sh": "python3 -m pkg.train trainer.steps=20\n",
    "scripts/b.sh": "python3 -m pkg.train trainer.never=1\n",
    "scripts/c.sh": "python3 -m pkg.train trainer.epochs=4\n",
}
SCRIPTS = ["scripts/a.sh", "scripts/b.sh", "scripts/c.sh"]


def _known(tmp_path: Path) -> FailingBefore:
    """The failures before a change that removes `trainer.steps` from the config."""
    repo = make_repo(tmp_path / "repo", dict(FILES))
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/conf/run.yaml").write_text("trainer:\n  epochs: 3\n")
    git(repo, "commit", "-qam", "the change")
    return FailingBefore(repo.resolve(), before, None, differences(repo, before))


def _ask(known: FailingBefore, path: str) -> tuple[list[bool], str | None, int]:
    """What a worker answers for a script's overrides, the tree it read them in, and its process."""
    keys = [(path, "trainer.steps", "20"), (path, "trainer.never", "1"), (path, "trainer.epochs", "4")]
    answers = [key in known for key in keys]
    return answers, str(known.tree) if known.tree is not None else None, os.getpid()


def _asked_by_workers(known: FailingBefore) -> list[tuple[list[bool], str | None, int]]:
    with Forks(2, known) as forks:
        return list(forks.map(_ask, SCRIPTS))


EXPECTED = [[False, False, False], [False, True, False], [False, False, False]]  # b.sh failed before the change


def test_the_tree_before_the_change_is_exported_once_for_every_worker(tmp_path: Path) -> None:
    known = _known(tmp_path)
    known.begin()
    try:
        asked = _asked_by_workers(known)
        assert [answers for answers, _, _ in asked] == EXPECTED
        assert len({pid for _, _, pid in asked}) == 2  # both workers asked
        trees = {tree for _, tree, _ in asked}
        assert len(trees) == 1  # one tree, the one begun, read by both
        (tree,) = trees
        assert tree is not None and Path(tree).is_dir()  # still there for the scan's later files
        assert (Path(tree) / "pkg/conf/run.yaml").read_text() == FILES["pkg/conf/run.yaml"]  # as it was
    finally:
        known.close()
    assert not Path(tree).exists()  # removed by the process that began it


def test_without_the_tree_begun_each_worker_exports_its_own_and_answers_the_same(tmp_path: Path) -> None:
    known = _known(tmp_path)
    try:
        asked = _asked_by_workers(known)
    finally:
        known.close()
    assert [answers for answers, _, _ in asked] == EXPECTED
    assert {tree for _, tree, _ in asked} == {None}  # each worker's own, removed once read


def test_the_process_that_begins_the_tree_reads_it_too(tmp_path: Path) -> None:
    known = _known(tmp_path)
    known.begin()
    try:
        assert _ask(known, "scripts/b.sh")[0] == EXPECTED[1]
        assert known.exported and known.tree is not None
    finally:
        known.close()
    assert not known.exported


def _fail(path: Path) -> None:
    path.mkdir()
    raise OSError("the disk is full")


def _made(state: Ahead, _: int) -> str | None:
    made = state.wait()
    return str(made) if made is not None else None


def test_a_directory_that_could_not_be_made_ahead_is_none_for_every_process(tmp_path: Path) -> None:
    ahead = Ahead(_fail, "bot-ahead-")
    try:
        assert ahead.wait() is None
        with Forks(2, ahead) as forks:
            assert list(forks.map(_made, [1, 2])) == [None, None]
    finally:
        ahead.close()
    assert not ahead.path.parent.exists()


def test_a_directory_made_ahead_is_waited_for_by_the_workers_forked_after(tmp_path: Path) -> None:
    def make(path: Path) -> None:
        path.mkdir()
        (path / "file").write_text("made\n")

    ahead = Ahead(make, "bot-ahead-")
    try:
        with Forks(2, ahead) as forks:
            assert list(forks.map(_made, [1, 2])) == [str(ahead.path)] * 2
        assert ahead.wait() == ahead.path and (ahead.path / "file").read_text() == "made\n"
    finally:
        ahead.close()
    assert not ahead.path.parent.exists()


def test_closing_a_directory_still_being_made_stops_its_process(tmp_path: Path) -> None:
    def slow(path: Path) -> None:
        path.mkdir()
        os.read(os.pipe()[0], 1)  # waits for ever

    ahead = Ahead(slow, "bot-ahead-")
    ahead.close()
    assert not ahead.path.parent.exists()


def test_a_dry_run_prepares_compose_check_before_the_rules_are_chosen_when_the_change_edits_config_yaml(
        tmp_path: Path) -> None:
    from bot.publish.run import PublishOptions
    from bot.upstream.change import read_change
    from bot.upstream.watching import close_compose, prepared_compose

    known = _known(tmp_path)
    repo = known.root
    change = read_change(repo, known.since, "HEAD")
    prepared = prepared_compose(repo, change, PublishOptions())
    try:
        assert prepared is not None and isinstance(prepared.known, FailingBefore)
        assert prepared.known.begun and prepared.known.since == known.since  # exported while the rules are chosen
    finally:
        close_compose(prepared)
    every = prepared_compose(repo, change, PublishOptions(compose_all=True))
    assert every is not None and every.known is None  # --compose-all: every launch that fails, nothing before
    (repo / "scripts/a.sh").write_text("python3 -m pkg.train trainer.epochs=6\n")
    git(repo, "commit", "-qam", "a script alone")
    assert prepared_compose(repo, read_change(repo, "HEAD~1", "HEAD"), PublishOptions()) is None
