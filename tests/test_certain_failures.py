"""compose-check: launches Hydra (or argparse before it) certainly refuses are findings with the refusing
tool's own words (bot.hydra.certain, bot.hydra.argparse_gate); each message is checked against the real
thing: the fixture's app run with hydra-core, or Hydra's compose API called by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.engine.scan import compose_scan
from bot.hydra.certain import CONFIG_PATH_FILE
from tests.conftest import make_repo

APP = '''\
import hydra


@hydra.main(version_base=None, config_path="{path}", config_name="base")
def start(cfg):
    print(cfg.steps)


if __name__ == "__main__":
    start()
'''
GATED = '''\
import argparse

import hydra


def cli():
    reader = argparse.ArgumentParser(description="toy")
    reader.add_argument("--seed", type=int, default=1)
    reader.add_argument("--dry", action="store_true")
    {extra}
    reader.{parse}()
    start()


@hydra.main(version_base=None, config_path="settings", config_name="base")
def start(cfg):
    print(cfg.steps)


if __name__ == "__main__":
    cli()
'''
BASE = "steps: 3\n"


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    tree = {"settings/base.yaml": BASE, "settings/__init__.py": "", **files}
    return make_repo(tmp_path / "repo", tree)


def _findings(repo: Path) -> list[tuple[str, int, str]]:
    report, _ = compose_scan(repo)
    return [(f.path, f.line, f.message) for f in report.findings]


def _run(repo: Path, line: str) -> str:
    """The app run for real, as the script's line runs it: what it prints on failure."""
    words = line.split()[1:]
    done = subprocess.run([sys.executable, *words], cwd=repo, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode != 0
    return " ".join((done.stdout + done.stderr).split())


def test_a_missing_primary_config_directory_is_hydras_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"train.py": APP.format(path="setings"),
                            "run.sh": "python train.py steps=4\n"})
    found = _findings(repo)
    assert found == [("run.sh", 1, "Primary config directory not found. Check that the config directory "
                                   "'setings' exists and readable [launch of train.py at line 1]")]
    assert f"Check that the config directory '{repo.resolve() / 'setings'}' exists and readable" in _run(
        repo, "python train.py steps=4")


def test_a_missing_config_path_flag_and_config_dir_are_hydras_errors(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"train.py": APP.format(path="settings"),
                            "go.sh": "python train.py --config-path nowhere steps=4\n"
                                     "python train.py --config-dir extra steps=4\n"
                                     "python train.py --config-dir settings steps=4\n"})
    messages = [m for _, _, m in _findings(repo)]
    assert messages == [
        "Primary config directory not found. Check that the config directory 'nowhere' exists and readable "
        "[launch of train.py at line 1]",
        "Additional config directory 'extra' not found [launch of train.py at line 2]"]
    assert f"Additional config directory '{repo.resolve() / 'extra'}' not found" in _run(
        repo, "python train.py --config-dir extra steps=4")


def test_hydras_compose_api_says_the_same_of_a_missing_directory(tmp_path: Path) -> None:
    from hydra import compose, initialize_config_dir
    from hydra.errors import MissingConfigException

    missing = tmp_path / "nowhere"
    with pytest.raises(MissingConfigException) as raised, initialize_config_dir(str(missing), version_base=None):
        compose(config_name="base")
    assert str(raised.value) == ("Primary config directory not found.\nCheck that the config directory "
                                 f"'{missing}' exists and readable")


def test_a_config_path_naming_a_yaml_file_is_hydras_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"train.py": APP.format(path="settings/base.yaml"),
                            "run.sh": "python train.py steps=4\n"})
    assert _findings(repo) == [("run.sh", 1, f"{CONFIG_PATH_FILE} [launch of train.py at line 1]")]
    assert CONFIG_PATH_FILE in _run(repo, "python train.py steps=4")


