"""Issue 41: `bot launches` made cheaper without changing a byte of what it reports.

Each shortcut here (a faster writer of the same JSON, a faster reader of the same notebook text, a
narrower walk of the same Python tree) is held against the plain way it replaces.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

import pytest

from bot.commands.launches import render
from bot.engine.launches import collect
from bot.report.indented_json import dumps
from tests.conftest import make_repo


class _Colour(str, enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


SHAPES: list[Any] = [
    {},
    [],
    {"a": {}, "b": [], "c": [{}], "d": [[], [[]]]},
    {"text": "tab\there, quote \" and backslash \\, a bell \x07, an accent é, a snowman ☃, 𝄞 and \u2028"},
    {"n": 0, "big": 2**70, "neg": -5, "pi": 3.141592653589793, "tiny": 1e-300, "half": 0.5, "whole": 2.0},
    {"t": True, "f": False, "none": None, "tuple": (1, "two", (3,)), "nested": {"deep": {"deeper": [None]}}},
    {"enum": _Colour.RED, "level": _Level.HIGH, _Colour.RED: "a key that is a str subclass"},
    ["only", "a", "list", 1, 2.5, None],
    "a bare string",
    7,
    None,
]


@pytest.mark.parametrize("value", SHAPES)
@pytest.mark.parametrize("indent", [0, 1, 2, 4])
def test_the_indented_writer_gives_json_dumps_text(value: Any, indent: int) -> None:
    assert dumps(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False)


@pytest.mark.parametrize("value", [{"x": float("nan")}, [float("inf"), -float("inf")], {1: "an int key"},
                                   {None: 1, True: 2, 2.5: 3}])
def test_what_the_writer_does_not_take_is_json_dumps_own_text(value: Any) -> None:
    assert dumps(value, 1) == json.dumps(value, indent=1, ensure_ascii=False)


def test_what_json_refuses_the_writer_refuses_the_same_way() -> None:
    circular: list[Any] = []
    circular.append(circular)
    for value, error in (({"x": object()}, TypeError), (circular, ValueError), ({(1, 2): "tuple key"}, TypeError)):
        with pytest.raises(error) as mine:
            dumps(value, 1)
        with pytest.raises(error) as theirs:
            json.dumps(value, indent=1, ensure_ascii=False)
        assert str(mine.value) == str(theirs.value)


SCRIPT = """#!/bin/bash
set -x
LR=${LR:-0.1}
MODEL="ünïcode-model"
if [ "$MODE" = fast ]; then
  STEPS=10
else
  STEPS=1000
