"""Config values a change renamed, read from its Python and YAML lines (bot.upstream.value_renames), and the
migration step they make (bot.upstream.config_migration): verified by the code that reads the key, of high
confidence when the YAML or a deprecation message agrees."""

from __future__ import annotations

from pathlib import Path

from bot.upstream.config_migration import read_migration
from bot.upstream.value_renames import Hunk, swapped, value_renames
from tests.conftest import git, make_repo


def test_two_lines_that_differ_in_one_word_swap_it() -> None:
    assert swapped('    elif mode == "clip":', '    elif mode == "mask":') == ("clip", "mask")
    assert swapped("steps = 10", "steps = 20") is None  # numbers are tuning, not names
    assert swapped('if a == "x" and b == "y":', 'if a == "z" and b == "w":') is None


def test_a_comparison_renamed_in_code_and_in_the_comment_of_its_key_is_a_rename() -> None:
    python = [Hunk("pkg/algo.py", ['    elif cfg.algo.mode == "clip":'], ['    elif cfg.algo.mode == "mask":'])]
    yaml_after = "algo:\n  # mode: truncate or mask\n  mode: truncate\n"
    yaml = [Hunk("conf/run.yaml", ["  # mode: truncate or clip"], ["  # mode: truncate or mask"], yaml_after)]
    (found,) = value_renames(python, yaml, {"algo.mode": "truncate"}, {"algo.mode": "truncate"})
    assert (found.key, found.old, found.new, found.verified) == ("algo.mode", "clip", "mask", True)
    assert found.sources == ["the change's YAML says so beside the key"]
    (alone,) = value_renames(python, [], {"algo.mode": "truncate"}, {"algo.mode": "truncate"})
    assert alone.sources == []  # the code alone: verified, no second source


def test_a_deprecated_list_element_renamed_with_its_default() -> None:
    python = [Hunk("pkg/track.py", ["    supported = ['tracking', 'console']"],
                   ["    supported = ['wandb', 'console']"]),
              Hunk("pkg/track.py", ["        pass"],
                   ["        if backend == 'tracking':", "            warn('`tracking` is deprecated, use `wandb`')"])]
    yaml = [Hunk("conf/run.yaml", ["  logger: ['console', 'tracking']"], ["  logger: ['console', 'wandb']"],
                 "trainer:\n  logger: ['console', 'wandb']\n")]
    (found,) = value_renames(python, yaml, {"trainer.logger": ["console", "tracking"]},
                             {"trainer.logger": ["console", "wandb"]})
    assert (found.key, found.in_list) == ("trainer.logger", True)
    assert len(found.sources) == 3  # the deprecation, the YAML beside the key, its default


def test_a_value_renamed_by_the_change_migrates_the_launches_that_use_it(tmp_path: Path) -> None:
    from bot.cli import main

    app = ('import hydra\n\n\n@hydra.main(config_path="config", config_name="run", version_base=None)\n'
           'def main(cfg):\n    if cfg.algo.mode == "clip":\n        print("clip")\n\n\n'
           'if __name__ == "__main__":\n    main()\n')
    config = "algo:\n  # mode: truncate or clip\n  mode: truncate\n"
    repo = make_repo(tmp_path / "repo", {"trainer/__init__.py": "", "trainer/main.py": app,
                                         "trainer/config/run.yaml": config,
                                         "run.sh": "python3 -m trainer.main algo.mode=clip\n"})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "trainer/main.py").write_text(app.replace('"clip"', '"mask"'))
    (repo / "trainer/config/run.yaml").write_text(config.replace("or clip", "or mask"))
    git(repo, "commit", "-qam", "clip is called mask")
    after = git(repo, "rev-parse", "HEAD").strip()
    found = read_migration(repo, repo, before, after, ["trainer/main.py", "trainer/config/run.yaml"])
    assert found.rule is not None and found.rule["migration"] == {"values": {"algo.mode": {"clip": "mask"}}}
    out = tmp_path / "report.diff"
    main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
          "--format", "diff", "--output", str(out)])
    assert "-python3 -m trainer.main algo.mode=clip\n+python3 -m trainer.main algo.mode=mask\n" in out.read_text()
