"""compose-check: an app with no config directory and no config name (`@hydra.main(version_base="1.3")`, or
`config_path=None, config_name=None`) composes the empty config and the launch's overrides, as Hydra does;
each verdict is checked against the fixture's app run with hydra-core and against Hydra's compose API."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.engine.scan import compose_scan
from tests.conftest import make_repo

APP = '''\
import hydra


@hydra.main({arguments})
def start(cfg):
    print(sorted(cfg))


if __name__ == "__main__":
    start()
'''
LAUNCHES = ["python app.py", "python app.py +rate=0.5", "python app.py rate=0.5", "python app.py +opt.lr=1 opt.wd=2"]


def _scan(tmp_path: Path, arguments: str, launches: list[str]) -> tuple[list[tuple[int, str]], dict[int, str], int]:
    repo = make_repo(tmp_path / "repo", {"app.py": APP.format(arguments=arguments),
                                         "run.sh": "".join(line + "\n" for line in launches)})
    report, stats = compose_scan(repo)
    return ([(f.line, f.message) for f in report.findings], {line: why for _, line, why in stats.unresolved},
            stats.composed)


def _runs(tmp_path: Path, line: str) -> tuple[int, str]:
    """The fixture's app run for real: its exit code and what it prints, on one line."""
    done = subprocess.run([sys.executable, *line.split()[1:]], cwd=tmp_path / "repo", capture_output=True, text=True,
                          timeout=120, check=False)
    return done.returncode, " ".join((done.stdout + done.stderr).split())


@pytest.mark.parametrize("arguments", ['version_base="1.3"', 'version_base=None, config_path=None, config_name=None'])
def test_an_app_of_no_config_composes_the_overrides_alone(tmp_path: Path, arguments: str) -> None:
    found, unresolved, composed = _scan(tmp_path, arguments, LAUNCHES)
    assert unresolved == {}
    assert composed == 4
    assert [line for line, _ in found] == [3, 4]
    assert found[0][1].startswith("Could not override 'rate'. To append to your config use +rate=0.5 ")
    assert found[1][1].startswith("Could not override 'opt.wd'. To append to your config use +opt.wd=2 ")
    for line, (code, said) in zip(LAUNCHES, [_runs(tmp_path, line) for line in LAUNCHES], strict=True):
        failing = [message for at, message in found if LAUNCHES[at - 1] == line]
        assert (code != 0) == bool(failing), line
        if failing:
            assert failing[0].split(" Key ")[0] in said


def test_hydras_compose_api_says_the_same() -> None:
    from hydra import compose, initialize
    from hydra.errors import ConfigCompositionException

    with initialize(config_path=None, version_base="1.3"):
        assert dict(compose(overrides=["+rate=0.5"])) == {"rate": 0.5}
        with pytest.raises(ConfigCompositionException) as raised:
            compose(overrides=["rate=0.5"])
    assert str(raised.value) == "Could not override 'rate'.\nTo append to your config use +rate=0.5"


@pytest.mark.parametrize("arguments, launch", [
    ("", "python app.py rate=0.5"),  # Hydra 1.1's behaviour: an unspecified config_path is "."
    ('version_base="1.1", config_path=None', "python app.py rate=0.5"),  # not told apart from unspecified
    ('version_base="1.3"', "python app.py --config-name stored rate=0.5"),  # a name: from the config store
    ('version_base="1.3", config_name="stored"', "python app.py rate=0.5"),
])
def test_an_app_whose_config_may_come_from_elsewhere_is_not_composed(tmp_path: Path, arguments: str,
                                                                     launch: str) -> None:
    found, unresolved, _ = _scan(tmp_path, arguments, [launch])
    assert found == []
    assert "declares no config_path" in unresolved[1]
