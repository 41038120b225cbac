"""New config flags an upstream change put in front of code that ran before (bot.upstream.flag_guards): the
migration turns them on where launches leave them unset, so what ran still runs; a new flag in front of new code
is no migration."""

from __future__ import annotations

from pathlib import Path

from bot.upstream.config_migration import read_migration
from bot.upstream.flag_guards import guarded_blocks, guarded_flags
from bot.upstream.value_renames import Hunk
from tests.conftest import git, make_repo

OLD = ["        rows = self.rows", "        rows = [r for r in rows if len(r) <= self.limit]",
       "        self.rows = rows"]
GUARDED = ["        if self.drop_long:", *("    " + line for line in OLD)]


def test_old_code_moved_under_a_new_flag_off_by_default_is_turned_on() -> None:
    hunk = Hunk("pkg/data.py", list(OLD), list(GUARDED))
    assert guarded_blocks(hunk) == [("drop_long", False)]
    (flag,) = guarded_flags([hunk], {"data.drop_long": False, "data.other": 3})
    assert (flag.key, flag.keep) == ("data.drop_long", True)
    assert guarded_flags([hunk], {"data.drop_long": True}) == []  # on by default: launches run it still


def test_a_negated_guard_keeps_the_flag_off() -> None:
    hunk = Hunk("pkg/data.py", list(OLD), ["        if not self.keep_long:", *("    " + line for line in OLD)])
    (flag,) = guarded_flags([hunk], {"data.keep_long": True})
    assert (flag.key, flag.keep) == ("data.keep_long", False)


def test_a_new_flag_in_front_of_new_code_is_no_migration() -> None:
    hunk = Hunk("pkg/data.py", ["        pass"],
                ["        if self.drop_long:", "            rows = self.rows", "            self.rows = rows[:10]"])
    assert guarded_blocks(hunk) == []
    assert guarded_flags([hunk], {"data.drop_long": False}) == []


PROFILE_APP = '''\
import hydra


class Profiler:
    def __init__(self, cfg):
        self.cfg = cfg

    def stop(self):
{stop}


@hydra.main(config_path="config", config_name="run", version_base=None)
def main(cfg):
    Profiler(cfg.trainer.profiler).stop()
'''
STOP_BEFORE = "        self.flush()\n        self.save()\n"
STOP_AFTER = "        if self.cfg.enable:\n            self.flush()\n            self.save()\n"


def test_a_section_switch_the_change_turns_on_only_beside_the_section_is_set_only_there(tmp_path: Path) -> None:
    from bot.cli import main

    config = "trainer:\n  epochs: 1\n  profiler:\n    ranks: []\n"
    repo = make_repo(tmp_path / "repo", {
        "trainer/__init__.py": "", "trainer/main.py": PROFILE_APP.format(stop=STOP_BEFORE),
        "trainer/config/run.yaml": config,
        "prof.sh": "python3 -m trainer.main \\\n    trainer.profiler.ranks=[0]\n",
        "run_profiled.sh": "python3 -m trainer.main \\\n    trainer.profiler.ranks=[0,1]\n",
        "run_plain.sh": "python3 -m trainer.main \\\n    trainer.epochs=3\n"})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "trainer/main.py").write_text(PROFILE_APP.format(stop=STOP_AFTER))
    (repo / "trainer/config/run.yaml").write_text(config + "    enable: false\n")
    (repo / "prof.sh").write_text("python3 -m trainer.main \\\n    trainer.profiler.enable=True \\\n"
                                  "    trainer.profiler.ranks=[0]\n")
    git(repo, "commit", "-qam", "profiler: an on switch")
    after = git(repo, "rev-parse", "HEAD").strip()
    found = read_migration(repo, repo, before, after, ["trainer/main.py", "trainer/config/run.yaml", "prof.sh"])
    assert found.rule is not None
    (step,) = found.rule["migration"]["steps"]
    assert step["ensure"] == [{"key": "trainer.profiler.enable", "value": True}]
    assert step["when"]["sets"] == ["trainer.profiler.**"]
    out = tmp_path / "report.diff"
    main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
          "--format", "diff", "--output", str(out)])
    diff = out.read_text()
    assert "run_profiled.sh" in diff and "+    trainer.profiler.enable=True" in diff
    assert "run_plain.sh" not in diff


def test_a_key_removed_beside_a_new_switch_of_the_same_default_is_not_moved_onto_it(tmp_path: Path) -> None:
    config = "trainer:\n  profiler:\n    discrete: false\n    ranks: []\n"
    repo = make_repo(tmp_path / "repo", {
        "trainer/__init__.py": "", "trainer/main.py": PROFILE_APP.format(stop=STOP_BEFORE),
        "trainer/config/run.yaml": config, "prof.sh": "python3 -m trainer.main trainer.profiler.ranks=[0]\n"})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "trainer/main.py").write_text(PROFILE_APP.format(stop=STOP_AFTER))
    (repo / "trainer/config/run.yaml").write_text(config.replace("discrete: false", "enable: false"))
    git(repo, "commit", "-qam", "profiler: an on switch; discrete goes")
    after = git(repo, "rev-parse", "HEAD").strip()
    found = read_migration(repo, repo, before, after, ["trainer/main.py", "trainer/config/run.yaml"])
    moved = [(s.change.old, s.change.new) for s in found.steps if s.change.new == "trainer.profiler.enable"]
    assert moved == []
    assert any(s.change.old == "trainer.profiler.enable" for s in found.steps)  # the switch itself stays
