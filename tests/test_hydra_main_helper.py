"""`@hydra.main(**helper(...))`: the decorator's arguments made by a function of the repository, read as
bot.hydra.main_helper states; our own fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import make_repo

HELPERS = '''\
import hydra


def hydra_kwargs(config_path: str = "settings", config_name: str = "main"):
    """Adds version_base where the installed Hydra knows it."""
    made = {"config_path": config_path, "config_name": config_name}
    try:
        if hydra.__version__ >= "1.2":
            made["version_base"] = None
    except ValueError:
        pass
    return made


def merged_kwargs(**extra):
    made = {"config_path": "settings"}
    made.update(extra)
    return made
'''
CONFIG = {"kiln/settings/main.yaml": "defaults:\n  - oven: small\n  - _self_\nbatch: 4\nlabel: loaf\n",
          "kiln/settings/oven/small.yaml": "heat: 180\n",
          "kiln/settings/oven/large.yaml": "heat: 240\nracks: 3\n"}


def app(decorator: str, imports: str = "from kiln.tools import hydra_kwargs\n") -> str:
    return f"import hydra\n{imports}\n\n@hydra.main({decorator})\ndef bake(cfg):\n    print(cfg)\n"


def compose_check(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[list[tuple[int, str | None]], str]:
    code = main(["compose-check", "--repo", str(repo), "--format", "json", "--verbose"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return [(f["line"], f.get("key")) for f in json.loads(out)["findings"]], err


def test_arguments_passed_through_a_helper_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**CONFIG, "kiln/__init__.py": "", "kiln/tools.py": HELPERS,
                                      "kiln/bake.py": app('**hydra_kwargs(config_path="settings")'),
                                      "kiln/named.py": app('**hydra_kwargs("settings", "main")',
                                                           "from .tools import hydra_kwargs\n"),
                                      "run.sh": "python kiln/bake.py batch=8 oven=large oven.racks=2\n"
                                                "python kiln/bake.py batchsize=8\n"
                                                "python kiln/named.py oven.heat=200 oven.racks=1\n"})
    found, err = compose_check(capsys, repo)
    assert "not checked" not in err, err
    assert found == [(2, "batchsize"), (3, "oven.racks")]  # each launch composed with the helper's settings/main


def test_a_helper_that_builds_its_dict_otherwise_is_not_read(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**CONFIG, "kiln/__init__.py": "", "kiln/tools.py": HELPERS,
                                      "kiln/merged.py": app('**merged_kwargs(config_name="main")',
                                                            "from kiln.tools import merged_kwargs\n"),
                                      "kiln/local.py": app('**local_kwargs()', "from elsewhere import local_kwargs\n"),
                                      "run.sh": "python kiln/merged.py batchsize=8\n"
                                                "python kiln/local.py batchsize=8\n"})
    found, err = compose_check(capsys, repo)
    assert found == []
    assert ("run.sh:1: launch not checked: kiln/merged.py: the app computes its config_path (through merged_kwargs"
            " of kiln/tools.py: called with arguments it does not name); it is known at run time") in err
    assert ("run.sh:2: launch not checked: kiln/local.py: the app computes its config_path (through local_kwargs is "
            "imported from elsewhere, which is not in the repository); it is known at run time") in err


def test_compose_check_files_composes_only_those_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {**CONFIG, "kiln/bake.py": app('config_path="settings", config_name="main", '
                                                                    "version_base=None", ""),
                                      "a.sh": "python kiln/bake.py batchsize=8\n",
                                      "b.sh": "python kiln/bake.py labels=x\n"})
    monkeypatch.chdir(repo)
    for files, expected in ((["a.sh"], [("a.sh", "batchsize")]), ([str(repo / "b.sh")], [("b.sh", "labels")]),
                            ([], [])):
        code = main(["compose-check", "--repo", ".", "--format", "json", "--files", *files])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert [(f["path"], f["key"]) for f in json.loads(out)["findings"]] == expected
        assert f"compose-check: {len(expected)} of {len(expected)} launches composed" in err
    assert main(["compose-check", "--repo", ".", "--since", "HEAD", "--files", "a.sh"]) == 2
    assert "--files: not with --since" in capsys.readouterr().err