def test_a_doc_illustration_is_not_judged_and_paths_not_the_repositorys_are_not_either(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"train.py": APP.format(path="settings"),
                            "README.md": "Run\n\n```bash\npython train.py --config-path nowhere steps=4\n```\n",
                            "go.sh": "python train.py --config-dir /data/configs steps=4\n"
                                     "python train.py --config-dir ../shared steps=4\n"
                                     "python train.py --config-dir $CONF steps=4\n"})
    report, stats = compose_scan(repo)
    assert report.findings == []
    reasons = {(path, line): reason for path, line, reason in stats.unresolved}
    assert "nowhere" in reasons[("README.md", 4)]
    assert len(reasons) == 4


@pytest.mark.parametrize(("extra", "line", "refused"), [
    ("", "python train.py --seed 3 --bogus 1", "--bogus 1"),
    ("", "python train.py --seed 3 steps=4", "steps=4"),
    ("", "python train.py --se 3 --dry", None),  # an abbreviation argparse takes
    ('reader.add_argument("rest", nargs="*")', "python train.py --seed 3 steps=4", None),
    ('reader.add_argument("rest", nargs="*")', "python train.py --seed 3 --colour red steps=4", "--colour"),
])
def test_argparse_before_hydra_refuses_what_its_parser_does_not_define(
        tmp_path: Path, extra: str, line: str, refused: str | None) -> None:
    repo = _repo(tmp_path, {"train.py": GATED.format(extra=extra, parse="parse_args"), "run.sh": line + "\n"})
    found = _findings(repo)
    if refused is None:
        assert found == []
        return
    assert found == [("run.sh", 1, f"error: unrecognized arguments: {refused} (argparse, parse_args() at line "
                                   "11 of train.py, before Hydra composes) "
                                   "[launch of train.py at line 1]")]
    assert f"error: unrecognized arguments: {refused}" in _run(repo, line)


def test_parse_known_args_takes_unknown_words(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"train.py": GATED.format(extra="", parse="parse_known_args"),
                            "run.sh": "python train.py --seed 3 --bogus 1\n"})
    assert _findings(repo) == []


def test_a_parse_only_in_a_branch_is_not_read(tmp_path: Path) -> None:
    branch = '    if os.environ.get("STRICT"):\n        reader.parse_args()'
    text = GATED.format(extra="", parse="parse_args").replace("    reader.parse_args()", branch)
    repo = _repo(tmp_path, {"train.py": "import os\n" + text, "run.sh": "python train.py --bogus 1\n"})
    assert _findings(repo) == []


@pytest.mark.parametrize("change", [
    ("    reader.parse_args()", "    add_more(reader)\n    reader.parse_args()"),  # arguments added elsewhere
    ("    reader.parse_args()", "    sys.argv = sys.argv[:1]\n    reader.parse_args()"),  # Hydra's words taken out
])
def test_a_parser_the_file_does_not_show_whole_is_not_read(tmp_path: Path, change: tuple[str, str]) -> None:
    text = "import sys\n" + GATED.format(extra="", parse="parse_args").replace(*change)
    repo = _repo(tmp_path, {"train.py": text, "run.sh": "python train.py --bogus 1\n"})
    assert _findings(repo) == []


def test_a_directory_the_script_may_make_first_is_not_judged(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"train.py": APP.format(path="setings"),
                            "run.sh": "python train.py steps=4\n",
                            "make.sh": "mkdir -p setings extra\ncp settings/base.yaml setings/\n"
                                       "python train.py steps=4\npython train.py --config-dir extra steps=4\n"})
    assert [(path, line) for path, line, _ in _findings(repo)] == [("run.sh", 1)]


def test_a_directory_the_launch_assembles_from_a_variable_is_not_judged(tmp_path: Path) -> None:
    """`ROOT=root_dir` is a placeholder the user sets before running: the path is not spelled out."""
    repo = _repo(tmp_path, {"train.py": APP.format(path="settings"),
                            "run.sh": "ROOT=root_dir\npython train.py --config-path=${ROOT}/settings steps=4\n"
                                      "python train.py --config-dir $ROOT/extra steps=4\n"
                                      "python train.py --config-path=elsewhere/settings steps=4\n"})
    assert [(path, line) for path, line, _ in _findings(repo)] == [("run.sh", 4)]
