"""A downstream names its upstream (issue 43, item 1): bot.toml's `upstream` and `pins`, or the upstream
found from the launches; `bot launches` says which launches run it, and at which pin.

Every repository here is a real git repository in a temporary directory: a recipe collection that runs
another project's trainer (`python3 -m verl.trainer.main_ppo`) and extends its config through the search
path, pinning it per folder (a requirement line, a REQUIRED_*.txt file, a README, a date) or as a submodule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.config import load_config
from bot.downstream.requirement import requirement_pin
from bot.errors import UserError
from tests.conftest import git, make_repo

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TRAIN = "#!/bin/bash\npython3 -m verl.trainer.main_ppo \\\n    data.train_batch_size=8 \\\n    trainer.total_epochs=1\n"
OWN_APP = ("import hydra\n\n\n@hydra.main(config_path='conf', config_name='lab', version_base=None)\n"
           "def main(cfg):\n    print(cfg)\n\n\nif __name__ == '__main__':\n    main()\n")
SEARCHING = "#!/bin/bash\npython3 -m lab.main hydra.searchpath=[pkg://verl.trainer.config] trainer.total_epochs=1\n"
FILES = {
    "recipes/pinned/run.sh": TRAIN,
    "recipes/pinned/requirements.txt": f"torch>=2.1\nverl @ git+https://github.com/example/verl.git@{COMMIT}\n",
    "recipes/released/run.sh": TRAIN,
    "recipes/released/REQUIRED_VERL.txt": "0.5.0\n",
    "recipes/readme/run.sh": TRAIN,
    "recipes/readme/README.md": "# A recipe\n\nThis recipe is based on verl commit `ccd7d93`; newer may break it.\n",
    "recipes/rolling/run.sh": TRAIN,
    "recipes/tracking/run.sh": TRAIN,
    "recipes/tracking/README.md": "# Tracking\n\nTested with verl's main branch as of 2026-03-15, on 8 GPUs.\n",
    "lab/__init__.py": "",
    "lab/main.py": OWN_APP,
    "lab/conf/lab.yaml": "trainer:\n  total_epochs: 2\n",
    "tools/search.sh": SEARCHING,
    "tools/own.sh": "#!/bin/bash\npython3 -m lab.main trainer.total_epochs=3\n",
}
BOT_TOML = """\
upstream = "verl"

[[pins]]
kind = "requirements"
path = "recipes/*/requirements*.txt"

[[pins]]
kind = "file"
path = "recipes/*/{REQUIRED_VERL.txt,README.md}"

[[pins]]
kind = "date"
date = 2026-05-01
covers = ["recipes/rolling"]

[[pins]]
kind = "ref"
ref = "v0.4.0"
"""


def launches(capsys: pytest.CaptureFixture[str], repo: Path, *more: str, fmt: str = "json") -> Any:
    code = main(["launches", "--repo", str(repo), "--format", fmt, *more])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out) if fmt == "json" else out


def by_path(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{item['path']}:{item['line']}": item for item in data["launches"]}


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory without a bot.toml: only the repository's own is read."""
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    return here


def test_each_launch_says_whether_it_runs_the_upstream_and_at_which_pin(
        tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "recipes", {**FILES, "bot.toml": BOT_TOML})
    data = launches(capsys, repo)
    assert data["upstream"]["name"] == "verl" and data["upstream"]["source"] == "verl-project/verl"
    assert data["upstream"]["detected"] is False and data["upstream"]["named_in"] == "bot.toml"
    found = by_path(data)
    pins = {where: (item["pin"]["what"], item["pin"]["value"], item["pin"]["kind"]) if item["pin"] else None
            for where, item in found.items()}
    assert pins == {
        "recipes/pinned/run.sh:2": ("commit", COMMIT, "requirements"),
        "recipes/released/run.sh:2": ("version", "0.5.0", "file"),
        "recipes/readme/run.sh:2": ("commit", "ccd7d93", "file"),
        "recipes/rolling/run.sh:2": ("date", "2026-05-01", "date"),
        "recipes/tracking/run.sh:2": ("date", "2026-03-15", "file"),
        "tools/search.sh:2": ("ref", "v0.4.0", "ref"),  # the ref covers the whole repository
        "tools/own.sh:2": None,  # runs the repository's own app only
    }
    assert found["recipes/rolling/run.sh:2"]["pin"]["branch"] == "main"
    assert found["recipes/pinned/run.sh:2"]["pin"]["line"] == 2
    assert found["tools/search.sh:2"]["upstream"] == {"name": "verl", "via": "search path pkg://verl.trainer.config"}
    assert found["recipes/pinned/run.sh:2"]["upstream"]["via"] == "module verl.trainer.main_ppo"
    assert found["tools/own.sh:2"]["upstream"] is None
    assert data["upstream"]["launches"] == 6


