"""The repository's own Python never runs (issue 37): with the repository on the import path (`PYTHONPATH=.`
from its root, or `python -m bot` there), none of its modules named like the bot's imports, and no Hydra
plugin of its, is imported, by any command, in the bot's process, its forked workers or a Python child.

The bot runs for real: the venv's `bot` console script and `python -m bot`, in subprocesses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo

BIN = Path(sys.executable).parent
APP = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="config", version_base=None)\n'
       'def main(cfg):\n    print(cfg)\n\n\nif __name__ == "__main__":\n    main()\n')
SCRIPT = ("python3 train.py trainer.lr=0.2\n"
          "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False\n")
PLANTED = ("yaml.py", "omegaconf.py", "git.py", "hydra/__init__.py", "hydra_plugins/marker_plugin.py")
COMMANDS = {
    "run": ["run", "--repo", ".", "--dry-run", "--no-cache", "--compose"],
    "compose-check": ["compose-check", "--repo", "."],
    "launches": ["launches", "--repo", "."],
    "infer": ["infer", "--repo", ".", "--before", "HEAD~1", "--after", "HEAD"],
    "watch": ["watch", "--repo", ".", "--before", "HEAD~1", "--after", "HEAD", "--dry-run"],
}
# what each command says when it worked
WORKED = {"run": "use_mbridge is False", "compose-check": "1 of 2 launches composed",
          "launches": "python train.py", "infer": "", "watch": "the change edits run.sh, which breaks it"}


def planting(markers: Path, names: tuple[str, ...] = PLANTED) -> dict[str, str]:
    """Files that, imported, each leave a marker named after them."""
    return {name: f"open({str(markers / name.replace('/', '.'))!r}, 'w').close()\n" for name in names}


@pytest.fixture()
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with a Hydra app, a launch of it and one of verl, and the planted modules; two commits."""
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = make_repo(tmp_path / "repo", {"train.py": APP, "conf/config.yaml": "trainer:\n  lr: 0.1\n",
                                         "run.sh": SCRIPT, **planting(markers)})
    (repo / "run.sh").write_text(SCRIPT + "# and again\n")
    git(repo, "commit", "-q", "-am", "two")
    return repo, markers


def bot(how: str, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(BIN / "bot")] if how == "script" else [sys.executable, "-m", "bot"]
    environment = {**os.environ, **({"PYTHONPATH": "."} if how == "script" else {}), **(env or {})}
    return subprocess.run([*command, *args], cwd=cwd, env=environment, capture_output=True, text=True,
                          check=False, timeout=600)


