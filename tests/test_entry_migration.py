"""The migration of entry points a change moved (bot.upstream.entry_migration), and `bot watch` running it with
no rule given: high when the moved files are unchanged but for their module path (or the change's own launch
edits agree), suggested otherwise."""

from __future__ import annotations

from pathlib import Path

from bot.upstream.entry_migration import entry_migration
from tests.conftest import git, make_repo

APP = """import hydra


@hydra.main(config_path="config", config_name="run", version_base=None)
def main(cfg):
    print(cfg.steps)


if __name__ == "__main__":
    main()
"""


def _moved(tmp_path: Path, new_text: str = APP) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path / "repo", {
        "labs/__init__.py": "", "labs/fast/__init__.py": "", "labs/fast/main.py": APP,
        "labs/fast/config/run.yaml": "steps: 2\n", "scripts/fast.sh": "python3 -m labs.fast.main steps=3\n"})
    before = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "mv", "labs/fast", "pkg_fast")
    (repo / "pkg_fast/main.py").write_text(new_text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Move the fast trainer into its own package (#12)")
    return repo, before, git(repo, "rev-parse", "HEAD").strip()


def test_a_move_unchanged_but_for_its_path_is_of_high_confidence(tmp_path: Path) -> None:
    repo, before, after = _moved(tmp_path)
    high, low = entry_migration(repo, before, after, "#12")
    assert low is None and high is not None
    assert high["migration"] == {"entrypoints": {"labs.fast": "pkg_fast"}}
    assert "unchanged but for their module path" in high["description"]
    assert entry_migration(repo, before, after, "#12")[0] == high  # the same id again


def test_a_move_that_rewrote_the_entry_is_only_suggested(tmp_path: Path) -> None:
    rewritten = APP.replace("print(cfg.steps)", "total = cfg.steps * 2\n    print(total, cfg.steps)")
    repo, before, after = _moved(tmp_path, rewritten)
    high, low = entry_migration(repo, before, after)
    assert high is None and low is not None and low["migration"] == {"entrypoints": {"labs.fast": "pkg_fast"}}


def test_watch_moves_the_launches_of_the_old_entry_point(tmp_path: Path) -> None:
    from bot.cli import main

    repo, before, after = _moved(tmp_path)
    out = tmp_path / "report.diff"
    main(["watch", "--repo", str(repo), "--before", before, "--after", after, "--no-bundled", "--dry-run",
          "--format", "diff", "--output", str(out)])
    assert "-python3 -m labs.fast.main steps=3\n+python3 -m pkg_fast.main steps=3\n" in out.read_text()