def test_the_text_says_it_under_each_launch_and_sums_it_up(
        tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "recipes", {**FILES, "bot.toml": BOT_TOML})
    text = launches(capsys, repo, fmt="text")
    assert ("  runs verl (module verl.trainer.main_ppo), at commit ccd7d93 (recipes/readme/README.md:3)\n"
            in text)
    assert "  runs verl (module verl.trainer.main_ppo), at version 0.5.0 (recipes/released/REQUIRED_VERL.txt:1)" in text
    assert "at date main as of 2026-05-01 (bot.toml)" in text
    assert "upstream verl (github verl-project/verl, named in bot.toml): 6 of 7 launches run it\n" in text


def test_a_submodule_pins_the_upstream_at_the_commit_the_index_records(
        tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upstream = make_repo(tmp_path / "verl", {"verl/__init__.py": "", "verl/trainer/__init__.py": "",
                                             "verl/trainer/main_ppo.py": "print('train')\n"})
    head = git(upstream, "rev-parse", "HEAD").strip()
    repo = make_repo(tmp_path / "recipes", {"run.sh": TRAIN, "bot.toml": (
        'upstream = { source = "../verl", packages = ["verl"] }\n\n'
        '[[pins]]\nkind = "submodule"\npath = "third_party/verl"\n')})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "third_party/verl")
    (repo / "direct.sh").write_text("#!/bin/bash\npython3 third_party/verl/verl/trainer/main_ppo.py a=1\n")
    data = launches(capsys, repo)
    assert by_path(data)["direct.sh:2"]["upstream"]["via"] == (
        "file third_party/verl/verl/trainer/main_ppo.py of the submodule third_party/verl")
    assert by_path(data)["direct.sh:2"]["pin"]["value"] == head
    assert data["upstream"]["source_kind"] == "path"
    assert data["upstream"]["source"] == str(upstream.resolve())
    pin = by_path(data)["run.sh:2"]["pin"]
    assert pin == {"kind": "submodule", "file": "third_party/verl", "line": None, "what": "commit", "value": head,
                   "covers": "."}


def test_found_from_the_launches_with_the_pins_in_their_usual_places(
        tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No bot.toml: the registry's verl, because launches run its package and the repository has none;
    the pins: a requirements file at the root, a pyproject of one folder, a REQUIRED_VERL.txt of another."""
    repo = make_repo(tmp_path / "recipes", {
        "run.sh": TRAIN, "requirements-verl.txt": f"verl @ git+https://github.com/volcengine/verl@{COMMIT}\n",
        "a/run.sh": TRAIN, "a/pyproject.toml": '[project]\nname = "a"\ndependencies = [\n  "verl>=0.4,<0.6",\n]\n',
        "b/run.sh": TRAIN, "b/REQUIRED_VERL.txt": "# the verl main this folder was last run with\n2026-04-30\n"})
    data = launches(capsys, repo)
    assert data["upstream"]["detected"] is True and data["upstream"]["named_in"] is None
    pins = {where: (item["pin"]["what"], item["pin"]["value"]) for where, item in by_path(data).items()}
    assert pins == {"run.sh:2": ("commit", COMMIT), "a/run.sh:2": ("range", ">=0.4,<0.6"),
                    "b/run.sh:2": ("date", "2026-04-30")}
    assert by_path(data)["a/run.sh:2"]["pin"]["line"] == 4


@pytest.mark.parametrize("search", ["pkg://verl.trainer.config", "file://verl/trainer/config"])
def test_a_config_that_extends_the_upstreams_through_its_search_path_runs_it(
        tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str], search: str) -> None:
    """Through a package, or through the upstream's directory in the working directory (verl's recipes)."""
    repo = make_repo(tmp_path / "recipes", {
        "lab/__init__.py": "", "lab/main.py": OWN_APP,
        "run.sh": "#!/bin/bash\npython3 -m lab.main trainer.total_epochs=1\n",
        "lab/conf/lab.yaml": f"defaults:\n  - ppo_trainer\n  - _self_\nhydra:\n  searchpath:\n    - {search}\n"})
    data = launches(capsys, repo)
    assert data["upstream"]["detected"] is True
    assert by_path(data)["run.sh:2"]["upstream"] == {"name": "verl", "via": f"search path {search}"}


def test_no_upstream_no_new_field(tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A repository that runs only its own package, or holds the package its launches run (the upstream
    itself, or a fork), has no upstream: its output is what it was before."""
    own = make_repo(tmp_path / "own", {k: v for k, v in FILES.items() if k.startswith(("lab/", "tools/own"))})
    holds = make_repo(tmp_path / "holds", {"run.sh": TRAIN, "verl/__init__.py": "", "verl/trainer/__init__.py": ""})
    for repo in (own, holds):
        data = launches(capsys, repo)
        assert "upstream" not in data
        assert all(set(item) & {"upstream", "pin"} == set() for item in data["launches"])
        assert "upstream" not in launches(capsys, repo, fmt="text")