@pytest.mark.parametrize("how", ["script", "module"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_module_of_the_repository_is_imported(planted: tuple[Path, Path], how: str, command: str) -> None:
    repo, markers = planted
    done = bot(how, COMMANDS[command], repo)
    assert sorted(p.name for p in markers.iterdir()) == [], f"the repository's code ran:\n{done.stderr}"
    assert done.returncode == 0, done.stderr
    assert WORKED[command] in done.stdout + done.stderr


def test_a_repository_named_in_bot_toml_is_taken_off_the_path_once_resolved(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = make_repo(tmp_path / "repo", {"train.py": APP, "conf/config.yaml": "trainer:\n  lr: 0.1\n",
                                         "run.sh": SCRIPT, **planting(markers)})
    home = tmp_path / "home-of-the-run"
    home.mkdir()
    (home / "bot.toml").write_text(f'[repos.mine]\npath = "{repo}"\n')
    done = bot("script", ["run", "--repo", "mine", "--dry-run", "--no-cache", "--compose"], home,
               env={"PYTHONPATH": str(repo)})
    assert sorted(p.name for p in markers.iterdir()) == [], done.stderr
    assert done.returncode == 0 and "use_mbridge is False" in done.stdout, done.stderr


def test_every_repository_of_a_list_is_off_the_path_before_the_first_is_scanned(tmp_path: Path) -> None:
    """`--repos FILE` of names from bot.toml: scanning the first must not import the second's modules."""
    markers = tmp_path / "markers"
    markers.mkdir()
    first = make_repo(tmp_path / "first", {"run.sh": SCRIPT, "train.py": APP, "conf/config.yaml": "a: 1\n"})
    second = make_repo(tmp_path / "second", {"run.sh": SCRIPT, **planting(markers)})
    home = tmp_path / "home-of-the-run"
    home.mkdir()
    (home / "bot.toml").write_text(f'[repos.first]\npath = "{first}"\n\n[repos.second]\npath = "{second}"\n')
    (home / "list.txt").write_text("first\nsecond\n")
    done = bot("script", ["run", "--repos", "list.txt", "--dry-run", "--no-cache", "--compose"], home,
               env={"PYTHONPATH": str(second)})
    assert sorted(p.name for p in markers.iterdir()) == [], done.stderr
    assert done.returncode == 0 and done.stdout.count("use_mbridge is False") == 2, done.stderr


# Cleans the path as the console script does for argv[1:] (and nothing else), then reports what a forked
# worker and a Python child process see: the worker's sys.path entries inside the repository, and where the
# child imported yaml from.
CHILDREN = r"""
import os, subprocess, sys
from bot.isolate_path import isolate

isolate(sys.argv[1:])
from bot.engine.forks import Forks

def inside(state: object, _: int) -> list[str]:
    root = os.path.realpath(".")
    return [p for p in sys.path if os.path.realpath(p or ".").startswith(root)]

forks = Forks(1)
try:
    print("worker:", list(forks.map(inside, [0])))
finally:
    forks.close()
child = subprocess.run([sys.executable, "-c", "import yaml; print(yaml.__file__)"], capture_output=True, text=True)
print("child:", child.stdout.strip())
"""


def test_forked_workers_and_python_children_do_not_see_the_repository(planted: tuple[Path, Path]) -> None:
    repo, markers = planted
    done = subprocess.run([sys.executable, "-c", CHILDREN, "run", "--repo", str(repo)], cwd=repo,
                          env={**os.environ, "PYTHONPATH": f".{os.pathsep}{repo / 'conf'}"},
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "worker: [[]]" in done.stdout
    assert "child: " in done.stdout and str(repo) not in done.stdout.split("child: ")[1]
    assert sorted(p.name for p in markers.iterdir()) == []


# ---- the cleaning itself -----------------------------------------------------------------------------

def test_forget_takes_the_repository_and_paths_inside_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.isolate_path import forget

    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / ".venv/lib/site-packages").mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    link = tmp_path / "link-to-src"
    link.symlink_to(repo / "src")
    original = list(sys.path)
    monkeypatch.chdir(repo)
    monkeypatch.setattr(sys, "path", ["", str(repo), str(repo / "src"), "src", str(link), str(other),
                                      str(repo / ".venv/lib/site-packages"), *original])
    monkeypatch.setattr(sys, "prefix", str(repo / ".venv"))  # the interpreter's own environment is in the repo
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([".", "src", str(other), "", str(link)]))
    forget(repo)
    assert sys.path == [str(other), str(repo / ".venv/lib/site-packages"), *original]
    assert os.environ["PYTHONPATH"] == str(other)


def test_a_pythonpath_of_the_repository_alone_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.isolate_path import forget

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONPATH", ".")
    forget(tmp_path)
    assert "PYTHONPATH" not in os.environ


def test_the_command_line_names_the_repositories(tmp_path: Path) -> None:
    from bot.isolate_path import command_line_targets

    for name in ("a", "b", "c", "d"):
        (tmp_path / name).mkdir()
    listing = tmp_path / "list.txt"
    listing.write_text(f"{tmp_path / 'c'}  # a comment\nowner/name\n\n{tmp_path / 'd'}\n")
    argv = ["run", "--repo", str(tmp_path / "a"), f"--repo={tmp_path / 'b'}", "--repos", str(listing),
            "--repo", "not-a-directory", "--", "--repo", str(tmp_path)]
    assert command_line_targets(argv) == [str(tmp_path / n) for n in "abcd"]
    assert command_line_targets(["compose-check", "--rep", str(tmp_path / "a")]) == [str(tmp_path / "a")]


def test_the_start_up_module_imports_nothing_python_has_not_loaded() -> None:
    """Nothing is looked up on the import path before it is cleaned: the entry point's imports are all loaded
    by the interpreter itself (the `bot` package, this module, os and sys)."""
    probe = ("import sys\nbefore = set(sys.modules)\nimport bot.__main__\n"
             "print(sorted(set(sys.modules) - before))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent)
    assert done.stdout.strip() == "['bot', 'bot.__main__', 'bot.isolate_path']"
