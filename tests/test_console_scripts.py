"""Console scripts the repository's packages declare are launches: `trainlab trainer.epochs=3` runs the
function `[project.scripts]` names, with that function's Hydra config."""

from __future__ import annotations

from pathlib import Path

from bot.cache.reuse import CachedResults
from bot.cache.store import ResultCache, fingerprint
from bot.engine.launches import collect
from bot.engine.scan import scan
from bot.engine.write import write_changes
from bot.lang.consoles import console_scripts
from bot.model import Status
from bot.rules.loader import load_rules
from tests.conftest import git, make_repo

PYPROJECT = """\
[project]
name = "trainlab"
version = "0.1"

[project.scripts]
trainlab = "trainlab.cli:train"
trainlab-eval = "trainlab.cli:evaluate"
trainlab-tools = "trainlab.tools"
"""
CLI = """\
import hydra


@hydra.main(version_base=None, config_path="conf", config_name="train")
def train(cfg):
    print(cfg)


@hydra.main(version_base=None, config_path="conf", config_name="evaluate")
def evaluate(cfg):
    print(cfg)
"""
TRAIN = "trainer:\n  epochs: 1\n  seed: 0\n"
EVALUATE = "trainer:\n  epochs: 1\nsplit: test\n"
SCRIPT = """\
#!/usr/bin/env bash
set -e
trainlab trainer.epochs=3 trainer.seed=7
uv run trainlab-eval trainer.epochs=3 split=dev
srun -J trainlab python3 tools/other.py trainer.epochs=3
trainlab-tools trainer.epochs=3
srun --exclusive trainlab trainer.epochs=3
"""
README = """\
# Training

```bash
trainlab trainer.epochs=3
```
"""
EPOCHS = """\
id: epochs-capped
title: trainer.epochs above 2 is no longer allowed
severity: warning
match:
  key: ["trainer.epochs"]
  value: [3]
fix:
  set: 2
"""
MOVE = """\
id: cli-moved
title: trainlab.cli moved to trainlab.app
severity: warning
when:
  entrypoint: ["trainlab.cli"]
fix:
  entrypoint:
    trainlab.cli: trainlab.app
"""


def _repo(tmp_path: Path, pyproject: str = PYPROJECT) -> Path:
    return make_repo(tmp_path / "repo", {
        "pyproject.toml": pyproject,
        "trainlab/__init__.py": "",
        "trainlab/cli.py": CLI,
        "trainlab/tools.py": "print('no hydra here')\n",
        "trainlab/conf/train.yaml": TRAIN,
        "trainlab/conf/evaluate.yaml": EVALUATE,
        "scripts/run.sh": SCRIPT,
        "README.md": README,
    })


def _rules(tmp_path: Path, *texts: str) -> list:  # type: ignore[type-arg]
    directory = tmp_path / "rules"
    directory.mkdir(exist_ok=True)
    for text in texts:
        (directory / f"{text.split(chr(10))[0].removeprefix('id: ')}.yaml").write_text(text)
    return load_rules([directory], include_bundled=False)


def test_packaging_metadata_is_read_as_written() -> None:
    setup_py = b"""\
from setuptools import setup
SCRIPTS = {"console_scripts": ["lab-train = lab.train:cli_main", "lab-eval=lab.eval:main [extra]"]}
setup(name="lab", entry_points=SCRIPTS)
"""
    setup_ini = b'setup(entry_points="""\n[console_scripts]\nlab-ini = lab.ini:run\n""")\n'
    setup_cfg = b"[options.entry_points]\nconsole_scripts =\n    lab-cfg = lab.cfg:main\n"
    poetry = b'[tool.poetry.scripts]\nlab-poetry = { callable = "lab.poetry:main" }\nlab-short = "lab.short:go"\n'
    assert console_scripts([("setup.py", setup_py)]) == {"lab-train": "lab.train:cli_main",
                                                         "lab-eval": "lab.eval:main"}
    assert console_scripts([("setup.py", setup_ini)]) == {"lab-ini": "lab.ini:run"}
    assert console_scripts([("setup.cfg", setup_cfg)]) == {"lab-cfg": "lab.cfg:main"}
    assert console_scripts([("pyproject.toml", poetry)]) == {"lab-poetry": "lab.poetry:main",
                                                             "lab-short": "lab.short:go"}
    # a file that does not parse declares nothing; the one nearer the root wins a name
    assert console_scripts([("pyproject.toml", b"[project\n"), ("setup.py", b"setup(\n")]) == {}
    nested = (b'[project.scripts]\nlab = "sub.cli:main"\n', b'[project.scripts]\nlab = "top.cli:main"\n')
    assert console_scripts([("sub/pyproject.toml", nested[0]), ("pyproject.toml", nested[1])]) == {
        "lab": "top.cli:main"}


