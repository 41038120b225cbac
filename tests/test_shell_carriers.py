"""Launches hidden behind coverage, behind paths a script computes from its own location, and carried in a
variable into a script that runs it (issue 44). Our own fixtures: a small app `loom` with a Hydra config."""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

import pytest

from bot.cli import main
from bot.lang.shell.parse import analyse
from tests.conftest import make_repo

APP = '''\
import hydra


@hydra.main(config_path="conf", config_name="weave", version_base=None)
def weave(cfg):
    print(cfg.threads)
'''
TREE = {
    "loom/__init__.py": "",
    "loom/app.py": APP,
    "loom/conf/weave.yaml": "threads: 4\nshuttle:\n  speed: 2\n",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def launches(capsys: pytest.CaptureFixture[str], repo: Path) -> list[dict[str, object]]:
    code, out, err = run(capsys, "launches", "--repo", str(repo), "--format", "json")
    assert code == 0, err
    return [{**{k: launch[k] for k in ("path", "line", "launcher", "entry", "entry_kind", "class")},
             "overrides": [o["text"] for o in launch["overrides"]]} for launch in json.loads(out)["launches"]]


def compose_findings(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[list[tuple[str, int, str]], str]:
    code, out, err = run(capsys, "compose-check", "--repo", str(repo), "--format", "json", "--verbose")
    assert code == 0, err
    return [(f["path"], f["line"], f["key"]) for f in json.loads(out)["findings"]], err


def entries(script: str, path: str | None = None) -> list[tuple[str, str | None, str, list[str]]]:
    """(launcher, entry, entry kind, override texts) of each launch the script makes."""
    return [(launch.launcher, launch.entry, launch.entry_kind, [o.text for o in launch.overrides])
            for launch in analyse(script.encode(), path=path).launches]


# -- coverage run, as a launcher ---------------------------------------------------------------------


def test_coverage_run_skips_its_own_options_to_the_script_and_its_overrides() -> None:
    assert entries("coverage run --source=loom -p --rcfile setup.cfg --branch loom/app.py threads=2\n") == [
        ("coverage run", "loom/app.py", "script", ["threads=2"])]


def test_coverage_run_module_mode_is_a_module_launch() -> None:
    assert entries("coverage run -p -m loom.app shuttle.speed=3\n") == [
        ("coverage run", "loom.app", "module", ["shuttle.speed=3"])]
    assert entries("coverage run -am loom.app threads=1\n") == [
        ("coverage run", "loom.app", "module", ["threads=1"])]


def test_coverage_behind_python_and_uv_is_the_same_launch() -> None:
    assert entries("python3 -m coverage run --omit 'tests/*' loom/app.py threads=2\n") == [
        ("python -m coverage run", "loom/app.py", "script", ["threads=2"])]
    assert entries("uv run --frozen coverage run -m loom.app threads=2\n") == [
        ("uv", "loom.app", "module", ["threads=2"])]


def test_coverage_commands_other_than_run_and_coverage_of_a_tool_are_no_launch() -> None:
    assert entries("coverage report -m\ncoverage combine\npython -m coverage html\n"
                   "coverage run -m pytest tests/test_x.py\nuv run coverage xml\n") == []


def test_coverage_launches_are_listed_and_composed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "ci.sh": "coverage run --source=loom loom/app.py threads=2\n"
                                                       "python -m coverage run -p -m loom.app shuttle.sped=1\n"
                                                       "uv run coverage run loom/app.py thread=1\n"})
    found = launches(capsys, repo)
    assert [(f["line"], f["entry"], f["class"], f["overrides"]) for f in found] == [
        (1, "loom/app.py", "hydra", ["threads=2"]), (2, "loom.app", "hydra", ["shuttle.sped=1"]),
        (3, "loom/app.py", "hydra", ["thread=1"])]
    findings, err = compose_findings(capsys, repo)
    assert "not checked" not in err, err
    assert findings == [("ci.sh", 2, "shuttle.sped"), ("ci.sh", 3, "thread")]


# -- paths from the script's own location ------------------------------------------------------------


def test_realpath_of_the_script_directory_and_dotdot_names_the_entry_beside_it() -> None:
    (launch,) = analyse(b'python "$(realpath "$(dirname "$0")/..")/app.py" threads=1\n',
                        path="loom/tools/go.sh", whole_script=True).launches
    assert (launch.entry, launch.entry_base, [o.text for o in launch.overrides]) == (
        "../app.py", "script-dir", ["threads=1"])


def test_basename_of_the_script_directory_is_read_from_the_script_path() -> None:
    script = b'CONFIG_PATH=$(basename $(dirname $0))\npython loom/app.py --config-path=$CONFIG_PATH threads=1\n'
    (launch,) = analyse(script, path="loom/conf/run.sh", whole_script=True).launches
    assert launch.config_path == "conf"
    (snippet,) = analyse(script, path="README.md").launches  # a doc's snippet has no `$0` of its own
    assert snippet.config_path != "conf"


