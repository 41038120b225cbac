"""Shapes found in real repositories: launchers from arrays and variables, Hydra flags in every
spelling, search paths, tilde, and a run that survives any one bad file. Our own fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.lang.shell.parse import analyse
from tests.conftest import make_repo

APP = '''\
import hydra


@hydra.main(config_path="conf", config_name="base", version_base=None)
def main(cfg):
    train(cfg)
'''
DERIVED_APP = '''\
import hydra


@hydra.main(config_path="conf", config_name="derived", version_base=None)
def main(cfg):
    train(cfg)
'''
TREE = {
    "rlkit/train.py": APP,
    "rlkit/conf/base.yaml": "defaults:\n  - engine: fsdp\n  - _self_\n"
                            "run:\n  epochs: 3\n  data_dir: /data\nengine_opts:\n  use_bridge: false\n",
    "rlkit/conf/big.yaml": "defaults:\n  - base\n  - override engine: mega\n  - _self_\n",
    "rlkit/conf/engine/fsdp.yaml": "kind: fsdp\n",
    "rlkit/conf/engine/mega.yaml": "kind: mega\ntp: 1\n",
    # an app of another package that finds the base configs through a search path in its primary config
    "tools/derived/main.py": DERIVED_APP,
    "tools/derived/conf/derived.yaml": "hydra:\n  searchpath:\n    - pkg://rlkit.conf\n\n"
                                       "defaults:\n  - base\n  - _self_\n\nextra:\n  flag: true\n",
    "tools/relative/main.py": DERIVED_APP,
    "tools/relative/conf/derived.yaml": "hydra:\n  searchpath:\n    - file://rlkit/conf\n\n"
                                        "defaults:\n  - base\n  - _self_\n",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def rule_dir(tmp_path: Path, rule_id: str, body: str) -> Path:
    """A directory holding one rule file of ours."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / f"{rule_id}.yaml").write_text(f"id: {rule_id}\n{body}")
    return rules


def only_launch(script: str, path: str | None = None):  # type: ignore[no-untyped-def]
    (launch,) = analyse(script.encode(), path=path).launches
    return launch


# -- launchers as bash runs them --------------------------------------------------------------------


def test_a_launcher_array_set_in_a_branch_is_one_launch_of_the_module() -> None:
    launch = only_launch("""\
RUN=(python3)
if [ "${USE_UV:-1}" != 0 ]; then
    RUN=(uv run --frozen --extra gpu python3)
fi
ARGS=(run.epochs=2)
"${RUN[@]}" -m rlkit.train "${ARGS[@]}" "$@"
""")
    assert (launch.entry, launch.entry_kind) == ("rlkit.train", "module")
    assert set(launch.launcher.split(" | ")) == {"python", "uv"}
    assert [o.key for o in launch.overrides] == ["run.epochs"]
    assert launch.caller_args


@pytest.mark.parametrize("head", [
    'PY=python3\n$PY -m rlkit.train',
    '${PY:-python3} -m rlkit.train',
    '"$PYTHON_BIN" -m rlkit.train',
    'CMD="python3 -m rlkit.train"\n$CMD',
    'uv run --frozen --extra gpu python3 -m rlkit.train',
    'uv run -m rlkit.train',
    'python3 -m torch.distributed.run --nproc_per_node=2 -m rlkit.train',
    'torchrun --nnodes 1 --nproc_per_node 2 -m rlkit.train',
    'ENTRY=${ENTRY:-"-m rlkit.train"}\ntorchrun --standalone ${ENTRY}',
])
def test_launchers_from_variables_and_runners(head: str) -> None:
    launch = only_launch(f"{head} run.epochs=2\n")
    assert launch.entry == "rlkit.train" and [o.key for o in launch.overrides] == ["run.epochs"]


