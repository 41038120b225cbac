"""A check in a module only some apps load runs only for their launches: the inferred rule says so
(`when.imports`), and a scan applies it only to launches whose entry point loads that module."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.lang.python.imports import closure, imported, module_of
from bot.upstream.infer import Inference, infer
from tests.conftest import git, make_repo

MAIN = '''\
import hydra


@hydra.main(config_path="config", config_name="app", version_base=None)
def main(config):
    from pkg.{worker} import Worker
    Worker(config).run()
'''
WORKER = '''\
class Worker:
    def __init__(self, config):
        self.config = config

    def run(self):
{body}
'''
CHECK = "        assert self.config.data.batch == 0, 'batch must be zero'\n"
YAML = "data:\n  batch: 8\n"
SCRIPTS = {"run_plain.sh": "python3 -m pkg.main_plain data.batch=16\n",
           "run_streaming.sh": "python3 -m pkg.main_streaming data.batch=16\n"}


def _tree(streaming_check: str = "        pass\n", shared_check: str = "        pass\n") -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/config/app.yaml": YAML,
            "pkg/main_plain.py": MAIN.format(worker="shared"),
            "pkg/main_streaming.py": MAIN.format(worker="streaming"),
            "pkg/shared.py": WORKER.format(body=shared_check),
            "pkg/streaming.py": "from pkg import shared  # noqa\n\n" + WORKER.format(body=streaming_check),
            **SCRIPTS}


def _change(tmp_path: Path, after: dict[str, str]) -> tuple[Path, Inference]:
    repo = make_repo(tmp_path / "r", _tree())
    before = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in after.items():
        (repo / rel).write_text(text)
    git(repo, "commit", "-qam", "change")
    return repo, infer(repo, before, git(repo, "rev-parse", "HEAD").strip(), [])


def test_imports_are_read_from_the_statements_text() -> None:
    text = ("import os, a.b as ab\nfrom . import sibling\nfrom ..up import (\n    one,  # first\n    two,\n)\n"
            "def f():\n    from pkg.lazy import thing\n")
    assert imported(text, "pkg.sub.mod", False) == {
        "os", "a", "a.b", "pkg.sub", "pkg.sub.sibling", "pkg", "pkg.up", "pkg.up.one", "pkg.up.two",
        "pkg.lazy", "pkg.lazy.thing"}
    assert module_of("src/pkg/__init__.py") == ("pkg", True)
    assert module_of("docs/conf-1.py") is None
    graph = {"pkg": set(), "pkg.a": {"pkg.b", "numpy"}, "pkg.b": {"pkg.a"}}
    assert closure("pkg.a", graph.get) == {"pkg", "pkg.a", "pkg.b"}


def test_a_check_only_one_app_loads_is_scoped_to_launches_that_load_it(tmp_path: Path) -> None:
    _, inference = _change(tmp_path, {"pkg/streaming.py": _tree(streaming_check=CHECK)["pkg/streaming.py"]})
    (proposal,) = inference.proposals
    assert proposal.rule["when"] == {"imports": ["pkg.streaming"]}
    assert "Only apps that load `pkg.streaming` run it." in proposal.rule["description"]


def test_a_check_every_app_loads_is_not_scoped(tmp_path: Path) -> None:
    _, inference = _change(tmp_path, {"pkg/shared.py": _tree(shared_check=CHECK)["pkg/shared.py"]})
    (proposal,) = inference.proposals
    assert "when" not in proposal.rule


def test_the_scan_fixes_only_the_launch_whose_entry_point_loads_the_module(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = _change(tmp_path, {"pkg/streaming.py": _tree(streaming_check=CHECK)["pkg/streaming.py"]})
    rules = tmp_path / "rules"
    assert main(["infer", "--repo", str(repo), "--before", "HEAD~1", "--after", "HEAD", "--no-bundled",
                 "--output", str(rules)]) == 0
    (rule_file,) = rules.glob("*.yaml")
    assert (rules / rule_file.stem / "inferred.loads.txt").read_text() == "pkg.streaming\n"
    assert main(["rules", "test", "--no-bundled", "--rules", str(rules), "--tests", str(rules)]) == 0
    capsys.readouterr()
    assert main(["run", "--repo", str(repo), "--no-bundled", "--rules", str(rules), "--write", "--no-cache"]) == 0
    assert (repo / "run_streaming.sh").read_text() == "python3 -m pkg.main_streaming data.batch=0\n"
    assert (repo / "run_plain.sh").read_text() == SCRIPTS["run_plain.sh"]

