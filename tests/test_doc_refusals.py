"""compose-check: in a doc, a launch its entry's own command line parser refuses before Hydra composes is a
finding where nothing in it is left for the reader to fill in (bot.compose.doc_refusals): the entry is the
repository's (a console script it declares, a file of its tree) and the refused word is written out. A word
standing for the reader's own (`CONFIG.yaml`, `<config>`) and a missing config directory stay not judged.

typer is not the bot's dependency: its words were taken from typer 0.29.3 run by hand on a CLI of this shape
(docs/dev/realworld.md); argparse's are checked here by running the fixture."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.engine.scan import compose_scan
from tests.conftest import make_repo

PACKAGING = '[project]\nname = "kettle"\nversion = "0.1"\n\n[project.scripts]\nkettle = "kettle.cli:app"\n'
TYPER_CLI = '''\
import subprocess
import sys

import typer

app = typer.Typer(help="brews a config")


@app.command()
def brew(config: str, rest: list[str] = typer.Argument(None)):
    subprocess.run([sys.executable, "-m", "kettle.main", config, *(rest or [])], check=True)


@app.command()
def pour(cup: str):
    print(cup)
'''
GATED = '''\
import argparse

import hydra


def cli():
    reader = argparse.ArgumentParser(description="steeps")
    reader.add_argument("--minutes", type=int, default=3)
    reader.parse_args()
    steep()


@hydra.main(version_base=None, config_path="leaves", config_name="green")
def steep(cfg):
    print(cfg.minutes)


if __name__ == "__main__":
    cli()
'''
DOC = """\
Brew one of ours:

```bash
kettle recipes/oolong.yaml strength=2
```

Or your own:

```bash
kettle MY_RECIPE.yaml
kettle brew recipes/oolong.yaml
```

Steep:

```bash
python steep.py --minutes 4 --sugar 1
python steep.py --minutes 4 --sugar N
python steep.py --config-path leafs minutes=2
```
"""


def _scan(repo: Path) -> tuple[list[tuple[str, int, str]], dict[tuple[str, int], str]]:
    report, stats = compose_scan(repo)
    return ([(f.path, f.line, f.message) for f in report.findings],
            {(path, line): why for path, line, why in stats.unresolved})


def test_a_doc_launch_its_own_parser_refuses_is_a_finding(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {
        "pyproject.toml": PACKAGING, "kettle/__init__.py": "", "kettle/cli.py": TYPER_CLI,
        "recipes/oolong.yaml": "strength: 1\n", "steep.py": GATED, "leaves/green.yaml": "minutes: 3\n",
        "README.md": DOC})
    found, unresolved = _scan(repo)
    assert found == [
        ("README.md", 4, "Error: No such command 'recipes/oolong.yaml'. (typer: `app` at kettle/cli.py:6 has "
                         "the commands brew, pour; it refuses the word before Hydra composes) "
                         "[launch of kettle at line 4]"),
        ("README.md", 17, "error: unrecognized arguments: --sugar 1 (argparse, parse_args() at line 9 of steep.py, "
                          "before Hydra composes) [launch of steep.py at line 17]"),
    ]
    # a word the reader fills in: not judged, the refusal its reason
    assert unresolved[("README.md", 10)].startswith(
        "the command group refuses a word: Error: No such command 'MY_RECIPE.yaml'.")
    assert "argparse refuses its words" in unresolved[("README.md", 18)]
    assert "leafs" in unresolved[("README.md", 19)]  # a directory the reader may make: not judged in a doc
    done = subprocess.run([sys.executable, "steep.py", "--minutes", "4", "--sugar", "1"], cwd=repo,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "error: unrecognized arguments: --sugar 1" in done.stderr