def test_a_script_next_to_the_launching_script() -> None:
    script = 'HERE=$(cd "$(dirname "$0")" && pwd)\npython3 "$HERE/../train.py" run.epochs=1\n'
    launch = only_launch(script, path="rlkit/scripts/go.sh")
    assert (launch.entry, launch.entry_base) == ("../train.py", "script-dir")
    launch = only_launch('python3 "$(dirname "${BASH_SOURCE[0]}")/train.py" run.epochs=1\n', path="rlkit/go.sh")
    assert (launch.entry, launch.entry_base) == ("train.py", "script-dir")


@pytest.mark.parametrize(("flags", "name", "path"), [
    ("--config-name big", "big", None),
    ("--config-name=big", "big", None),
    ("-cn big", "big", None),
    ("--config-name='big.yaml'", "big.yaml", None),
    ("--config-path=conf --config-name='big.yaml'\\\n    ", "big.yaml", "conf"),
    ("-cp ./conf -cn big", "big", "./conf"),
])
def test_hydra_flags_in_every_spelling(flags: str, name: str, path: str | None) -> None:
    launch = only_launch(f"python3 -m rlkit.train {flags} run.epochs=2\n")
    assert (launch.config_name, launch.config_path) == (name, path)
    assert [o.key for o in launch.overrides] == ["run.epochs"] and launch.config_runtime is None


def test_hydra_flags_from_an_array_and_from_the_caller() -> None:
    launch = only_launch("NAME=big\nCFG=(--config-path=conf --config-name=$NAME)\n"
                         'python3 -m rlkit.train "${CFG[@]}" run.epochs=2\n')
    assert (launch.config_name, launch.config_path, launch.config_runtime) == ("big", "conf", None)
    launch = only_launch('python3 -m rlkit.train --config-name "$CONFIG_NAME" "$@"\n')
    assert launch.config_runtime == "--config-name $CONFIG_NAME"
    launch = only_launch('if [ "$B" = 1 ]; then N=base; else N=big; fi\npython3 -m rlkit.train --config-name $N a=1\n')
    assert launch.config_names == ("base", "big") and launch.config_runtime is None


# -- tilde as bash expands it -----------------------------------------------------------------------


def test_tilde_is_expanded_where_bash_expands_it() -> None:
    launch = only_launch("""\
DIR=${DIR:-~/data}
OUT=~/out
LOG="~/logs"
python3 -m rlkit.train a.dir=$DIR/x b.dir=$OUT c.dir=$LOG d.dir=~/raw seed=~/s e.dir="${Q:-~/q}"
""")
    values = {o.key: [(p.text, p.dynamic is not None) for p in o.value_pieces] for o in launch.overrides}
    assert values["a.dir"][0] == ("~", True) and values["b.dir"][0] == ("~", True)
    assert values["c.dir"] == [("~/logs", False)]  # quoted: kept
    assert values["d.dir"] == [("~/raw", False)]  # `a.b=~/x` is not an assignment: bash keeps the tilde
    assert values["seed"][0] == ("~", True)  # `name=~/x` with a valid name: bash expands after the `=`
    assert values["e.dir"] == [("~/q", False)]  # inside double quotes: kept


def test_compose_check_judges_tilde_as_hydra_sees_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "scripts/run.sh": """\
DATA=${DATA:-~/datasets}
python3 -m rlkit.train run.data_dir=$DATA/train
python3 -m rlkit.train run.data_dir=~/datasets/train
"""})
    code, out, _ = run(capsys, "compose-check", "--repo", str(repo), "--format", "json")
    findings = json.loads(out)["findings"]
    assert code == 0 and [(f["line"], f["key"]) for f in findings] == [(3, "run.data_dir")]
    assert "~/datasets/train" in findings[0]["message"]  # Hydra's own lexer error, for the literal only


# -- paths against the repository -------------------------------------------------------------------