def test_script_relative_launches_are_composed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {
        **TREE,
        "loom/tools/go.sh": 'python "$(realpath "$(dirname "$0")/..")/app.py" thread=1\n',
        "loom/tools/dir.sh": 'SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)\n'
                             'ROOT=$(realpath "$SCRIPT_DIR/..")\n'
                             'python $ROOT/app.py shuttle.speed=5 shutle=1\n',
        # the script's own directory names the config directory beside the app: loom/conf
        "loom/conf/run.sh": 'CONFIG_PATH=$(basename $(dirname $0))\n'
                            'python loom/app.py --config-path=$CONFIG_PATH --config-name weave thred=2\n',
    })
    found = launches(capsys, repo)
    assert [(f["path"], f["entry"], f["class"]) for f in found] == [
        ("loom/conf/run.sh", "loom/app.py", "hydra"), ("loom/tools/dir.sh", "../app.py", "hydra"),
        ("loom/tools/go.sh", "../app.py", "hydra")]
    findings, err = compose_findings(capsys, repo)
    assert "not checked" not in err, err
    assert findings == [("loom/conf/run.sh", 2, "thred"), ("loom/tools/dir.sh", 3, "shutle"),
                        ("loom/tools/go.sh", 1, "thread")]


@pytest.mark.parametrize("word", [
    '"$(cd "$HERE/../.." && pwd)/loom/app.py"',
    '"$(cd "$HERE"/../..; pwd)/loom/app.py"',
    '"$(cd "$HERE/../.." >/dev/null 2>&1 && pwd -P)/loom/app.py"',
    '$(readlink -f "$HERE/../..")/loom/app.py',
    '"$(dirname "$(dirname "$HERE")")/loom/app.py"',
])
def test_script_directory_through_a_variable_and_each_reader(word: str) -> None:
    script = f'HERE="$(dirname "${{BASH_SOURCE[0]}}")"\npython {word} threads=1\n'
    (launch,) = analyse(script.encode(), path="jobs/x/go.sh", whole_script=True).launches
    assert (posixpath.normpath(launch.entry), launch.entry_base) == ("../../loom/app.py", "script-dir")


def test_plain_readlink_and_other_commands_stay_run_time_values() -> None:
    for word in ('"$(readlink "$(dirname "$0")/..")/app.py"', '"$(ls "$(dirname "$0")")/app.py"'):
        (launch,) = analyse(f"python {word} threads=1\n".encode(), path="loom/tools/go.sh",
                            whole_script=True).launches
        assert launch.entry_base is None


# -- a launch carried in a variable into a script that runs it ------------------------------------------

JOB = "#!/bin/bash\n#SBATCH --nodes=1\nset -e\nsrun $COMMAND\n"


def test_a_launch_carried_to_a_job_script_is_the_callers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {
        **TREE, "jobs/job.sub": JOB, "jobs/eval.sh": 'cd "$WORK"\neval "$TASK"\n',
        "jobs/idle.sub": "#!/bin/bash\necho $COMMAND\n",
        "submit.sh": 'COMMAND="python loom/app.py threads=2 shuttle.sped=1" sbatch --job-name weave jobs/job.sub\n'
                     'TASK="python -m loom.app thred=3" bash jobs/eval.sh\n'
                     'COMMAND="python loom/app.py thread=4" sbatch jobs/idle.sub\n',  # idle.sub never runs it
    })
    found = launches(capsys, repo)
    assert [(f["path"], f["line"], f["entry"], f["class"], f["overrides"]) for f in found] == [
        ("submit.sh", 1, "loom/app.py", "hydra", ["threads=2", "shuttle.sped=1"]),
        ("submit.sh", 2, "loom.app", "hydra", ["thred=3"])]
    findings, err = compose_findings(capsys, repo)
    assert "not checked" not in err, err
    assert findings == [("submit.sh", 1, "shuttle.sped"), ("submit.sh", 2, "thred")]


def test_runs_variable_reads_the_forms_a_script_runs_a_command_in() -> None:
    from bot.lang.shell.carried import runs_variable

    for text in ("$CMD\n", '  "${CMD}" --extra\n', "eval $CMD\n", 'srun --ntasks 2 "$CMD"\n', "exec ${CMD}; x\n"):
        assert runs_variable(text, "CMD"), text
    for text in ("echo $CMD\n", "CMD=1\n", "$CMDX\n", "python $CMD\n", "# $CMD\n"):
        assert not runs_variable(text, "CMD"), text


def test_an_exported_launch_reaches_the_script_run_after_it(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {
        **TREE, "jobs/job.sh": 'echo "running"\n$COMMAND\n',
        # COMMAND is still exported when job.sh runs again; RUN is not exported, and job.sh ignores it anyway
        "submit.sh": 'export COMMAND="python loom/app.py shuttle.speed=2 shutle.speed=3"\nbash jobs/job.sh\n'
                     'RUN="python loom/app.py threads=1"\nbash jobs/job.sh\n',
    })
    found = launches(capsys, repo)
    assert [(f["path"], f["line"], f["entry"], f["overrides"]) for f in found] == [
        ("submit.sh", 2, "loom/app.py", ["shuttle.speed=2", "shutle.speed=3"]),
        ("submit.sh", 4, "loom/app.py", ["shuttle.speed=2", "shutle.speed=3"])]
    findings, err = compose_findings(capsys, repo)
    assert "not checked" not in err, err
    assert findings == [("submit.sh", 1, "shutle.speed")]  # the finding is where the caller writes the key


def test_the_script_that_runs_a_carried_launch_is_read_for_the_caller(tmp_path: Path) -> None:
    from bot.context import ScanContext
    from bot.lang import front_end

    repo = make_repo(tmp_path / "r", {**TREE, "jobs/job.sub": JOB})
    data = b'COMMAND="python loom/app.py threads=2" sbatch jobs/job.sub\n'
    reading = front_end("submit.sh", "shell", ScanContext(root=repo.resolve())).read(data)
    assert reading.launches == 1
    assert "jobs/job.sub" in reading.reads  # a change to job.sub re-reads submit.sh from the cache
