"""Which files are read: git-tracked plus untracked-not-ignored, shell by suffix or shebang."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.discover import shell_sources
from bot.engine.scan import scan
from bot.model import Skipped
from bot.rules.loader import load_rules
from tests.conftest import git, make_repo

LAUNCH = "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False\n"


def sources(root: Path) -> tuple[list[str], list[Skipped]]:
    skipped: list[Skipped] = []
    return sorted(s.path for s in shell_sources(root, skipped)), skipped


def test_git_tracked_and_untracked_but_not_ignored(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.sh": LAUNCH, ".gitignore": "ignored.sh\nbuild/\n"})
    (repo / "new.sh").write_text(LAUNCH)
    (repo / "ignored.sh").write_text(LAUNCH)
    (repo / "build").mkdir()
    (repo / "build" / "x.sh").write_text(LAUNCH)
    found, _ = sources(repo)
    assert found == ["a.sh", "new.sh"]


def test_shell_by_suffix_or_shebang_whatever_the_name(tmp_path: Path) -> None:
    files = {
        "run.bash": LAUNCH,
        "job.slurm": LAUNCH,
        "z.zsh": LAUNCH,
        "train": "#!/usr/bin/env bash\n" + LAUNCH,
        "odd name with spaces": "#!/bin/bash\n" + LAUNCH,
        "launch.txt": "#!/bin/bash\n" + LAUNCH,
        "tool.py": "#!/usr/bin/env python3\nprint(1)\n",
        "notes": "just text\n",
        "env-s": "#!/usr/bin/env -S bash -eu\n" + LAUNCH,
    }
    repo = make_repo(tmp_path / "r", files)
    os.chmod(repo / "train", 0o644)  # not executable: still a shell script
    found, _ = sources(repo)
    assert found == ["env-s", "job.slurm", "odd name with spaces", "run.bash", "train", "z.zsh"]


def test_walk_outside_git(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.sh").write_text(LAUNCH)
    (root / ".git_not").mkdir()
    found, _ = sources(root)
    assert found == ["sub/a.sh"]


def test_binary_non_utf8_and_symlinks_are_skipped_with_reasons(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text(LAUNCH)
    repo = make_repo(tmp_path / "r", {"good.sh": LAUNCH, "bin.sh": b"\x00\x01use_mbridge", "latin.sh": b"# caf\xe9\n"})
    os.symlink(outside, repo / "escape.sh")
    os.symlink(repo / "good.sh", repo / "alias.sh")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "links")
    report = scan(repo, load_rules())
    reasons = {s.path: s.reason for s in report.skipped}
    assert "binary" in reasons["bin.sh"]
    assert "UTF-8" in reasons["latin.sh"]
    assert "outside the repository" in reasons["escape.sh"]
    assert "symlink" in reasons["alias.sh"]
    assert [f.path for f in report.findings] == ["good.sh"]


def test_prefilter_parses_only_files_with_a_rule_key(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.sh": LAUNCH, "b.sh": "python3 -m m x=1\n", "c.sh": "echo hi\n"})
    report = scan(repo, load_rules())
    assert report.files_scanned == 3
    assert report.files_parsed == 1
    everything = scan(repo, load_rules(enable=["megatron-flash-attn"]))
    assert everything.files_parsed == 1  # the optional rule needs a megatron key too


@given(st.text(alphabet="ab./.Ää", max_size=12))
@settings(max_examples=2000, deadline=None, derandomize=True)
def test_a_paths_suffix_is_what_splitext_says(path: str) -> None:
    from bot.discover import suffix_of

    assert suffix_of(path) == os.path.splitext(path)[1].lower()


def test_files_told_by_their_directorys_listing_are_the_files_a_look_up_each_finds(tmp_path: Path) -> None:
    """A `--files` run lists the rest of the repository from each directory's entries (no size): the
    same files, kinds and skipped entries as looking each one up."""
    from bot.discover import sources as all_sources

    repo = make_repo(tmp_path / "repo", {
        "a.sh": LAUNCH, "docs/b.md": "x\n", "conf/c.yaml": "a: 1\n", "tool": "#!/bin/bash\necho\n",
        "notes": "plain\n", "real/d.sh": LAUNCH, "gone.sh": LAUNCH, "pkg/e.py": "x = 1\n", "f.json": "{}\n",
        "linked/d.sh": LAUNCH,
    })
    (repo / "gone.sh").unlink()  # tracked, deleted in the work tree
    os.symlink(repo / "a.sh", repo / "alias.sh")  # untracked, not ignored: listed by git
    shutil.rmtree(repo / "linked")
    os.symlink(repo / "real", repo / "linked")  # a tracked file's directory, now a symlink
    (repo / "sub").mkdir()
    os.mkfifo(repo / "sub" / "pipe.sh")
    looked_up: list[Skipped] = []
    listed: list[Skipped] = []
    each = [(s.path, s.kind) for s in all_sources(repo, looked_up)]
    by_listing = list(all_sources(repo, listed, sized={"a.sh"}))
    assert [(s.path, s.kind) for s in by_listing] == each and listed == looked_up
    assert {s.path: s.size for s in by_listing}["a.sh"] == len(LAUNCH)
    assert "docs/b.md" in dict(each) and "tool" in dict(each) and "gone.sh" not in dict(each)
    assert {s.path for s in looked_up} >= {"alias.sh", "linked/d.sh"}


_COMPARE_LISTINGS = """
import sys
from pathlib import Path
from bot.discover import sources
repo = Path(sys.argv[1])
looked_up, listed = [], []
each = [(s.path, s.kind) for s in sources(repo, looked_up)]
by_listing = [(s.path, s.kind) for s in sources(repo, listed, sized=set())]
print(each == by_listing and looked_up == listed, each, by_listing, looked_up, listed)
"""


def test_a_directory_that_can_be_listed_but_not_entered_is_told_as_a_look_up_tells_it(tmp_path: Path) -> None:
    """Review s22: `r--` lists names (and their types) where a look-up of each is refused."""
    import subprocess
    import sys

    repo = make_repo(tmp_path / "repo", {"r/run.sh": "#!/bin/bash\necho\n"})
    os.chmod(repo / "r", 0o644)
    command = [sys.executable, "-c", _COMPARE_LISTINGS, str(repo)]
    if os.geteuid() == 0:  # root passes every permission: the child drops that capability
        if shutil.which("setpriv") is None:
            pytest.skip("root, without setpriv to drop the capability")
        command = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", *command]
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parent.parent).stdout
    finally:
        os.chmod(repo / "r", 0o755)
    assert out.startswith("True"), out