def test_compose_check_is_the_same_from_any_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "scripts/run.sh": """\
python3 -m tools.derived.main extra.flag=false run.epochs=1 engine=mega tp=2
python3 -m tools.derived.main extra.missing=1
python3 -m tools.relative.main run.nothing=1
python3 -m rlkit.train --config-name='big.yaml' engine.tp=2 +engine.tp=3
"""})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    reports = []
    for cwd, arg in ((outside, str(repo)), (repo, "."), (repo / "scripts", "..")):
        monkeypatch.chdir(cwd)
        code, out, err = run(capsys, "compose-check", "--repo", arg, "--format", "json")
        assert code == 0 and "not checked" not in err, err
        reports.append({k: v for k, v in json.loads(out).items() if k != "repo"})  # `repo`: as it was named
    assert reports[0] == reports[1] == reports[2]
    found = {(f["line"], f["key"]) for f in reports[0]["findings"]}
    # the search path (pkg:// of a package in the repository, relative file://) finds base.yaml; the
    # `.yaml` suffix of --config-name is Hydra's own spelling; every finding is one Hydra would raise
    assert found == {(1, "tp"), (2, "extra.missing"), (3, "run.nothing"), (4, "engine.tp")}


def test_a_search_path_outside_the_repository_is_not_followed(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "scripts/run.sh":
                                      "python3 -m rlkit.train hydra.searchpath=[pkg://elsewhere.conf] run.x=1\n"
                                      "python3 -m rlkit.train hydra.searchpath=[file:///etc] run.x=1\n"})
    code, out, err = run(capsys, "compose-check", "--repo", str(repo), "--format", "json", "--verbose")
    assert code == 0 and json.loads(out)["findings"] == []
    assert err.count("config search path") == 2 and "is not in the repository" in err


def test_a_config_name_from_the_caller_is_not_composed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "scripts/run.sh":
                                      'python3 -m rlkit.train --config-name "$CONFIG_NAME" "$@"\n'
                                      "python3 -m rlkit.train --config-name=nowhere run.epochs=1\n"})
    code, out, err = run(capsys, "compose-check", "--repo", str(repo), "--format", "json", "--verbose")
    assert code == 0, err
    (finding,) = json.loads(out)["findings"]
    assert finding["line"] == 2 and "nowhere" in finding["message"]  # the launch's config itself is missing
    assert "scripts/run.sh:1: launch not checked: --config-name $CONFIG_NAME: the config is chosen at run time" in err


def test_when_config_holds_with_a_yaml_suffix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = rule_dir(tmp_path, "big-tp", "when: {config: [big]}\nmatch: {key: [engine.tp], value: [2]}\n"
                                         "fix: {set: 4}\n")
    repo = make_repo(tmp_path / "r", {**TREE, "scripts/run.sh":
                                      "python3 -m rlkit.train --config-name='big.yaml'\\\n    engine.tp=2\n"
                                      'RUN=(python3)\n"${RUN[@]}" -m rlkit.train --config-name big engine.tp=2\n'})
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--no-bundled", "--rules",
                       str(rules), "--format", "json")
    assert code == 0
    assert [(f["line"], f["status"]) for f in json.loads(out)["findings"]] == [(2, "fixable"), (4, "fixable")]


# -- one bad file never stops a run -----------------------------------------------------------------


def test_a_yaml_value_holding_mappings_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = rule_dir(tmp_path, "hooks", "match: {key: ['run.hooks', 'run.plain']}\n")
    repo = make_repo(tmp_path / "r", {"conf/run.yaml": "run:\n  hooks:\n    - name: a\n      dir: ${oc.env:HOME}\n"
                                                       "    - {name: b}\n  plain:\n    - x: 1\n"})
    code, out, err = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--no-bundled", "--rules",
                         str(rules), "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["errors"] == [], err
    assert [(f["line"], f["status"]) for f in report["findings"]] == [(2, "manual"), (6, "manual")]
    assert "interpolation" in report["findings"][0]["message"]


DEEP_SHELL = "X=" + "${A:-" * 300 + "False" + "}" * 300 + (
    "\npython3 -m rlkit.train actor_rollout_ref.actor.megatron.use_mbridge=$X\n")
DEEP_COMMANDS = "X=" + "$(echo " * 300 + "x" + ")" * 300 + (
    "\npython3 -m rlkit.train actor_rollout_ref.actor.megatron.use_mbridge=$X\n")