def test_a_registry_entry_names_the_upstream_of_a_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "recipes", {"run.sh": TRAIN.replace("verl.", "corelib.")})
    (tmp_path / "bot.toml").write_text('[repos.recipes]\npath = "recipes"\n'
                                       'upstream = { source = "https://git.example/core-lib.git", '
                                       'packages = ["corelib"], distribution = "core-lib" }\n\n'
                                       '[[repos.recipes.pins]]\nkind = "ref"\nref = "release-2"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    data = launches(capsys, repo)
    assert (data["upstream"]["source_kind"], data["upstream"]["distribution"]) == ("git", "core-lib")
    assert by_path(data)["run.sh:2"]["pin"]["value"] == "release-2"
    assert by_path(data)["run.sh:2"]["upstream"]["via"] == "module corelib.trainer.main_ppo"


@pytest.mark.parametrize(("toml", "message"), [
    ('upstream = 3\n', "bot.toml: upstream: expected a string"),
    ('pins = []\n', "bot.toml: pins: pins without an upstream"),
    ('upstream = "verl"\n[[pins]]\nkind = "tag"\n', "bot.toml: pins[1].kind: expected one of date, file, pyproject, "
     "ref, requirements, submodule, got 'tag'"),
    ('upstream = "verl"\n[[pins]]\nkind = "date"\ndate = "May 1"\n', "bot.toml: pins[1].date: expected a date as "
     "YYYY-MM-DD"),
    ('upstream = "verl"\n[[pins]]\nkind = "ref"\n', "bot.toml: pins[1].ref: missing"),
    ('upstream = "verl"\n[[pins]]\nkind = "ref"\nref = "v1"\npath = "x"\n', "bot.toml: pins[1].path: unknown field "
     "for kind ref; expected covers, kind, ref"),
    ('upstream = "verl"\n[[pins]]\nkind = "file"\npath = "../x"\n', "bot.toml: pins[1].path: expected a path inside"),
    ('upstream = { source = "verl", packages = ["a-b"] }\n', "bot.toml: upstream.packages: expected a list of Python"),
    ('[defaults]\nupstream = "verl"\n', "bot.toml: defaults.upstream: not a default"),
    ('[repos.x]\npath = "."\nupstream = "verl"\nextra = 1\n', "bot.toml: repos.x.extra: unknown field"),
])
def test_a_bad_value_is_one_line_naming_the_file_and_the_key(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "bot.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_config(cwd=tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / message.split(': ', 1)[0]}: {message.split(': ', 1)[1]}")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("toml", "message"), [
    ('upstream = "../nowhere"\n', "bot.toml: upstream: '../nowhere' is not a name in the registry"),
    ('upstream = "verl"\n[[pins]]\nkind = "requirements"\npath = "pins/*.txt"\n',
     "bot.toml: pins[1].path: no file of the repository matches 'pins/*.txt'"),
    ('upstream = "verl"\n[[pins]]\nkind = "submodule"\npath = "third_party/verl"\n',
     "bot.toml: pins[1].path: no submodule at 'third_party/verl'"),
])
def test_an_upstream_or_pin_that_cannot_be_found_is_one_line_with_exit_2(
        tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str], toml: str, message: str) -> None:
    repo = make_repo(tmp_path / "recipes", {"run.sh": TRAIN, "bot.toml": toml})
    code = main(["launches", "--repo", str(repo)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{repo / 'bot.toml'}: {message.split(': ', 1)[1]}" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(("line", "pin"), [
    ("verl==0.4.1", ("version", "0.4.1")),
    ("Verl[gpu] >= 0.3, < 0.5 ; python_version > '3.9'", ("range", ">=0.3,<0.5")),
    ("verl", ("any", "")),
    (f"verl @ git+https://github.com/volcengine/verl.git@{COMMIT}", ("commit", COMMIT)),
    ("verl @ git+https://github.com/volcengine/verl@v0.5.0", ("ref", "v0.5.0")),
    ("-e git+https://github.com/volcengine/verl.git@abc1234#egg=verl", ("commit", "abc1234")),
    ("pip install -U verl==0.5.0", ("version", "0.5.0")),
    ("verl-tools==1.0", None),
    ("verl Implementation Authors: [A](https://example.invalid)", None),
    ("verl is a library for post-training", None),
    ("torch==2.1  # pinned for verl", None),
    ("git+https://github.com/example/other.git@main", None),
])
def test_a_requirement_line(line: str, pin: tuple[str, str] | None) -> None:
    assert requirement_pin(line, "verl", ("verl",)) == pin


def test_run_from_inside_the_downstream_its_bot_toml_is_read_once_and_says_the_same(
        tmp_path: Path, elsewhere: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "recipes", {**FILES, "bot.toml": BOT_TOML})
    outside = launches(capsys, repo)
    monkeypatch.chdir(repo)
    inside = launches(capsys, Path("."))
    assert inside["launches"] == outside["launches"] and inside["upstream"] == outside["upstream"]
