"""`watch` over a config change composes only the launches the change reaches (issue 41): the others compose the
same before and after it. A launch whose config file, entry file or group listing the change touched is still
composed on both sides and reported; one it does not reach is composed on neither."""

from __future__ import annotations

import json
from pathlib import Path

from bot.engine.changed import changed_since
from tests.conftest import git, make_repo

ENTRY = """\
import hydra


@hydra.main(config_path="conf", config_name="{name}", version_base=None)
def main(cfg):
    print(cfg)


if __name__ == "__main__":
    main()
"""
APP = {
    "pkg/train.py": ENTRY.format(name="run"),
    "pkg/conf/run.yaml": "defaults:\n  - engine: alpha\n  - _self_\ntrainer:\n  epochs: 3\n",
    "pkg/conf/wide.yaml": "defaults:\n  - engine: beta\n  - _self_\ntrainer:\n  epochs: 3\n",
    "pkg/conf/lean.yaml": "defaults:\n  - engine: beta\n  - _self_\ntrainer:\n  seed: 1\n",
    "pkg/conf/engine/alpha.yaml": "kind: alpha\nsteps: 10\n",
    "pkg/conf/engine/beta.yaml": "kind: beta\nwidth: 4\n",
    "scripts/alpha.sh": "python3 -m pkg.train engine.steps=20\n",
    "scripts/beta.sh": "python3 -m pkg.train --config-name wide engine.width=8\n",
    "scripts/epochs.sh": "python3 -m pkg.train --config-name wide trainer.epochs=5\n",
}

WIDE = {"pkg/conf/wide.yaml": APP["pkg/conf/wide.yaml"] + "# wide: engine beta\n"}  # a YAML edit alpha.sh never reads