DEEP_YAML = "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 600)) + "  " * 600 + "use_mbridge: false\n"


def test_no_input_depth_stops_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"deep.sh": DEEP_SHELL, "deep_cmd.sh": DEEP_COMMANDS, "deep.yaml": DEEP_YAML,
                                      "ok.sh": "python3 -m x actor_rollout_ref.actor.megatron.use_mbridge=False\n"})
    code, out, err = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["errors"] == [], err
    by_path = {f["path"]: f for f in report["findings"]}
    assert by_path["ok.sh"]["status"] == "fixable"
    assert "nested more than" in by_path["deep.sh"]["message"] and by_path["deep.sh"]["status"] == "manual"
    assert by_path["deep_cmd.sh"]["status"] == "manual"
    assert {"path": "deep.yaml", "reason": "cannot be read as yaml: nested too deeply to read"} in report["skipped"]


def test_a_file_over_the_time_bound_is_reported_and_the_run_goes_on(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    slow = "".join(f"python3 -m x actor_rollout_ref.actor.megatron.use_mbridge=False k{i}=1\n" for i in range(40000))
    repo = make_repo(tmp_path / "r", {"slow.sh": slow, "docs/run.md":
                                      "```bash\npython3 -m x critic.megatron.use_mbridge=False\n```\n"})
    code, out, err = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--format", "json",
                         "--file-timeout", "2")
    report = json.loads(out)
    assert code == 0
    assert report["errors"] == [{"path": "slow.sh", "reason": "not checked: checking took longer than 2 s",
                                 "stage": "checking"}]
    assert [f["path"] for f in report["findings"]] == ["docs/run.md"]
    log = err.split("details in ")[1].split(")")[0]
    assert "slow.sh" in Path(log).read_text() and "FileTimeout" in Path(log).read_text()
    code, _, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--check",
                     "--file-timeout", "2", "--files", str(repo / "slow.sh"))
    assert code == 1  # --check cannot pass a file it could not check


# -- how each launch was understood -----------------------------------------------------------------


