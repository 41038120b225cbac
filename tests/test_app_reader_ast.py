"""The app reader on the stdlib's `ast` (issue 41): an entry file's `@hydra.main` arguments, its compose-API
calls and its path expressions read as the libcst reader read them, each file parsed once per scan and
text, in the scan's context."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.context import ScanContext
from bot.hydra.api_app import ApiApp, Source, compose_api_app
from bot.hydra.decorator import COMPUTED, hydra_main_arguments, too_deep_to_read, version_base_of
from bot.hydra.markers import CWD
from bot.hydra.python_file import PythonFile, python_file

# (the file's text, the function asked for, (config_path, config_name, found), version_base)
DECORATED = {
    "keywords": ('import hydra\n\n@hydra.main(config_path="conf", config_name="train", version_base=None)\n'
                 'def main(cfg):\n    pass\n', None, ("conf", "train", True), None),
    "positional": ('import hydra\n\n@hydra.main("conf", "train")\ndef main(cfg):\n    pass\n', None,
                   ("conf", "train", True), "1.1"),
    "version string": ('import hydra\n\n@hydra.main(version_base="1.3", config_path="c", config_name="x.yaml")\n'
                       'def main(cfg):\n    pass\n', None, ("c", "x.yaml", True), "1.3"),
    "imported as": ('from hydra import (\n    main as hydra_main,  # the decorator\n)\n\n'
                    '@hydra_main(config_path="../conf", config_name="a")\ndef run(cfg):\n    pass\n', None,
                    ("../conf", "a", True), "1.1"),
    "module alias": ('import hydra as h\n\n@h.main(config_path="conf", config_name="b")\ndef run(cfg):\n    pass\n',
                     None, ("conf", "b", True), "1.1"),
    "dora": ('from dora import hydra_main\n\n@hydra_main(config_path="config", config_name="train")\n'
             'def main(cfg):\n    pass\n', None, ("config", "train", True), "1.1"),
    "no decorator": ('import hydra\n\ndef main(cfg):\n    pass\n', None, (None, None, False), None),
    "first in the file": ('import hydra\n\nclass Runner:\n    @hydra.main(config_path="one", config_name="x")\n'
                          '    def go(self, cfg):\n        pass\n\n'
                          '@hydra.main(config_path="two", config_name="y")\ndef main(cfg):\n    pass\n', None,
                          ("one", "x", True), "1.1"),
    "the named function's": ('import hydra\n\n@hydra.main(config_path="one", config_name="x")\ndef a(cfg):\n'
                             '    pass\n\n@hydra.main(config_path="two", config_name="y")\nasync def b(cfg):\n'
                             '    pass\n', "b", ("two", "y", True), "1.1"),
    "os.path.join": ('import os\nimport hydra\n\n@hydra.main(config_path=os.path.join(os.path.dirname(__file__), '
                     '"..", "configs"), config_name="t")\ndef main(cfg):\n    pass\n', None,
                     ("../configs", "t", True), "1.1"),
    "pathlib": ('from pathlib import Path\nimport hydra\n\n@hydra.main(config_path=str(Path(__file__).parent / '
                '"conf"), config_name="t")\ndef main(cfg):\n    pass\n', None, ("conf", "t", True), "1.1"),
    "module-level name": ('from pathlib import Path\nimport hydra\n\nCONFIG_DIR = Path(__file__).resolve()'
                          '.parents[1] / "configs"\n\n@hydra.main(config_path=str(CONFIG_DIR), config_name="t")\n'
                          'def main(cfg):\n    pass\n', None, ("../configs", "t", True), "1.1"),
    "a name bound twice": ('import hydra\n\nCONF = "a"\nif True:\n    CONF = "b"\n\n'
                           '@hydra.main(config_path=CONF, config_name="t")\ndef main(cfg):\n    pass\n', None,
                           (COMPUTED, "t", True), "1.1"),
    "the working directory": ('import os\nimport hydra\n\n@hydra.main(config_path=os.path.join(os.getcwd(), '
                              '"conf"), config_name="t")\ndef main(cfg):\n    pass\n', None,
                              (f"{CWD}/conf", "t", True), "1.1"),
    "computed": ('import hydra\n\n@hydra.main(config_path=where(), config_name=NAME + "x")\ndef main(cfg):\n'
                 '    pass\n', None, (COMPUTED, COMPUTED, True), "1.1"),
    "not python": ('import hydra\n\n@hydra.main(config_path="conf"\ndef main(cfg):\n', None,
                   (None, None, False), None),
}


@pytest.mark.parametrize("shape", sorted(DECORATED))
def test_the_decorator_is_read_as_before(tmp_path: Path, shape: str) -> None:
    text, function, arguments, version = DECORATED[shape]
    path = tmp_path / "app.py"
    path.write_text(text, encoding="utf-8")
    context = ScanContext(root=tmp_path)
    assert hydra_main_arguments(context, path, function) == arguments
    assert version_base_of(context, path, function) == version


ARGPARSE = '''\
import argparse
from hydra import compose, initialize, initialize_config_dir

parser = argparse.ArgumentParser()
parser.add_argument("--config-path", "--cp", default="conf")
parser.add_argument("--config-name", dest="name", default="train")
parser.add_argument("--dir")
args, overrides = parser.parse_known_args()
if args.dir:
    initialize_config_dir(config_dir=args.dir)
else:
    initialize(config_path=args.config_path, version_base=None)
cfg = compose(config_name=args.name, overrides=overrides)
'''
COMPOSE_API = {
    "behind argparse": (ARGPARSE, ApiApp(
        "config_dir", Source(options=("--dir",)), Source(options=("--config-name",), default="train"),
        others=(("config_path", Source(options=("--config-path", "--cp"), default="conf")),))),
    "literals in a with block": ('from hydra import compose, initialize_config_module\n\n'
                                 'with initialize_config_module("pkg.conf", version_base=None):\n'
                                 '    cfg = compose("train", overrides=["a=1"])\n',
                                 ApiApp("config_module", Source(literal="pkg.conf"), Source(literal="train"))),
    "OmegaConf.load": ('import sys\nfrom omegaconf import OmegaConf\n\ncfg = OmegaConf.load(sys.argv[1])\n', None),
    "OmegaConf.load of an option": ('import argparse\nfrom omegaconf import OmegaConf\n\n'
                                    'p = argparse.ArgumentParser()\np.add_argument("--config", default="c.yaml")\n'
                                    'args = p.parse_args()\n'
                                    'cfg = OmegaConf.load(args.config)\n',
                                    ApiApp("", Source(), Source(), Source(options=("--config",), default="c.yaml"))),
    "no compose call": ('from hydra import initialize\n\ninitialize(config_path="conf")\n', None),
}


@pytest.mark.parametrize("shape", sorted(COMPOSE_API))
def test_the_compose_api_is_read_as_before(tmp_path: Path, shape: str) -> None:
    text, app = COMPOSE_API[shape]
    path = tmp_path / "entry.py"
    path.write_text(text, encoding="utf-8")
    assert compose_api_app(ScanContext(root=tmp_path), path) == app


def test_a_file_nested_deeper_than_the_bot_parses_is_no_app_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "deep.py"
    path.write_text('import hydra\n\n@hydra.main(config_path="conf", config_name="t")\ndef main(cfg):\n'
                    f'    x = {" and ".join(["a"] * 2100)}\n', encoding="utf-8")  # CPython reads it; libcst would not
    context = ScanContext(root=tmp_path)
    assert hydra_main_arguments(context, path) == (None, None, False)
    assert compose_api_app(context, path) is None
    assert (too_deep_to_read(context, path) or "").startswith("Python nested or chained deeper than the bot parses")


def test_each_text_is_parsed_once_per_scan_and_never_shared_between_scans(tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    path.write_text(DECORATED["keywords"][0], encoding="utf-8")
    first, second = ScanContext(root=tmp_path), ScanContext(root=tmp_path)
    read = python_file(first, path)
    hydra_main_arguments(first, path)
    version_base_of(first, path)
    assert python_file(first, path) is read and read.tree is not None
    assert [k for k, v in first.apps.items() if isinstance(v, PythonFile)] == [("python", read.text)]
    assert python_file(second, path) is not read
    path.write_text(DECORATED["positional"][0], encoding="utf-8")  # the file changed: its new text is read
    assert hydra_main_arguments(first, path) == ("conf", "train", True)
