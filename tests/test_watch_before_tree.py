"""The tree before a change, for watch's check of what a config change broke (bot.engine.before): the files the
change left as they were are linked from the working tree, not written again, and the tree is the one git's
archive of the commit gives (the changed files as they were, a link out of the tree left out)."""

from __future__ import annotations

import os
from pathlib import Path

from bot.engine.before import export, export_before
from bot.engine.changed import differences
from tests.conftest import git, make_repo

FILES = {
    "pkg/conf/run.yaml": "trainer:\n  epochs: 3\n",
    "pkg/conf/engine/alpha.yaml": "kind: alpha\nsteps: 10\n",
    "pkg/train.py": "print('train')\n",
    "scripts/run.sh": "python3 -m pkg.train trainer.epochs=5\n",
    "README.md": "# a repository\n",
}


def _changed(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "repo", dict(FILES))
    (repo / "pkg" / "conf" / "latest.yaml").symlink_to("run.yaml")
    (repo / "outside").symlink_to("/etc/hostname")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "links")
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg/conf/engine/alpha.yaml").write_text("kind: alpha\n")
    (repo / "README.md").unlink()
    (repo / "scripts/new.sh").write_text("python3 -m pkg.train\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the change")
    return repo, before


def _tree(root: Path) -> dict[str, bytes | str]:
    """Each file's bytes, each link's target."""
    found: dict[str, bytes | str] = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory, name)
            rel = path.relative_to(root).as_posix()
            found[rel] = os.readlink(path) if path.is_symlink() else path.read_bytes()
    return found


def test_the_tree_before_the_change_links_the_unchanged_files_and_equals_the_archive(tmp_path: Path) -> None:
    repo, before = _changed(tmp_path)
    differ = differences(repo, before)
    assert differ is not None
    linked, archived = tmp_path / "linked", tmp_path / "archived"
    export_before(repo, before, linked, differ)
    export_before(repo, before, archived)
    assert _tree(linked) == _tree(archived)
    assert (linked / "pkg/conf/engine/alpha.yaml").read_text() == "kind: alpha\nsteps: 10\n"  # as it was
    assert (linked / "README.md").exists() and (linked / "scripts/new.sh").exists()  # removed since; added since
    assert os.readlink(linked / "pkg/conf/latest.yaml") == "run.yaml"
    assert not (linked / "outside").is_symlink()  # a link out of the tree is left out, as the archive leaves it
    assert os.path.samefile(linked / "pkg/conf/run.yaml", repo / "pkg/conf/run.yaml")  # linked, not written
    assert not os.path.samefile(linked / "pkg/conf/engine/alpha.yaml", repo / "pkg/conf/engine/alpha.yaml")


def test_a_repository_with_git_attributes_is_exported_by_git(tmp_path: Path) -> None:
    repo, _ = _changed(tmp_path)
    (repo / ".gitattributes").write_text("pkg/train.py export-ignore\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "attributes")
    before = git(repo, "rev-parse", "HEAD").strip()
    differ = differences(repo, before)
    assert differ is not None
    linked, archived = tmp_path / "linked", tmp_path / "archived"
    export_before(repo, before, linked, differ)
    export(repo, before, archived)
    assert "pkg/train.py" not in _tree(linked) and "pkg/train.py" not in _tree(archived)
    assert not os.path.samefile(linked / "pkg/conf/run.yaml", repo / "pkg/conf/run.yaml")


def test_a_file_git_is_told_not_to_look_at_is_taken_from_git(tmp_path: Path) -> None:
    repo, _ = _changed(tmp_path)
    before = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--assume-unchanged", "pkg/conf/run.yaml")
    (repo / "pkg/conf/run.yaml").write_text("trainer:\n  epochs: 9\n")  # git does not see it differ
    differ = differences(repo, before)
    assert differ is not None and "pkg/conf/run.yaml" not in differ.paths
    linked = tmp_path / "linked"
    export_before(repo, before, linked, differ)
    assert (linked / "pkg/conf/run.yaml").read_text() == "trainer:\n  epochs: 3\n"