def test_bot_launches_classifies_every_launch_with_its_evidence(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, ".gitmodules": '[submodule "extras"]\n\tpath = extras\n',
                                      "rlkit/old/__init__.py": "", "tools/prep.py": "print('no hydra here')\n",
                                      "scripts/run.sh": """\
RUN=(python3)
if [ "$UV" = 1 ]; then RUN=(uv run python3); fi
DATA=${DATA:-~/d}
"${RUN[@]}" -m rlkit.train --config-name=big run.data_dir=$DATA engine.tp=$TP
python3 tools/prep.py --out x
python3 -m pytest tests  # a tool: no launch
python3 -m rlkit.old.gone a=1
python3 -m extras.thing a=1
python3 rlkit.train a=1
$LAUNCHER a=1
bash scripts/inner.sh run.epochs=2
""", "scripts/inner.sh": 'python3 -m rlkit.train "$@"\n', "docs/use.md":
                                      "```bash\npython3 -m tools.derived.main extra.flag=false\n```\n"})
    code, out, err = run(capsys, "launches", "--repo", str(repo), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    got = [(item["path"], item["line"], item["class"], item["evidence"]) for item in data["launches"]]
    assert got == [
        ("docs/use.md", 2, "hydra", "@hydra.main in tools/derived/main.py"),
        ("scripts/inner.sh", 1, "hydra", "@hydra.main in rlkit/train.py"),
        ("scripts/run.sh", 4, "hydra", "@hydra.main in rlkit/train.py"),
        ("scripts/run.sh", 5, "not-hydra", "tools/prep.py has no @hydra.main decorator"),
        ("scripts/run.sh", 7, "outside", "module rlkit.old.gone is not in the repository, though its package rlkit "
                                         "is (moved or removed?)"),
        ("scripts/run.sh", 8, "outside", "module extras.thing is not in the repository: it is in the git submodule "
                                         "extras, which is not checked out"),
        ("scripts/run.sh", 9, "outside", "script rlkit.train is not in the repository; a module of that name is "
                                         "(`-m` missing?)"),
        ("scripts/run.sh", 11, "script", "runs scripts/inner.sh, which receives the overrides"),
    ]
    first = data["launches"][2]
    assert set(first["launcher"].split(" | ")) == {"python", "uv"}
    assert first["app"] == {"source": "rlkit/train.py", "config_dir": "rlkit/conf", "config_name": "big",
                            "search_path": []}
    sources = {o["key"]: o["source"] for o in first["overrides"]}
    assert sources["run.data_dir"].startswith("run time: a home directory (~)")
    assert sources["engine.tp"] == "run time: from TP, which this script never assigns (the caller's environment)"
    derived = data["launches"][0]["app"]
    assert derived["search_path"] == ["rlkit/conf"] and derived["config_dir"] == "tools/derived/conf"
    assert data["summary"]["by_class"] == {"hydra": 3, "not-hydra": 1, "outside": 3, "script": 1}
    code, text, _ = run(capsys, "launches", "--repo", str(repo), "--files", str(repo / "scripts" / "run.sh"))
    assert "scripts/run.sh:4: " in text and "  4: engine.tp=$TP  <- run time: from TP" in text
    assert text.rstrip().endswith("6 launches in 1 file: hydra 1, not-hydra 1, outside 3, script 1")


def test_prefix_auto_writes_plusplus_where_the_config_cannot_be_composed(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    rules = rule_dir(tmp_path, "epochs", "when: {sets: ['run.**']}\n"
                                         "ensure: [{key: run.epochs, value: 5, prefix: auto}]\n")
    repo = make_repo(tmp_path / "r", {**TREE, "scripts/run.sh":
                                      "python3 -m rlkit.train run.data_dir=/x\n"
                                      'python3 -m rlkit.train --config-path="$(pwd)/conf" run.data_dir=/x\n'})
    code, out, _ = run(capsys, "run", "--repo", str(repo), "--dry-run", "--no-cache", "--no-bundled", "--rules",
                       str(rules), "--format", "json")
    messages = [f["message"] for f in json.loads(out)["findings"]]
    assert code == 0
    assert messages[0].startswith("launch of rlkit.train lacks run.epochs;")  # in the composed config: plain
    assert messages[1].startswith("launch of rlkit.train lacks ++run.epochs;")  # cannot tell: `++` is safe


# -- which rules a parse error can hide something from ----------------------------------------------


def test_parse_errors_reach_only_the_rules_near_them() -> None:
    from bot.lang.shell.front import error_regions
    from bot.rules.loader import parse_rule
    from bot.rules.parse_reach import rules_reached

    mbridge = parse_rule({"id": "mbridge", "title": "t", "match": {"key": ["**.use_mbridge"]}}, Path("mbridge.yaml"))
    epochs = parse_rule({"id": "epochs", "title": "t", "match": {"key": ["run.epochs"]}}, Path("epochs.yaml"))
    ensure = parse_rule({"id": "ensure", "title": "t", "ensure": [{"key": "run.x", "value": 1}]}, Path("ensure.yaml"))
    rules = [mbridge, epochs, ensure]
    far = analyse(b"N=${N:-$(((A + 1) * 4)}\necho $N\n\n\npython3 -m rlkit.train a.use_mbridge=False\n")
    assert far.partly_parsed and rules_reached(error_regions(far), rules) == set()
    words = analyse(b"# use_mbridge below\nN=${N:-$(((A + 1) * 4)}\n\n\npython3 -m rlkit.train run.epochs=1\n")
    assert rules_reached(error_regions(words), rules) == {"mbridge"}
    near = analyse(b"python3 -m rlkit.train \\\n  run.n=${N:-$(((A + 1) * 4)} \\\n  run.epochs=1\n")
    assert rules_reached(error_regions(near), rules) == {"mbridge", "epochs", "ensure"}
    feeding = analyse(b"ARGS=(\n  run.epochs=1\n  run.n=$(((A + 1) * 4)\n)\n\n\n"
                      b"python3 -m rlkit.train \"${ARGS[@]}\"\n")
    assert rules_reached(error_regions(feeding), rules) == {"mbridge", "epochs", "ensure"}


def test_a_launch_runs_where_the_script_moved_to() -> None:
    script = """\
cd tools
python3 prep.py --out x
(cd /srv/cache && python check.py)
python3 prep.py again
ray job submit --working-dir ../rlkit -- python3 -m train run.epochs=1
if [ -n "$X" ]; then cd elsewhere; fi
python3 other.py
"""
    found = analyse(script.encode(), path="scripts/go.sh").launches
    assert [(launch.entry, launch.workdir) for launch in found] == [
        ("prep.py", ("root", "tools")), ("check.py", ("absolute", "/srv/cache")), ("prep.py", ("root", "tools")),
        ("train", ("root", "rlkit")), ("other.py", None)]


def test_a_prefix_set_at_run_time_before_a_launcher() -> None:
    launch = only_launch("$UV_RUN --with extra torchrun --standalone -m rlkit.train run.epochs=1\n")
    assert (launch.launcher, launch.entry) == ("$UV_RUN", "rlkit.train")
    assert analyse(b"$TOOL run.epochs=1 python3 -m rlkit.train\n").launches == []


def test_bot_launches_follows_cd_and_ray_working_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "tools/prep.py": "print(1)\n", "scripts/go.sh": """\
(cd tools && python3 prep.py)
(cd /srv/cache && python3 check.py)
ray job submit --working-dir rlkit -- python3 -m train run.epochs=1
cd "$(dirname "$0")/../rlkit" && python3 train.py run.epochs=2
"""})
    code, out, _ = run(capsys, "launches", "--repo", str(repo), "--format", "json")
    got = [(item["line"], item["class"], item["evidence"]) for item in json.loads(out)["launches"]]
    assert code == 0 and got == [
        (1, "not-hydra", "tools/prep.py has no @hydra.main decorator"),
        (2, "outside", "script check.py is not in the repository: it runs in /srv/cache, outside the repository"),
        (3, "hydra", "@hydra.main in rlkit/train.py"),
        (4, "hydra", "@hydra.main in rlkit/train.py"),
    ]


