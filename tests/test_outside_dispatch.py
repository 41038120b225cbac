"""compose-check: a console script whose function only hands the command line to a dispatcher of another package
(bot.hydra.dispatch) is not followed, and its launches say so, naming the dispatcher and its module."""

from __future__ import annotations

from pathlib import Path

from bot.engine.scan import compose_scan
from tests.conftest import make_repo

PACKAGING = '[project]\nname = "toyrun"\nversion = "0.1"\n\n[project.scripts]\ntoyrun = "toyrun.__main__:main"\n'
MAIN = '''\
"""Toy runner."""

from {module} import run_commands

from .steps import STEPS


def main():
    """Run a step."""
    run_commands("toyrun", STEPS)


if __name__ == "__main__":
    main()
'''
STEPS = 'STEPS = ["fit", "check"]\n'
LOCAL_CLI = "def run_commands(name, steps):\n    print(name, steps)\n"


def _unresolved(tmp_path: Path, module: str, extra: dict[str, str]) -> dict[tuple[str, int], str]:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PACKAGING, "toyrun/__init__.py": "",
                                         "toyrun/__main__.py": MAIN.format(module=module), "toyrun/steps.py": STEPS,
                                         "run.sh": "toyrun fit model=small\n", **extra})
    report, stats = compose_scan(repo)
    assert report.findings == []
    return {(path, line): why for path, line, why in stats.unresolved}


def test_a_dispatcher_of_another_package_is_named_as_why_the_launch_is_not_checked(tmp_path: Path) -> None:
    unresolved = _unresolved(tmp_path, "toolkit_elsewhere.cli", {})
    assert unresolved == {("run.sh", 1): "toyrun/__main__.py: main() hands the command line to run_commands of "
                                         "toolkit_elsewhere.cli, which is not in the repository: the subcommand it "
                                         "runs, and any Hydra app behind it, are that package's to choose when it runs"}


def test_a_dispatcher_of_the_repository_is_not_that_reason(tmp_path: Path) -> None:
    unresolved = _unresolved(tmp_path, ".cli", {"toyrun/cli.py": LOCAL_CLI})
    assert unresolved == {("run.sh", 1): "toyrun/__main__.py has no @hydra.main decorator"}
