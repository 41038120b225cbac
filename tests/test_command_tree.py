"""compose-check: a typer console script whose sub-apps other modules register (bot.hydra.command_groups): the
modules that run when the script starts are followed, a sub-app's command that composes with Hydra's compose API
is composed with the words after it, and a word naming none of a sub-app's commands is click's error.

typer is no dependency of the bot: the verdicts were checked by hand with typer 0.29.3 on a package of this
shape (`No such command 'tune'.`; `data build ++a=1 b=2` hands the command ['++a=1', 'b=2']; docs/dev/realworld.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.scan import compose_scan
from tests.conftest import make_repo

PACKAGING = '[project]\nname = "kiln"\nversion = "0.1"\n\n[project.scripts]\nkiln = "kiln.cli.root:app"\n'
ROOT = "import typer\n\napp = typer.Typer(add_completion=False)\n"
DATA = '''\
from typing import List

import typer
from hydra import compose, initialize

from .root import app

data_app = typer.Typer(help="datasets")
app.add_typer(data_app, name="data")


@data_app.command(name="build")
def build(overrides: List[str]) -> None:
    with initialize(version_base=None, config_path="../../settings"):
        cfg = compose(config_name="main", overrides=overrides)
    print(cfg)


@data_app.command(name="show")
def show(folder: str) -> None:
    print(folder)
'''
SIZES = '''\
from typing import List

import typer

from kiln.cli.root import app

size_app = typer.Typer(help="sizes")
app.add_typer(size_app, name="sizes")


@size_app.command(name="count")
def count(overrides: List[str] = []) -> None:
    print(overrides)
'''
STRAY = "from .root import app\n\n\n@app.command(name=\"stray\")\ndef stray() -> None:\n    pass\n"
INIT = "from .data import data_app\nfrom .sizes import size_app\nfrom .root import app\n"
MAIN_YAML = "defaults:\n  - _self_\nsteps: 3\nstore:\n  path: null\n"


def _repo(tmp_path: Path, scripts: str, init: str = INIT, extra: dict[str, str] | None = None) -> Path:
    files = {"pyproject.toml": PACKAGING, "kiln/__init__.py": "", "kiln/cli/__init__.py": init,
             "kiln/cli/root.py": ROOT, "kiln/cli/data.py": DATA, "kiln/cli/sizes.py": SIZES,
             "kiln/cli/stray.py": STRAY, "settings/main.yaml": MAIN_YAML, "run.sh": scripts, **(extra or {})}
    return make_repo(tmp_path / "repo", files)


def _scan(repo: Path) -> tuple[list[tuple[int, str]], dict[int, str], int]:
    report, stats = compose_scan(repo)
    return ([(f.line, f.message) for f in report.findings], {line: why for _, line, why in stats.unresolved},
            stats.composed)


def test_a_sub_apps_command_composes_with_the_words_after_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "kiln data build ++store.path=/tmp/x steps=4\nkiln data build stepz=4\n")
    found, unresolved, composed = _scan(repo)
    assert unresolved == {} and composed == 2
    assert [(line, message.split(" Key ")[0]) for line, message in found] == [
        (2, "Could not override 'stepz'. To append to your config use +stepz=4")]


def test_hydras_compose_api_says_the_same(tmp_path: Path) -> None:
    from hydra import compose, initialize_config_dir
    from hydra.errors import ConfigCompositionException

    repo = _repo(tmp_path, "")
    with initialize_config_dir(config_dir=str(repo / "settings"), version_base=None):
        assert compose("main", overrides=["++store.path=/tmp/x", "steps=4"]).steps == 4
        with pytest.raises(ConfigCompositionException) as raised:
            compose("main", overrides=["stepz=4"])
    assert str(raised.value) == "Could not override 'stepz'.\nTo append to your config use +stepz=4"


def test_a_word_naming_none_of_a_sub_apps_commands_is_clicks_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "kiln sizes tune 100\nkiln stray\nkiln data show out\n")
    found, unresolved, _ = _scan(repo)
    assert found == [
        (1, "Error: No such command 'tune'. (typer: `size_app` at kiln/cli/sizes.py:7 has the commands count; it "
            "refuses the word before Hydra composes) [launch of kiln at line 1]"),
        # stray.py registers `stray`, but nothing the script runs imports it
        (2, "Error: No such command 'stray'. (typer: `app` at kiln/cli/root.py:3 has the commands data, sizes; it "
            "refuses the word before Hydra composes) [launch of kiln at line 2]")]
    assert unresolved == {3: "kiln/cli/root.py has no @hydra.main decorator"}  # a command that does not compose


@pytest.mark.parametrize("plugins, judged", [
    # a module imported by name may register anything: no group is certain
    ("import importlib\n\nfor name in ['stray']:\n    importlib.import_module('kiln.cli.' + name)\n", []),
    # the root app reached as a module's attribute: only the sub-app is certain
    ("import kiln.cli.root as r\n\n\n@r.app.command(name=\"extra\")\ndef extra():\n    pass\n", [1]),
    # the sub-app's commands changed by hand: only the root app is certain
    ("from .sizes import size_app\n\nsize_app.registered_commands.clear()\n", [2]),
])
def test_a_module_the_script_runs_that_may_add_commands_makes_a_group_uncertain(tmp_path: Path, plugins: str,
                                                                                judged: list[int]) -> None:
    repo = _repo(tmp_path, "kiln sizes tune 100\nkiln stray\n", init=INIT + "from . import plugins\n",
                 extra={"kiln/cli/plugins.py": plugins})
    found, _, _ = _scan(repo)
    assert [line for line, _ in found] == judged


def test_a_group_run_as_main_has_only_its_own_commands(tmp_path: Path) -> None:
    """`python -m kiln.cli.root`: the module runs as `__main__`, a copy that data.py's `app` is not."""
    root = ROOT + "\n\n@app.command()\ndef one():\n    pass\n\n\n@app.command()\ndef two():\n    pass\n" \
        "\n\nif __name__ == \"__main__\":\n    app()\n"
    repo = _repo(tmp_path, "python -m kiln.cli.root data build steps=4\n", extra={"kiln/cli/root.py": root})
    found, _, _ = _scan(repo)
    assert [message.split(" (")[0] for _, message in found] == ["Error: No such command 'data'."]