def test_a_file_changed_before_the_write_stops_the_write_there(tmp_path: Path) -> None:
    from bot.engine.scan import scan
    from bot.engine.write import write_changes
    from bot.rules.loader import load_rules

    line = "python3 -m rlkit.train actor_rollout_ref.actor.megatron.use_mbridge=False\n"
    repo = make_repo(tmp_path / "r", {"a.sh": line, "b.sh": line})
    report = scan(repo, load_rules())
    (repo / "a.sh").write_text(line + "# edited meanwhile\n")
    assert write_changes(repo, report) == []
    assert (repo / "a.sh").read_text() == line + "# edited meanwhile\n"
    assert (repo / "b.sh").read_text() == line  # nothing after the first changed file is written
    assert [(e.path, e.stage) for e in report.errors] == [("a.sh", "writing"), ("b.sh", "writing")]
    assert "changed on disk" in report.errors[0].reason
    assert [(f.path, f.status.value) for f in report.findings] == [("a.sh", "fixable"), ("b.sh", "fixable")]


def test_a_config_path_below_the_working_directory_or_the_script(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "rlkit/scripts/go.sh": """\
python3 -m rlkit.train --config-path=$(pwd)/rlkit/conf --config-name=big run.epochs=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE/.." && python3 -m rlkit.train --config-path "$PWD/conf" run.epochs=2
python3 -m rlkit.train --config-path=${HOME}/conf run.epochs=3
"""})
    code, out, _ = run(capsys, "launches", "--repo", str(repo), "--format", "json")
    got = [(item["line"], item["class"], (item["app"] or {}).get("config_dir"), item["evidence"])
           for item in json.loads(out)["launches"]]
    assert code == 0 and got == [
        (1, "hydra", "rlkit/conf", "@hydra.main in rlkit/train.py"),
        (3, "hydra", "rlkit/conf", "@hydra.main in rlkit/train.py"),
        (4, "runtime", None, "--config-path=${HOME}/conf: the config is chosen at run time"),
    ]