def _change(tmp_path: Path, files: dict[str, str | None]) -> tuple[Path, str]:
    """The app's repository, then one commit writing (or, for None, removing) `files`: (repository, before)."""
    repo = make_repo(tmp_path / "repo", dict(APP))
    before = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in files.items():
        if text is None:
            (repo / rel).unlink()
        else:
            (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the change")
    return repo, before


def _watched(tmp_path: Path, repo: Path, before: str) -> list[tuple[str, int]]:
    """The compose findings `bot watch` reports for the repository's last commit: (path, line)."""
    from bot.cli import main

    out = tmp_path / "report.json"
    assert main(["watch", "--repo", str(repo), "--before", before, "--format", "json", "--output", str(out)]) == 0
    found = json.loads(out.read_text())["findings"]
    return sorted((f["path"], f["line"]) for f in found if f["rule"] == "hydra-compose")


def _composed(repo: Path, before: str) -> int:
    """How many launches the after side of watch's compose check composes (the change narrowed to what it reaches)."""
    from bot.compose.checker import ComposeOptions
    from bot.engine.scan import scan_all

    changed = changed_since(repo, before)
    assert changed is not None
    scanned = scan_all(repo, [], compose=ComposeOptions(changed=changed), alone=True)
    assert scanned.stats is not None
    return scanned.stats.launches


def test_a_change_to_one_yaml_file_of_the_config_dir_is_reported_and_composes_only_the_launches_it_reaches(
        tmp_path: Path) -> None:
    repo, before = _change(tmp_path, {"pkg/conf/engine/alpha.yaml": "kind: alpha\n"})
    assert _watched(tmp_path, repo, before) == [("scripts/alpha.sh", 1)]
    assert _composed(repo, before) == 1  # the launches of config wide (engine beta) read nothing it touched


def test_a_change_to_the_entry_file_alone_is_reported(tmp_path: Path) -> None:
    """The entry file now names a config whose engine has no steps: the launch setting them breaks. The change
    edits config YAML too (so watch composes), but none that launch reads."""
    repo, before = _change(tmp_path, {"pkg/train.py": ENTRY.format(name="lean"), **WIDE})
    assert _watched(tmp_path, repo, before) == [("scripts/alpha.sh", 1)]
    assert _composed(repo, before) == 3  # every launch runs that entry file


def test_a_group_option_removed_is_reported_where_a_launch_chooses_it(tmp_path: Path) -> None:
    repo, before = _change(tmp_path, {"pkg/conf/engine/beta.yaml": None})
    assert _watched(tmp_path, repo, before) == [("scripts/beta.sh", 1), ("scripts/epochs.sh", 1)]
    assert _composed(repo, before) == 3  # the engine group's listing changed: every launch naming it


def test_a_script_edited_alone_composes_that_script(tmp_path: Path) -> None:
    repo, before = _change(tmp_path, {"scripts/alpha.sh": "python3 -m pkg.train engine.steps=20 engine.depth=2\n",
                                      **WIDE})
    assert _watched(tmp_path, repo, before) == [("scripts/alpha.sh", 1)]
    assert _composed(repo, before) == 3  # the script, and the two launches of config wide


def test_what_finding_every_app_reads_composes_every_launch(tmp_path: Path) -> None:
    """Packaging metadata (console scripts), a Python file added, a ConfigStore registration: not narrowed."""
    repo, before = _change(tmp_path, {"pkg/conf/engine/alpha.yaml": "kind: alpha\n"})
    assert changed_since(repo, before) is not None
    for rel, text in (("pyproject.toml", "[project]\nname = 'pkg'\n"), ("pkg/extra.py", "X = 1\n")):
        (repo / rel).write_text(text)
        assert changed_since(repo, before) is None, rel
        (repo / rel).unlink()
    (repo / "pkg/train.py").write_text(ENTRY.format(name="run") + "from hydra.core.config_store import ConfigStore\n")
    assert changed_since(repo, before) is None


def test_files_git_does_not_track_count_as_changed(tmp_path: Path) -> None:
    repo, before = _change(tmp_path, {"scripts/alpha.sh": "python3 -m pkg.train engine.steps=30\n"})
    (repo / "pkg/conf/engine/gamma.yaml").write_text("kind: gamma\n")
    (repo / ".gitignore").write_text("ignored/\n")
    (repo / "ignored").mkdir()
    (repo / "ignored/local.yaml").write_text("a: 1\n")
    changed = changed_since(repo, before)
    assert changed is not None
    assert {"pkg/conf/engine/gamma.yaml", "ignored/local.yaml", "scripts/alpha.sh"} <= changed.paths
    assert "pkg/conf/engine/gamma.yaml" in changed.listed and "scripts/alpha.sh" not in changed.listed


def _before_needed(repo: Path, before: str) -> bool:
    """Whether watch's check of the repository's last commit exported the tree before it (a file failed now)."""
    from bot.engine.before import FailingBefore
    from bot.engine.drift import drift_options
    from bot.engine.scan import scan

    options = drift_options(repo, before)
    assert isinstance(options.known, FailingBefore)
    try:
        scan(repo, [], compose=options)
        return options.known.exported
    finally:
        options.known.close()


def test_the_tree_before_the_change_is_read_only_when_a_launch_fails_now(tmp_path: Path) -> None:
    repo, before = _change(tmp_path, WIDE)
    assert _watched(tmp_path, repo, before) == []
    assert not _before_needed(repo, before)  # nothing fails now: nothing to compare with
    repo, before = _change(tmp_path / "broken", {"pkg/conf/engine/alpha.yaml": "kind: alpha\n"})
    assert _before_needed(repo, before)


def test_a_script_added_with_the_change_meets_the_old_config_too(tmp_path: Path) -> None:
    """A script the change adds: what fails with the old config as well is older than the change."""
    repo, before = _change(tmp_path, {
        "pkg/conf/engine/alpha.yaml": "kind: alpha\n",
        "scripts/added.sh": "python3 -m pkg.train engine.steps=5\npython3 -m pkg.train trainer.never=1\n"})
    assert _watched(tmp_path, repo, before) == [("scripts/added.sh", 1), ("scripts/alpha.sh", 1)]


def test_a_config_linked_from_elsewhere_in_the_tree_is_reached_through_its_link(tmp_path: Path) -> None:
    """engine/alpha.yaml is a link to a shared file: a change to the shared file reaches the launches using it."""
    repo = make_repo(tmp_path / "repo", {**APP, "shared/alpha.yaml": "kind: alpha\nsteps: 10\n"}, commit=False)
    (repo / "pkg/conf/engine/alpha.yaml").unlink()
    (repo / "pkg/conf/engine/alpha.yaml").symlink_to("../../../shared/alpha.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "initial")
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "shared/alpha.yaml").write_text("kind: alpha\n")
    git(repo, "commit", "-qam", "the change")
    assert _watched(tmp_path, repo, before) == [("scripts/alpha.sh", 1)]
    assert _composed(repo, before) == 1


def test_a_config_store_registration_removed_by_the_change_composes_every_launch(tmp_path: Path) -> None:
    """The entry file registered configs in Hydra's ConfigStore before the change and no longer does: what
    finding the apps reads changed, so nothing is narrowed (the file before the change is read from git)."""
    registered = ENTRY.format(name="run") + "from hydra.core.config_store import ConfigStore\n"
    repo = make_repo(tmp_path / "repo", {**APP, "pkg/train.py": registered})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/train.py").write_text(ENTRY.format(name="run") + "# no store\n")
    assert changed_since(repo, before) is None
    (repo / "pkg/train.py").write_text(registered + "# still a store\n")
    assert changed_since(repo, before) is None
    (repo / "pkg/train.py").write_text(registered)
    assert changed_since(repo, before) is not None  # nothing differs