def test_console_scripts_are_launches_of_their_function(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    found = collect(repo, "repo")
    shown = [(i.path, i.line, i.entry, i.entry_kind, i.cls, i.app["config_name"] if i.app else None)
             for i in found.launches]
    assert shown == [
        ("README.md", 4, "trainlab", "console-script", "hydra", "train"),
        ("scripts/run.sh", 3, "trainlab", "console-script", "hydra", "train"),
        ("scripts/run.sh", 4, "trainlab-eval", "console-script", "hydra", "evaluate"),  # its own function's
        ("scripts/run.sh", 5, "tools/other.py", "script", "outside", None),  # `-J trainlab` names no launch
        ("scripts/run.sh", 6, "trainlab-tools", "console-script", "not-hydra", None),
        ("scripts/run.sh", 7, "trainlab", "console-script", "hydra", "train"),  # after a flag without a value
    ]


def test_without_the_declaration_the_command_is_no_launch(tmp_path: Path) -> None:
    repo = _repo(tmp_path, pyproject='[project]\nname = "trainlab"\nversion = "0.1"\n')
    assert [i.entry for i in collect(repo, "repo").launches] == ["tools/other.py"]


def test_a_rule_fixes_console_launches_and_a_move_leaves_them_to_the_packaging(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    report = scan(repo, _rules(tmp_path, EPOCHS, MOVE))
    moves = [f for f in report.findings if f.rule == "cli-moved"]
    assert moves == []  # the launch names the command; the package metadata names the module
    capped = sorted((f.path, f.line, f.status) for f in report.findings if f.rule == "epochs-capped")
    assert capped == [("README.md", 4, Status.FIXABLE), ("scripts/run.sh", 3, Status.FIXABLE),
                      ("scripts/run.sh", 4, Status.FIXABLE), ("scripts/run.sh", 5, Status.FIXABLE),
                      ("scripts/run.sh", 6, Status.FIXABLE), ("scripts/run.sh", 7, Status.FIXABLE)]
    write_changes(repo, report)
    assert "trainlab trainer.epochs=2 trainer.seed=7\n" in (repo / "scripts/run.sh").read_text()
    assert "trainlab trainer.epochs=2\n" in (repo / "README.md").read_text()


def test_a_python_argv_runs_a_console_script(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "trainlab/sweep.py").write_text(
        'import subprocess\nsubprocess.run(["trainlab", "trainer.epochs=3"], check=True)\n')
    report = scan(repo, _rules(tmp_path, EPOCHS), paths={"trainlab/sweep.py"})
    assert [(f.line, f.status) for f in report.findings] == [(2, Status.FIXABLE)]


def test_a_cached_result_is_not_kept_when_the_console_scripts_change(tmp_path: Path) -> None:
    repo = _repo(tmp_path, pyproject='[project]\nname = "trainlab"\nversion = "0.1"\n')
    rules = _rules(tmp_path, EPOCHS)

    def run() -> list[tuple[str, int]]:
        cache = ResultCache(tmp_path / "cache", repo, fingerprint(rules))
        report = scan(repo, rules, memo=CachedResults(cache, reuse_changes=True))
        return sorted((f.path, f.line) for f in report.findings if f.path.endswith((".sh", ".md")))

    assert run() == [("scripts/run.sh", 5)]  # only the python3 launch
    (repo / "pyproject.toml").write_text(PYPROJECT)
    git(repo, "commit", "-qam", "declare the console scripts")
    assert run() == [("README.md", 4), ("scripts/run.sh", 3), ("scripts/run.sh", 4), ("scripts/run.sh", 5),
                     ("scripts/run.sh", 6), ("scripts/run.sh", 7)]
    assert run() == sorted((f.path, f.line) for f in scan(repo, rules).findings if f.path.endswith((".sh", ".md")))


def test_a_shell_function_of_the_same_name_is_not_the_console_script(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "scripts/wrap.sh").write_text('#!/bin/bash\ntrainlab() { echo "+ $*"; "$@"; }\n'
                                          "trainlab python3 tools/other.py trainer.epochs=3\n")
    assert [i.entry for i in collect(repo, "repo").launches if i.path == "scripts/wrap.sh"] == []


def test_a_console_script_named_like_a_bash_builtin_is_the_builtin(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PYPROJECT + 'test = "trainlab.cli:train"\n')
    (repo / "scripts/check.sh").write_text('#!/bin/bash\ntest -f out.txt trainer.epochs=3 && echo ok\n')
    assert [i.entry for i in collect(repo, "repo").launches if i.path == "scripts/check.sh"] == []


def test_a_package_beside_its_own_packaging_in_a_monorepo_is_found(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mono", {
        "lab-core/pyproject.toml": '[project]\nname = "lab-core"\nversion = "1"\n',
        "lab-core/src/lab_core/__init__.py": "",
        "lab-core/src/lab_core/train.py": CLI.replace("def evaluate", "def other"),
        "lab-core/src/lab_core/conf/train.yaml": TRAIN,
        "lab-core/src/lab_core/conf/evaluate.yaml": EVALUATE,
        "lab-tools/setup.py": "from setuptools import setup\nsetup(name='lab-tools')\n",
        "lab-tools/lab_tools/__init__.py": "",
        "README.md": "```bash\npython -m lab_core.train trainer.epochs=3\npython -m lab_tools.nothing a=1\n```\n",
    })
    found = [(i.entry, i.cls, i.evidence) for i in collect(repo, "mono").launches]
    assert found == [("lab_core.train", "hydra", "@hydra.main in lab-core/src/lab_core/train.py"),
                     ("lab_tools.nothing", "outside", "module lab_tools.nothing is not in the repository, "
                                                      "though its package lab_tools is (moved or removed?)")]


def test_a_package_found_twice_or_only_under_docs_is_not_chosen(tmp_path: Path) -> None:
    app = CLI.replace("def evaluate", "def other")
    files = {"pkgs/one/pyproject.toml": "[project]\nname = 'one'\n", "pkgs/one/lab/__init__.py": "",
             "pkgs/one/lab/train.py": app, "pkgs/two/setup.py": "from setuptools import setup\nsetup()\n",
             "pkgs/two/lab/__init__.py": "", "pkgs/two/lab/train.py": app,
             "docs/example/pyproject.toml": "[project]\nname = 'demo'\n", "docs/example/demo/__init__.py": "",
             "docs/example/demo/train.py": app,
             "run.sh": "python -m lab.train trainer.epochs=3\npython -m demo.train trainer.epochs=3\n"}
    repo = make_repo(tmp_path / "r", files)
    assert [(i.entry, i.cls) for i in collect(repo, "r").launches] == [("lab.train", "outside"),
                                                                       ("demo.train", "outside")]


def test_script_files_the_packaging_installs_are_commands_that_run_that_file(tmp_path: Path) -> None:
    """setuptools' `script-files`, setup.py's `scripts=[...]` and setup.cfg's `scripts =` install a file
    under its own name: `lab_eval a=1` runs the file, with the `@hydra.main` in it."""
    table = console_scripts([
        ("pyproject.toml", b'[project]\nname = "a"\n\n[tool.setuptools]\nscript-files = ["scripts/lab_eval"]\n'),
        ("sub/setup.py", b'from setuptools import setup\nsetup(name="b", scripts=["bin/b_run", "../../out"])\n'),
        ("other/setup.cfg", b"[options]\nscripts =\n    tools/c_run.py\n"),
    ])
    assert table == {"lab_eval": "./scripts/lab_eval", "b_run": "./sub/bin/b_run", "c_run.py": "./other/tools/c_run.py"}
    app = ('#!/usr/bin/env python\nimport hydra\n\n\n@hydra.main(config_path="../conf", config_name="c", '
           'version_base=None)\ndef main(cfg):\n    pass\n\n\nif __name__ == "__main__":\n    main()\n')
    repo = make_repo(tmp_path / "lab", {
        "scripts/lab_eval": app, "conf/c.yaml": "a:\n  x: 1\n", "run.sh": "lab_eval a.x=2\n",
        "pyproject.toml": ('[project]\nname = "lab"\nversion = "1"\n\n[tool.setuptools]\n'
                           'script-files = ["scripts/lab_eval"]\n')})
    (launch,) = collect(repo, "lab").launches
    assert (launch.cls, launch.evidence) == ("hydra", "@hydra.main in scripts/lab_eval")