def test_a_docs_snippet_after_cd_into_a_clone_finds_the_repository_root(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "tools/prep.py": "print(1)\n", "docs/setup.md": """\
```bash
git clone https://example.invalid/rlkit.git && cd rlkit
python3 tools/prep.py --out x
python -m otherpkg.server --port 1
```
""", "scripts/go.sh": "cd rlkit\npython3 tools/prep.py --out x\n"})
    code, out, _ = run(capsys, "launches", "--repo", str(repo), "--format", "json")
    got = [(item["path"], item["line"], item["evidence"]) for item in json.loads(out)["launches"]]
    assert code == 0 and got == [
        ("docs/setup.md", 3, "tools/prep.py has no @hydra.main decorator"),  # the reader's clone: the root
        ("docs/setup.md", 4, "module otherpkg.server is not in the repository"),
        ("scripts/go.sh", 2, "script tools/prep.py is not in the repository"),  # a script really runs in rlkit/
    ]


def test_launches_say_where_a_blank_after_the_backslash_cut_one_short(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A doc's launch too: the line is the doc's own, and the lines after the cut are no overrides of it."""
    doc = "# Try it\n\n```bash\npython3 -m rlkit.train \\\n    run.epochs=2 \\  # two is plenty\n    engine.tp=4\n```\n"
    repo = make_repo(tmp_path / "r", {**TREE, "docs/try.md": doc})
    code, out, err = run(capsys, "launches", "--repo", str(repo), "--format", "json")
    assert code == 0, err
    (launch,) = [item for item in json.loads(out)["launches"] if item["path"] == "docs/try.md"]
    assert launch["cut_short"] == 5 and [o["key"] for o in launch["overrides"]] == ["run.epochs"]
    code, out, err = run(capsys, "launches", "--repo", str(repo))
    assert "  cut short at line 5: a blank after its `\\` ends it" in out


def test_a_config_path_written_as_a_path_expression_is_read_and_a_computed_one_is_run_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    joined = ('import os\nimport hydra\n\n\n@hydra.main(config_path=os.path.join("..", "conf"), '
              'config_name="base", version_base=None)\ndef main(cfg):\n    pass\n')
    beside = ('import hydra\nfrom pathlib import Path\nHERE = Path(__file__).parent\n\n\n'
              '@hydra.main(config_path=str(HERE / "conf"), config_name="base")\ndef main(cfg):\n    pass\n')
    parents = ('import os\nimport hydra\nfrom pathlib import Path\nROOT = Path(__file__).resolve().parents[2]\n\n\n'
               '@hydra.main(config_path=os.path.join(ROOT, "lab", "conf"), config_name="base")\n'
               'def main(cfg):\n    pass\n')
    from_env = ('import os\nimport hydra\n\n\n@hydra.main(config_path=os.environ["CONF"], config_name="base")\n'
                'def main(cfg):\n    pass\n')
    twice = ('import hydra\nCONF = "conf"\nCONF += "_v2"\n\n\n@hydra.main(config_path=CONF, config_name="base")\n'
             'def main(cfg):\n    pass\n')
    repo = make_repo(tmp_path / "r", {"lab/cli/train.py": joined, "lab/conf/base.yaml": "lr: 1\n",
                                      "lab/eval.py": beside, "lab/tools/sweep.py": parents, "lab/env.py": from_env,
                                      "lab/twice.py": twice, "lab/__init__.py": "", "lab/cli/__init__.py": "",
                                      "run.sh": "python3 lab/cli/train.py lr=2\npython3 lab/eval.py lr=3\n"
                                                "python3 lab/tools/sweep.py lr=4\npython3 lab/env.py lr=5\n"
                                                "python3 lab/twice.py lr=6\n"})
    code, out, err = run(capsys, "launches", "--repo", str(repo), "--format", "json")
    assert code == 0, err
    got = [(item["line"], item["class"], item["evidence"]) for item in json.loads(out)["launches"]]
    assert got == [(1, "hydra", "@hydra.main in lab/cli/train.py"), (2, "hydra", "@hydra.main in lab/eval.py"),
                   (3, "hydra", "@hydra.main in lab/tools/sweep.py"),
                   (4, "runtime", "lab/env.py: the app computes its config_path; it is known at run time"),
                   (5, "runtime", "lab/twice.py: the app computes its config_path; it is known at run time")]


def test_launches_output_reads_as_sentences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"run.sh": "for s in 1 2; do\n  python3 train.py seed=$s\ndone\n",
                                      "notes.md": "nothing to run here\n"})
    code, text, err = run(capsys, "launches", "--repo", str(repo), "--files", str(repo / "run.sh"),
                          str(repo / "gone.sh"))
    assert code == 0 and "gone.sh: no such file; skipped" in err
    assert "\n  inside a loop\n" in text and "in inside" not in text
    code, text, _ = run(capsys, "launches", "--repo", str(repo))
    assert text.rstrip().endswith("1 launch in 1 file (2 files read): outside 1")


def test_a_launch_of_an_omegaconf_cli_is_not_read_as_hydra_by_an_ensure_or_a_sweep(tmp_path: Path) -> None:
    """`OmegaConf.from_cli()` stores `++a.b=1` under a key named `++a` and reads `x=a,b` as the string "a,b":
    an ensure on its launch is left to a person, and a comma is no sweep there."""
    from bot.engine.scan import scan
    from tests.test_yaml_config import rule

    repo = make_repo(tmp_path / "repo", {
        "cli.py": "from hydra.utils import instantiate\nfrom omegaconf import OmegaConf\n\n"
                  "cfg = OmegaConf.merge(OmegaConf.create({'mode': 'a'}), OmegaConf.from_cli())\n",
        "run.sh": "python cli.py mode=a,b\npython cli.py mode=a\n"})
    rules = [rule("precision", when={"sets": ["mode"]}, ensure=[{"key": "trainer.precision", "value": "bf16",
                                                                "prefix": "auto"}]),
             rule("mode", match={"key": ["mode"], "value": ["a"]}, fix={"set": "c"})]
    found = [(f.rule, f.line, f.status.value) for f in scan(repo, rules).findings]
    assert found == [("precision", 1, "manual"), ("precision", 2, "manual"), ("mode", 2, "fixable")]


def test_an_app_behind_a_wrapper_of_its_own_is_not_taken_for_an_omegaconf_cli(tmp_path: Path) -> None:
    """NeMo's `@hydra_runner` is no `@hydra.main` the bot knows, yet Hydra's: its sweeps stay sweeps and an
    ensure is written as on any launch Hydra may read."""
    from bot.engine.scan import scan
    from tests.test_yaml_config import rule

    repo = make_repo(tmp_path / "repo", {
        "speech.py": "from nemo.core.config import hydra_runner\n\n\n@hydra_runner(config_path='conf', "
                     "config_name='cfg')\ndef main(cfg):\n    print(cfg)\n",
        "conf/cfg.yaml": "trainer:\n  use_amp: false\n",
        "run.sh": "python speech.py -m trainer.use_amp=false,true\npython speech.py trainer.use_amp=a,b\n"})
    seed = {"key": "trainer.seed", "value": 1, "prefix": "auto"}
    rules = [rule("seed", when={"sets": ["trainer.**"]}, ensure=[seed]),
             rule("amp", match={"key": ["trainer.use_amp"], "value": [False]}, fix={"set": True})]
    found = [(f.rule, f.path, f.line, f.status.value) for f in scan(repo, rules).findings if f.path == "run.sh"]
    assert found == [("seed", "run.sh", 1, "fixable"), ("amp", "run.sh", 1, "manual"), ("seed", "run.sh", 2, "fixable")]
