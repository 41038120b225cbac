"""compose-check: a console script that is a command group (a typer app, a click group) refuses a first word
that names none of its commands, before any Hydra app runs (bot.hydra.command_gate), with click's own words.

typer and click are not the bot's dependencies, so the fixtures are not run here: the words were taken from
typer 0.29.3 and click 8.5.1 run by hand in a scratch environment on CLIs of this shape (docs/dev/realworld.md):
`Error: No such command 'X'.` (typer draws the same words in a box)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.scan import compose_scan
from tests.conftest import make_repo

PACKAGING = '[project]\nname = "toyrun"\nversion = "0.1"\n\n[project.scripts]\ntoyrun = "toyrun.cli:{target}"\n'
TYPER_CLI = '''\
import subprocess
import sys

import typer

tool = typer.Typer(help="toy runner")
extras = typer.Typer()
tool.add_typer(extras, name="extras")


@tool.command()
def launch(config: str, rest: list[str] = typer.Argument(None)):
    subprocess.run([sys.executable, "-m", "toyrun.main", config, *(rest or [])], check=True)


@tool.command(name="summarise")
def summary_cmd(folder: str):
    print(folder)


@extras.command()
def tidy():
    print("tidy")
{more}

if __name__ == "__main__":
    tool()
'''
CLICK_CLI = '''\
import click


@click.group({group_options})
def entry():
    """toy runner"""


@entry.command()
def fit_cmd():
    print("fit")


@entry.command("show-config")
def show():
    print("show")
{more}
'''
SINGLE = '''\
import typer

tool = typer.Typer()


@tool.command()
def launch(config: str):
    print(config)
'''


def _repo(tmp_path: Path, cli: str, target: str, scripts: str, docs: str = "") -> Path:
    files = {"pyproject.toml": PACKAGING.format(target=target), "toyrun/__init__.py": "",
             "toyrun/cli.py": cli, "run.sh": scripts}
    if docs:
        files["README.md"] = docs
    return make_repo(tmp_path / "repo", files)


def _scan(repo: Path) -> tuple[list[tuple[str, int, str]], dict[tuple[str, int], str]]:
    report, stats = compose_scan(repo)
    return ([(f.path, f.line, f.message) for f in report.findings],
            {(path, line): why for path, line, why in stats.unresolved})


def test_a_typer_app_refuses_a_first_word_that_is_none_of_its_commands(tmp_path: Path) -> None:
    repo = _repo(tmp_path, TYPER_CLI.format(more=""), "tool",
                 "toyrun conf/train.yaml steps=4\ntoyrun launch conf/train.yaml steps=4\n"
                 "toyrun summarise out\ntoyrun extras\ntoyrun --help\n")
    found, unresolved = _scan(repo)
    assert found == [("run.sh", 1, "Error: No such command 'conf/train.yaml'. (typer: `tool` at toyrun/cli.py:6 "
                                   "has the commands extras, launch, summarise; it refuses the word before Hydra "
                                   "composes) [launch of toyrun at line 1]")]
    # a word naming a command (or an option of the group) passes: what runs next is not read here
    assert all(unresolved[("run.sh", line)] == "toyrun/cli.py has no @hydra.main decorator" for line in (2, 3, 4, 5))


def test_in_a_doc_the_refusal_of_a_word_the_reader_fills_in_is_the_reason_it_is_not_checked(tmp_path: Path) -> None:
    # (a word written out is judged in a doc too: tests/test_doc_refusals.py)
    repo = _repo(tmp_path, TYPER_CLI.format(more=""), "tool", "",
                 docs="Run it:\n\n```bash\ntoyrun conf/TRAIN.yaml steps=4\n```\n")
    found, unresolved = _scan(repo)
    assert found == []
    assert unresolved[("README.md", 4)].startswith(
        "the command group refuses a word: Error: No such command 'conf/TRAIN.yaml'.")


def test_a_click_group_refuses_it_too_and_both_spellings_of_a_command_pass(tmp_path: Path) -> None:
    repo = _repo(tmp_path, CLICK_CLI.format(group_options="", more=""), "entry",
                 "toyrun settings/a.yaml\ntoyrun fit\ntoyrun fit-cmd\ntoyrun show-config\n")
    found, _ = _scan(repo)
    assert found == [("run.sh", 1, "Error: No such command 'settings/a.yaml'. (click: `entry` at toyrun/cli.py:5 "
                                   "has the commands fit, fit-cmd, show-config; it refuses the word before Hydra "
                                   "composes) [launch of toyrun at line 1]")]


@pytest.mark.parametrize("cli", [
    SINGLE,  # typer runs its only command itself: no group
    TYPER_CLI.format(more="\n\n@tool.callback(invoke_without_command=True)\ndef top():\n    pass\n"),
    # a callback's positional argument takes the first word before any command
    TYPER_CLI.format(more="\n\n@tool.callback()\ndef top(workspace: str):\n    pass\n"),
    TYPER_CLI.format(more="\n\n@tool.callback()\ndef top(workspace: str = typer.Argument(\".\")):\n    pass\n"),
    TYPER_CLI.format(more="\n\ntool.registered_commands.clear()\n"),
    # a command added only when a function runs
    TYPER_CLI.format(more="\n\ndef late():\n    @tool.command()\n    def later():\n        pass\n"),
    TYPER_CLI.format(more="\n\ndef grow(app):\n    app.command()(print)\n\n\ngrow(tool)\n"),
    TYPER_CLI.format(more="\n\n@tool.command(name=NAMES[0])\ndef other():\n    pass\n"),
    TYPER_CLI.replace('typer.Typer(help="toy runner")', 'typer.Typer(cls=Aliased)'),
    TYPER_CLI.replace('typer.Typer(help="toy runner")', 'typer.Typer(context_settings=CASELESS)'),
    TYPER_CLI.replace('tool.add_typer(extras, name="extras")', "tool.add_typer(extras)"),
])
def test_a_group_the_file_does_not_show_whole_is_not_judged(tmp_path: Path, cli: str) -> None:
    repo = _repo(tmp_path, cli.format(more="") if "{more}" in cli else cli, "tool", "toyrun conf/train.yaml\n")
    found, unresolved = _scan(repo)
    assert found == []
    assert unresolved[("run.sh", 1)] == "toyrun/cli.py has no @hydra.main decorator"


@pytest.mark.parametrize("options, more", [
    ("invoke_without_command=True", ""),
    ("cls=DefaultGroup", ""),
    ("", "\n\nentry.add_command(show, name=\"view\")\n"),
])
def test_a_click_group_that_may_take_other_words_is_not_judged(tmp_path: Path, options: str, more: str) -> None:
    repo = _repo(tmp_path, CLICK_CLI.format(group_options=options, more=more), "entry", "toyrun settings/a.yaml\n")
    found, _ = _scan(repo)
    assert found == []


def test_a_click_group_taking_an_argument_is_not_judged(tmp_path: Path) -> None:
    cli = CLICK_CLI.format(group_options="", more="").replace(
        '@click.group()\n', '@click.group()\n@click.argument("where")\n')
    repo = _repo(tmp_path, cli, "entry", "toyrun settings/a.yaml fit\n")
    found, _ = _scan(repo)
    assert found == []
