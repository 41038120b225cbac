"""An entry file that only imports its app and calls it (`pkg/__main__.py`: `from .entry import main`):
the launch runs the `@hydra.main` where the function is defined, with that file's config_path."""

from __future__ import annotations

from pathlib import Path

from bot.engine.launches import collect
from bot.engine.scan import compose_scan
from tests.conftest import make_repo

ENTRY = """\
import hydra


@hydra.main(version_base=None, config_path="conf", config_name="train")
def main(cfg):
    print(cfg)
"""
FILES = {
    "lab/__init__.py": "",
    "lab/core/__init__.py": "from lab.core.entry import main\n",
    "lab/core/entry.py": ENTRY,
    "lab/core/conf/train.yaml": "trainer:\n  epochs: 1\n",
    "lab/__main__.py": "from .core.entry import main\n\nif __name__ == \"__main__\":\n    main()\n",
    "lab/cli.py": "import lab.core.entry as app\n\n\ndef run():\n    app.main()\n\n\nif __name__ == \"__main__\":\n"
                  "    app.main()\n",
    "lab/reexport.py": "from lab.core import main\n\nmain()\n",
    "lab/unused.py": "from lab.core.entry import main\n",
    "pyproject.toml": "[project]\nname = \"lab\"\nversion = \"1\"\n\n[project.scripts]\n"
                      "lab-train = \"lab.core:main\"\n",
    "run.sh": "python -m lab trainer.epochs=2 trainer.stale=1\n"
              "python -m lab.cli trainer.epochs=3\n"
              "python lab/reexport.py trainer.epochs=4\n"
              "lab-train trainer.epochs=5 trainer.gone=1\n"
              "python -m lab.unused trainer.epochs=6\n",
}


def test_a_launch_of_a_file_that_imports_its_app_runs_the_decorated_function(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "lab", FILES)
    launches = collect(repo, "lab").launches
    assert [(launch.line, launch.cls) for launch in launches] == [
        (1, "hydra"), (2, "hydra"), (3, "hydra"), (4, "hydra"), (5, "not-hydra")]
    assert launches[0].evidence == "@hydra.main in lab/core/entry.py (imported by lab/__main__.py)"
    assert launches[1].app is not None and launches[1].app["config_dir"] == "lab/core/conf"
    assert "lab/unused.py has no @hydra.main" in launches[4].evidence  # it imports, and runs nothing


def test_compose_check_finds_stale_keys_through_the_import(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "lab", FILES)
    report, _ = compose_scan(repo)
    assert sorted((f.line, f.key) for f in report.findings) == [(1, "trainer.stale"), (4, "trainer.gone")]


def test_an_imported_helper_called_first_neither_hides_the_app_nor_a_compose_api_app(tmp_path: Path) -> None:
    api = ("import sys\nfrom hydra import compose, initialize\nfrom lab.util import setup\n\n\ndef run():\n"
           "    with initialize(config_path='conf', version_base=None):\n"
           "        cfg = compose(config_name='train', overrides=sys.argv[1:])\n\n\n"
           "if __name__ == '__main__':\n    setup()\n    run()\n")
    files = {**FILES, "lab/util.py": "def setup():\n    pass\n", "lab/api.py": api, "lab/conf/train.yaml": "lr: 1\n",
             "lab/first.py": "from lab.util import setup\nfrom lab.core.entry import main\n\nsetup()\nmain()\n",
             "run.sh": "python lab/api.py lr=2\npython lab/first.py trainer.epochs=2\n"}
    repo = make_repo(tmp_path / "lab", files)
    launches = collect(repo, "lab").launches
    assert [(launch.cls, launch.evidence) for launch in launches] == [
        ("hydra", "the compose API in lab/api.py"),
        ("hydra", "@hydra.main in lab/core/entry.py (imported by lab/first.py)")]


def test_hydra_main_under_another_name_is_the_app(tmp_path: Path) -> None:
    aliased = {
        "conf/train.yaml": "trainer:\n  epochs: 1\n",
        "alias.py": "from hydra import main as hydra_main\n\n\n@hydra_main(config_path='conf', config_name='train',"
                    " version_base=None)\ndef run(cfg):\n    pass\n\n\nif __name__ == '__main__':\n    run()\n",
        "module.py": "import hydra as hy\n\n\n@hy.main(config_path='conf', config_name='train', version_base=None)\n"
                     "def run(cfg):\n    pass\n",
        "wrapped.py": "from dora import hydra_main\n\n\n@hydra_main(config_path='conf', config_name='train',"
                      " version_base=None)\ndef run(cfg):\n    pass\n",
        "other.py": "from mylib import hydra_main\n\n\n@hydra_main(config_path='conf', config_name='train')\n"
                    "def run(cfg):\n    pass\n",
        "run.sh": "python alias.py trainer.epochs=2 trainer.stale=1\npython module.py trainer.epochs=3\n"
                  "python wrapped.py trainer.epochs=4\npython other.py trainer.epochs=5\n",
    }
    repo = make_repo(tmp_path / "aliased", aliased)
    launches = collect(repo, "aliased").launches
    assert [launch.cls for launch in launches] == ["hydra", "hydra", "hydra", "not-hydra"]
    report, _ = compose_scan(repo)
    assert [(f.line, f.key) for f in report.findings] == [(1, "trainer.stale")]