fi
python train.py optim.lr=$LR trainer.steps=$STEPS model.name="$MODEL" +extra='{"a": 1}' ~dropped
"""
APP = """import hydra


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    pass
"""


def test_bot_launches_json_is_json_dumps_of_its_data(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"run.sh": SCRIPT, "train.py": APP, "conf/config.yaml": "optim:\n  lr: 1\n",
                                         "README.md": "```bash\npython train.py optim.lr=3 <your-args>\n```\n"})
    found = collect(root, "repo")
    assert len(found.launches) == 2
    data = json.loads(render(found, "json"))
    assert render(found, "json") == json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    script = next(launch for launch in data["launches"] if launch["path"] == "run.sh")
    assert "model.name=ünïcode-model" in [o["text"] for o in script["overrides"]]


NOTEBOOK_TEXTS = ["", "plain ascii", "tab\\t and \\n and \\\\ and \\\" and \\/", "ünïcode ☃ 𝄞 mixed with ascii",
                  "\\u00e9 and \\ud834\\udd1e, a pair", "é\\nü", "a\\u0041b", "\\\\\\\\", "end é"]


@pytest.mark.parametrize("inner", NOTEBOOK_TEXTS)
def test_a_json_string_is_read_with_each_characters_own_bytes(inner: str) -> None:
    from bot.lang.embedded.json_spans import read_json

    data = ('{"cells": ["x", "' + inner + '"]}').encode("utf-8")
    node = read_json(data).members["cells"].items[1]
    assert node.text == json.loads(data)["cells"][1]
    assert len(node.chars) == len(node.text)
    for char, (start, end) in zip(node.text, node.chars):
        written = data[start:end]
        assert (json.loads(b'"' + written + b'"') if written.startswith(b"\\") else written.decode()) == char
    assert [a for a, _ in node.chars] == sorted(a for a, _ in node.chars)


@pytest.mark.parametrize(("data", "message"), [
    (b'{"a": "never closed', "line 1: expected a closing quote"),
    (b'{"a": "bad \\q escape"}', "line 1: expected a valid escape"),
    (b'{"a":\n "cut \xc3"}', "line 2: expected valid JSON"),
    (b'{"a": "lone \x80 byte"}', "line 1: expected valid JSON"),
    (b'{"a": "ends in \xe2\x98', "line 1: expected valid JSON"),
])
def test_a_broken_json_string_gets_the_reason_it_got_before(data: bytes, message: str) -> None:
    from bot.lang.embedded.json_spans import JSONPositionError, read_json

    with pytest.raises(JSONPositionError, match=f"^{message}$"):
        read_json(data)


NESTED = '''
import hydra


@hydra.main(config_path=(lambda: "conf")(), config_name="a")
def first(cfg):
    def inner():
        async def deeper():
            pass
    class Local:
        def method(self):
            pass
    return inner


class Outer:
    @staticmethod
    def static():
        pass


if True:
    def in_if():
        pass
else:
    def in_else():
        pass
for x in []:
    def in_for():
        pass
else:
    def in_for_else():
        pass
while False:
    async def in_while():
        pass
with open("f") as handle:
    def in_with():
        pass
try:
    def in_try():
        pass
except ValueError:
    def in_except():
        pass
else:
    def in_try_else():
        pass
finally:
    def in_finally():
        pass
try:
    pass
except* OSError:
    def in_except_star():
        pass
match x:
    case 1:
        def in_case():
            pass
    case _:
        @hydra.main(config_path="other", config_name="b")
        def in_default_case(cfg):
            pass
'''


def test_functions_in_order_are_those_a_walk_of_every_node_finds() -> None:
    import ast

    from bot.hydra.python_file import in_order

    tree = ast.parse(NESTED)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    everywhere = sorted((n for n in ast.walk(tree) if isinstance(n, kinds)),
                        key=lambda n: (n.lineno, n.col_offset, -(n.end_lineno or 0), -(n.end_col_offset or 0)))
    found = in_order(tree, kinds)
    assert [n.name for n in found] == [n.name for n in everywhere]
    assert len(found) == 18
    assert [n.func.id for n in in_order(tree, ast.Call) if isinstance(n.func, ast.Name)] == ["open"]


def test_each_launch_of_an_entry_gets_the_app_its_file_declares(tmp_path: Path) -> None:
    """The app an entry file declares (itself, or the function it imports and runs) is read once per scan
    and file; every launch of it still gets its own flags and its own config."""
    pkg = {"pkg/__init__.py": "", "pkg/app.py": APP.replace('"conf"', '"../conf"'),
           "pkg/__main__.py": "from pkg.app import main\n\nif __name__ == '__main__':\n    main()\n",
           "conf/config.yaml": "a: 1\n", "conf/other.yaml": "a: 2\n"}
    script = "python -m pkg a=1\npython -m pkg --config-name other a=2\npython -m pkg --config-path /abs a=3\n"
    root = make_repo(tmp_path / "repo", {**pkg, "run.sh": script})
    found = sorted(collect(root, "repo").launches, key=lambda info: info.line)
    assert [(i.cls, i.app and i.app["config_name"]) for i in found] == [
        ("hydra", "config"), ("hydra", "other"), ("outside", None)]
    assert found[0].evidence == "@hydra.main in pkg/app.py (imported by pkg/__main__.py)"


EXPANSIONS_SCRIPT = b"""#!/bin/bash
ARGS=(a=1 "b=${B:-2}")
: ${C:=3}
N=${#ARGS[@]}
python train.py "${ARGS[@]}" c=$C d=${D:-4} e="${E:-$B}" f=${ARGS[1]}
bash -c 'python train.py g=${G:-5} h=$H'
"""


def test_an_expansion_read_once_is_read_as_parse_expansion_reads_it() -> None:
    """The walk and the expander share each node's parse_expansion (bot.lang.shell.expansion.Expander.form):
    what they read is what parse_expansion reads, in the script and in a `bash -c` string's own tree."""
    from bot.lang.shell.nodes import EXPANSIONS, descendants, parse_expansion
    from bot.lang.shell.parse import analyse, parse_tree
    from bot.lang.shell.walk import Walker

    tree = parse_tree(EXPANSIONS_SCRIPT)
    walker = Walker(EXPANSIONS_SCRIPT)
    walker.run(tree.root_node)
    forms = walker.expander._forms
    nodes = descendants(tree.root_node, set(EXPANSIONS))
    assert len([n for n in nodes if n in forms]) >= 8
    for node in forms:
        assert forms[node] == parse_expansion(node)
        assert walker.expander.form(node) is forms[node]
    script = analyse(EXPANSIONS_SCRIPT)
    written = [[(o.key, o.value_text) for o in launch.overrides] for launch in script.launches]
    assert written == [[("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "$B"), ("f", "b=2")],
                       [("g", "5"), ("h", "$H")]]


def test_a_scan_collects_less_often_and_leaves_the_collector_as_it_found_it() -> None:
    import gc
    import weakref

    from bot.collector import YOUNG, scanning

    class Node:
        other: object = None

    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    with scanning():
        assert gc.get_threshold()[0] == max(YOUNG, thresholds[0])
        with scanning():  # nested: the outer block keeps what it froze
            pass
        assert gc.get_threshold()[0] == max(YOUNG, thresholds[0])
        first, second = Node(), Node()
        first.other, second.other = second, first  # garbage only the cyclic collector frees
        gone = weakref.ref(first)
        del first, second
        kept: list[list[int]] = [[] for _ in range(YOUNG * 12)]  # enough for the collector to run on its own
        assert gone() is None  # still collected inside the block
        del kept
    assert gc.get_threshold() == thresholds
    assert gc.get_freeze_count() == frozen


def test_a_failing_scan_leaves_the_collector_as_it_found_it() -> None:
    import gc

    from bot.collector import scanning

    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    with pytest.raises(RuntimeError), scanning():
        raise RuntimeError("a file the scan could not read")
    assert (gc.get_threshold(), gc.get_freeze_count()) == (thresholds, frozen)


def test_an_entry_file_changed_within_a_scan_is_read_again(tmp_path: Path) -> None:
    """What an entry file declares is kept per text of the file, not per path: a file edited while its scan's
    context lives (a fix written, then judged) is read as it now is."""
    from bot.engine.context import scan_context
    from bot.engine.launches import _file

    root = make_repo(tmp_path / "repo", {"run.sh": "python train.py a=1\n", "train.py": APP,
                                         "conf/config.yaml": "a: 1\n", "conf/other.yaml": "a: 2\n"})
    context = scan_context(root.resolve(), [], [])
    data = b"python train.py a=1\n"
    assert [info.app and info.app["config_name"] for info in _file(context, "run.sh", "shell", data)] == ["config"]
    (root / "train.py").write_text(APP.replace('config_name="config"', 'config_name="other"'), encoding="utf-8")
    assert [info.app and info.app["config_name"] for info in _file(context, "run.sh", "shell", data)] == ["other"]


BRANCHES = b"""#!/bin/bash
LR=0.1
if [ "$MODE" = fast ]; then
  STEPS=10
  if [ "$BIG" = 1 ]; then LR=0.5; fi
elif [ "$MODE" = slow ]; then
  STEPS=1000
else
  STEPS=100
fi
case "$ENGINE" in
  fsdp) ENG="engine=fsdp" ;;
  *) ENG="engine=megatron" ;;
esac
DROPPED=1
DROPPED=2
python train.py lr=$LR steps=$STEPS $ENG dropped=$DROPPED model=${MODEL:-small}
"""


def test_the_ways_of_a_launch_read_each_override_once() -> None:
    """The arms an override depends on are read once per launch, not once per choice of arms
    (bot.lang.shell.combinations); the ways are those the arms give."""
    from bot.lang.shell.as_launch import as_launch
    from bot.lang.shell.parse import analyse

    script = analyse(BRANCHES)
    (launch,) = [as_launch(shell, script) for shell in script.launches]
    assert launch.handle is not None
    ways = launch.handle.ways()
    fast, big, fsdp = 'if [ "$MODE" = fast ]', 'if [ "$BIG" = 1 ]', 'case "$ENGINE" in fsdp)'
    other, slow, rest = 'case "$ENGINE" in *)', 'elif [ "$MODE" = slow ]', 'if [ "$MODE" = fast ]: else'
    tail = ["dropped=2", "model=small"]
    assert ways.total == 8
    assert [(way.label, [o.written for o in way.overrides]) for way in ways.items] == [
        (f"{fast}; {big}; {fsdp}", ["lr=0.5", "steps=10", "engine=fsdp", *tail]),
        (f"{fast}; {big}; {other}", ["lr=0.5", "steps=10", "engine=megatron", *tail]),
        (f"{fast}; {big}: not taken; {fsdp}", ["lr=0.1", "steps=10", "engine=fsdp", *tail]),
        (f"{fast}; {big}: not taken; {other}", ["lr=0.1", "steps=10", "engine=megatron", *tail]),
        (f"{slow}; {fsdp}", ["lr=0.1", "steps=1000", "engine=fsdp", *tail]),
        (f"{slow}; {other}", ["lr=0.1", "steps=1000", "engine=megatron", *tail]),
        (f"{rest}; {fsdp}", ["lr=0.1", "steps=100", "engine=fsdp", *tail]),
        (f"{rest}; {other}", ["lr=0.1", "steps=100", "engine=megatron", *tail])]


def test_a_line_is_found_by_its_newlines_as_counting_finds_it() -> None:
    from bot.lang.shell.launches import _INDEXED_FROM, line_of

    for text in (b"", b"a\n", b"x=1 \\\n  y=2\n\n" * 300, b"\n" * (_INDEXED_FROM + 1), b"no newline" * 200):
        for pos in range(0, len(text) + 1, 7):
            assert line_of(text, pos) == text.count(b"\n", 0, pos) + 1
        assert line_of(text, len(text)) == text.count(b"\n") + 1


HEADS = b"""#!/bin/bash
if [ "$FAST" = 1 ]; then
  LAUNCH=(python3)
elif [ "$UV" = 1 ]; then
  LAUNCH=(uv run python3)
else
  LAUNCH=(torchrun --nproc_per_node=8)
fi
"${LAUNCH[@]}" -m pkg.train a=1 b=2 c=3
"""


def test_a_launch_several_heads_lead_to_reads_its_overrides_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command whose first word takes several values (a launcher set in branches) is one launch of each
    entry; the overrides of a head that leads to an entry already found are not read again."""
    from bot.lang.shell import launches
    from bot.lang.shell.parse import analyse

    read: list[str] = []
    real = launches.parse_override_field

    def counted(item: Any, src: bytes) -> Any:
        read.append(item.text)
        return real(item, src)

    monkeypatch.setattr(launches, "parse_override_field", counted)
    (launch,) = analyse(HEADS).launches
    assert (launch.entry, launch.entry_kind) == ("pkg.train", "module")
    assert launch.launcher == "python | uv | torchrun"
    assert [(o.key, o.value_text) for o in launch.overrides] == [("a", "1"), ("b", "2"), ("c", "3")]
    assert launch.head_guard == ()  # each head is set in another arm: no arm is taken by every way
    assert sorted(read) == ["a=1", "b=2", "c=3"]


def test_an_override_text_is_read_by_the_grammar_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Launches repeat most overrides word for word: Hydra's reading of each distinct text is made once and
    shared, the failure to read one too; what each override's value is stays what the grammar says."""
    from bot.lang.shell import values
    from bot.lang.shell.parse import analyse

    values.hydra_reading.cache_clear()
    read: list[str] = []
    real = values.parse_override

    def counted(text: str) -> Any:
        read.append(text)
        return real(text)

    monkeypatch.setattr(values, "parse_override", counted)
    script = analyse(b"python t.py a.b=[1,2] c='x y' d='[1,' e=1\npython t.py a.b=[1,2] c='x y' d='[1,' e=1\n")
    infos = [[values.read_value(o) for o in launch.overrides] for launch in script.launches]
    assert [(i.state, i.value) for i in infos[0]] == [(i.state, i.value) for i in infos[1]]
    assert [i.state for i in infos[0]] == ["static", "static", "invalid", "static"]
    assert infos[0][0].value == [1, 2] and infos[0][1].value == "x y"
    assert infos[0][2].reason == infos[1][2].reason and infos[0][2].reason.startswith("Hydra cannot parse it: ")
    assert sorted(read) == ["a.b=[1,2]", "c=x y", "d=[1,", "e=1"]


NOTEBOOK = json.dumps({"cells": [
    {"cell_type": "code", "source": ["!python train.py a=1 \\\n", "  b=\"two\"\n"], "outputs": [
        {"text": ["a long output\twith escapes \u00e9\n"] * 50}]},
    {"cell_type": "markdown", "source": ["Run:\n", "```bash\n", "python train.py c=3\n", "```\n"]},
    {"cell_type": "code", "source": ["x = '''\n", "!not shell\n", "'''\n", "!python train.py d=4\n"]}]}, indent=1)


def test_a_notebook_is_read_once_and_its_characters_placed_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The notebook's JSON is read once for its code cells and its markdown cells; a string's characters are
    placed on their bytes only when a view asks (most strings are outputs), as an eager reading placed them."""
    from bot.lang.embedded import json_spans, nb_cells, notebooks

    read: list[int] = []
    real = json_spans.read_json

    def counted(data: bytes) -> Any:
        read.append(len(data))
        return real(data)

    monkeypatch.setattr(notebooks, "read_json", counted)
    monkeypatch.setattr(nb_cells, "read_json", counted)
    data = NOTEBOOK.encode("utf-8")
    views = notebooks.notebook_views(data)
    assert len(read) == 1
    assert [v.text.decode().split() for v in views] == [
        ["python", "train.py", "a=1", "\\", 'b="two"', "python", "train.py", "d=4"], ["python", "train.py", "c=3"]]
    root = real(data)
    output = root.members["cells"].items[0].members["outputs"].items[0].members["text"].items[0]
    assert output.spans is None and output.data is data  # not placed yet
    assert len(output.chars) == len(output.text) and output.data is None  # placed once asked
    for char, (start, end) in zip(output.text, output.chars):
        written = data[start:end]
        assert (json.loads(b'"' + written + b'"') if written.startswith(b"\\") else written.decode()) == char


FLOW = """name: ünïcode ☃
env:
  TOP: "1"
  PATHS: a/b
jobs:
  one:
    env: {MID: x}
    steps:
      - run: python3 -m pkg.train a=$TOP b=$MID
      - run: python3 -m pkg.train c=$PATHS
  two:
    steps:
      - env: {OWN: "2"}
        run: python3 -m pkg.train d=$OWN e=$TOP
"""


def test_a_workflow_env_map_is_read_once_for_every_step_it_feeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each step is a view of its own with the env maps that feed it; a map shared by several steps (the
    workflow's, a job's) is read once, and each view still maps its bytes to the file's (non-ASCII before them)."""
    from bot.lang.embedded import workflow

    read: list[object] = []
    real = workflow._env_entries

    def counted(data: bytes, env: Any, offsets: Any, fast: bool) -> Any:
        read.append(env)
        return real(data, env, offsets, fast)

    monkeypatch.setattr(workflow, "_env_entries", counted)
    data = FLOW.encode("utf-8")
    views = workflow.workflow_views(data)
    assert [v.text.decode().split("\n")[:4] for v in views] == [
        ['TOP="1"', 'PATHS="a/b"', 'MID="x"', "python3 -m pkg.train a=$TOP b=$MID"],
        ['TOP="1"', 'PATHS="a/b"', 'MID="x"', "python3 -m pkg.train c=$PATHS"],
        ['TOP="1"', 'PATHS="a/b"', 'OWN="2"', "python3 -m pkg.train d=$OWN e=$TOP"]]
    for view in views:
        for at, host in enumerate(view.host_at[:-1]):
            if view.text[at : at + 1] in (b"a", b"x", b"1"):  # a value's byte, or the script's
                assert data[host : host + 1] == view.text[at : at + 1]
    assert len(read) == 4  # the workflow's, job one's, none (read once), the last step's own: not 9 (3 a step)


def test_an_entry_file_is_read_once_for_each_launch_of_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolving a launch's app reads its entry file from disk once (its decorator, its config and its
    `version_base` come from that one text); a file that is no app is read for its depth from the same text."""
    from bot.hydra import python_file

    files = {"train.py": APP.replace("version_base=None", 'version_base="1.3"'), "tool.py": "print(1)\n",
             "conf/config.yaml": "a: 1\n", "run.sh": "python train.py a=1\npython train.py a=2\npython tool.py b=3\n"}
    root = make_repo(tmp_path / "repo", files)
    read: list[str] = []
    real = python_file._text

    def counted(path: Path) -> str | None:
        read.append(path.name)
        return real(path)

    monkeypatch.setattr(python_file, "_text", counted)
    found = collect(root, "repo").launches
    assert [(i.cls, i.evidence) for i in found] == [("hydra", "@hydra.main in train.py")] * 2 + [
        ("not-hydra", "tool.py has no @hydra.main decorator")]
    assert read.count("train.py") == 2  # once a launch (it was five times for the two)
    assert read.count("tool.py") == 3  # once for its decorator and depth, and by the compose API's and imports' readers


COMMANDS = b"""#!/bin/bash
export USE=1
PY=python3
echo "starting $USE" ${PY} train.py a=1
mkdir -p "$OUT/logs" && cd "$OUT"
source ./env.sh A=1
. ./other.sh B=2
bash run.sh c=3
X=1 ./tool.sh d=4
nohup python train.py e=5 &
"$PY" train.py f=6
$UNKNOWN python train.py g=7
env A=1 python train.py h=8
ray job submit --address x -- python train.py i=9
./run.py j=10
uv run python train.py k=11
timeout 5 torchrun --nproc_per_node=2 train.py l=12
printf '%s\\n' m=13
python train.py n=14 \\\x20
  trainer.o=15 trainer.p=16
true && python -m pkg.train q=17
"""


def test_a_command_whose_first_word_runs_nothing_is_not_read_further(monkeypatch: pytest.MonkeyPatch) -> None:
    """`echo`, `mkdir`, `printf`: a command whose first word is no launcher, wrapper, runner, interpreter or
    script runs no launch, whatever its other words, so they are not expanded; the launches and the script
    calls found are those reading every word finds."""
    from bot.lang.shell import parse

    def seen(script: Any) -> Any:
        return ([(launch.launcher, launch.entry, launch.entry_kind, [o.text for o in launch.overrides],
                  [o.text for o in launch.stranded]) for launch in script.launches],
                [(call.target, sorted(call.values)) for call in script.calls])

    expanded: list[int] = []
    real = parse.command_words

    def counted(node: Any, env: Any, walker: Any, start: int = 0, stop: int | None = None) -> Any:
        words = real(node, env, walker, start, stop)
        expanded.append(len(words))
        return words

    monkeypatch.setattr(parse, "command_words", counted)
    shortcut = seen(parse.analyse(COMMANDS))
    fewer = sum(expanded)
    expanded.clear()
    monkeypatch.setattr(parse, "stops_launch", lambda first, consoles: False)  # every word read
    assert seen(parse.analyse(COMMANDS)) == shortcut
    assert sum(expanded) - fewer == 9  # the words after echo, mkdir, cd and printf
    launches, calls = shortcut
    assert [(launcher, entry) for launcher, entry, *_ in launches] == [
        ("bash", "run.sh"), ("script", "./tool.sh"), ("python", "train.py"), ("python", "train.py"),
        ("$UNKNOWN", "train.py"), ("python", "train.py"), ("ray job submit", "train.py"), ("script", "./run.py"),
        ("uv", "train.py"), ("torchrun", "train.py"), ("python", "train.py"), ("python", "pkg.train")]
    assert launches[-2][3:] == (["n=14"], ["trainer.o=15", "trainer.p=16"])  # the line a blank cut off: read whole
    assert calls == [("./env.sh", ["USE"]), ("./other.sh", ["USE"]), ("run.sh", ["USE"]), ("./tool.sh", ["USE", "X"])]


def test_a_module_is_looked_for_once_whichever_file_launches_it(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m pkg` runs the same file from wherever the launch runs, whichever script launches it: it is
    looked for once per scan and directory; a script's path is still looked for beside each launching file."""
    from bot.hydra import app

    files = {"pkg/__init__.py": "", "pkg/__main__.py": APP.replace('"conf"', '"../conf"'), "conf/config.yaml": "a: 1\n",
             "a/run.sh": "python -m pkg a=1\npython train.py b=1\n", "b/run.sh": "python -m pkg a=2\n",
             "c/run.sh": 'cd "$(dirname "$0")"\npython -m pkg a=3\npython train.py b=2\n', "c/train.py": "print(1)\n"}
    root = make_repo(tmp_path / "repo", files)
    looked: list[tuple[str | None, str | None]] = []
    real = app.entry_file

    def counted(context: Any, launch: Any) -> Any:
        looked.append((launch.entry, launch.source_path))
        return real(context, launch)

    monkeypatch.setattr(app, "entry_file", counted)
    found = sorted(collect(root, "repo").launches, key=lambda info: (info.path, info.line))
    assert [(i.path, i.cls) for i in found] == [("a/run.sh", "hydra"), ("a/run.sh", "outside"), ("b/run.sh", "hydra"),
                                                ("c/run.sh", "hydra"), ("c/run.sh", "not-hydra")]
    assert sorted(looked, key=str) == [("pkg", "a/run.sh"), ("pkg", "c/run.sh"), ("train.py", "a/run.sh"),
                                       ("train.py", "c/run.sh")]


def _merged_the_plain_way(envs: list[Any]) -> dict[str, tuple[Any, ...]]:
    """What each name may hold after the branches: every definition of every branch (the caller's where a
    branch leaves it unset), each once, in the order met."""
    from bot.lang.shell.variables import caller_definition

    names = dict.fromkeys(name for env in envs for name in env)
    return {name: tuple({id(d): d for env in envs for d in (env.get(name) or (caller_definition(name),))}.values())
            for name in names}


def test_a_name_no_branch_changes_keeps_its_very_definitions_after_them() -> None:
    """After an `if`, a name no arm assigns holds the definitions it held before (the same tuple, not a copy of it);
    the names an arm changes hold what every arm and the caller may leave, as before."""
    from bot.lang.shell.text import Definition
    from bot.lang.shell.variables import merge

    a, b, c, d = (Definition(name, "scalar", line) for line, name in enumerate("ABCD", 1))
    b2, d2 = Definition("B", "scalar", 9), Definition("D", "scalar", 10)
    before = {"A": (a,), "B": (b,), "C": (c, a), "D": (d,)}
    in_arm = {**before, "B": (b2,), "E": (b2,)}
    other = {**before, "D": (d2, d)}
    envs = [in_arm, other, before]
    merged = merge(envs)
    assert merged == _merged_the_plain_way(envs)
    assert list(merged) == ["A", "B", "C", "D", "E"]
    assert merged["A"] is before["A"] and merged["C"] is before["C"]  # kept, not rebuilt
    assert merged["B"] == (b2, b) and merged["D"] == (d, d2) and merged["E"][0] is b2
    assert merged["E"][1].kind == "caller"


def test_a_command_that_submits_nothing_is_read_for_its_callee_by_its_first_word(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a command runs a repository script that runs a variable it carries (`COMMAND=... sbatch job.sub`)
    is read from the command's first word; its other words only for a submitter (`sbatch`, `bash`)."""
    from bot.lang.shell import parse

    asked: list[list[str]] = []
    real = parse.callee_of

    def counted(words: list[str]) -> Any:
        asked.append(words)
        return real(words)

    monkeypatch.setattr(parse, "callee_of", counted)
    src = (b'CMD="python3 -m pkg.train a=1" sbatch --time=1 job.sub\n'
           b'CMD="python3 -m pkg.train b=2" ./go.sh x y\n'
           b"echo done and more words\n")
    script = parse.analyse(src, carries=lambda target, name: True)
    assert asked == [["sbatch", "--time=1", "job.sub"], ["./go.sh"], ["echo"]]
    assert [(launch.carrier, [o.key for o in launch.overrides]) for launch in script.launches] == [
        ("job.sub", ["a"]), ("./go.sh", ["b"])]


def test_a_code_cell_without_shell_never_has_its_characters_placed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A code cell's characters are paired with their bytes only when the cell holds shell: a Python cell's
    strings (escapes and all) are read as text alone, and the shell cell's view is what it was."""
    from bot.lang.embedded import json_spans, notebooks

    roots: list[Any] = []

    def kept(data: bytes) -> Any:
        roots.append(json_spans.read_json(data))
        return roots[-1]

    monkeypatch.setattr(notebooks, "read_json", kept)
    data = json.dumps({"cells": [
        {"cell_type": "code", "source": ["x = \"caf\u00e9\\n\"\n", "print(x)\n"]},
        {"cell_type": "code", "source": ["!python train.py a=\"\u00e9\" \\\n", "  b=2\n"]}]}, indent=1).encode()
    views = notebooks.notebook_views(data)
    python_cell, shell_cell = (cell.members["source"].items for cell in roots[0].members["cells"].items)
    assert python_cell[0].data is not None and python_cell[0].spans is None  # escapes, é: not placed
    assert [s.data for s in shell_cell] == [None, None]  # placed: its view maps each byte
    assert views[0].text.decode().split() == ["python", "train.py", 'a="é"', "\\", "b=2"]
    view = views[0]
    for at, host in enumerate(view.host_at[:-1]):
        if view.text[at : at + 1] in (b"a", b"b", b"2"):
            assert data[host : host + 1] == view.text[at : at + 1]


@pytest.mark.parametrize("text", ["", "plain", "é", "aé", "éa", "ü☃𝄞 x", "a\néb\n☃☃ c: 𝄞\nend", "中文 and ascii ü"])
def test_a_workflows_character_offsets_are_found_run_by_run_as_every_byte_finds_them(text: str) -> None:
    """ruamel counts a workflow's characters; each character's byte is found from the runs of multi-byte
    characters (one entry each), as a table of every character's first byte found it."""
    from bot.lang.embedded.workflow import _Offsets

    data = text.encode("utf-8")
    every = [i for i, byte in enumerate(data) if byte & 0xC0 != 0x80] + [len(data)]
    offsets = _Offsets(data)
    assert [offsets.byte(i) for i in range(len(text) + 1)] == every
    assert len(offsets.wide) == sum(len(ch.encode("utf-8")) > 1 for ch in text)
