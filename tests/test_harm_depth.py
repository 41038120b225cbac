"""Deep Python never kills the bot: every parse goes through bot.pyparse, whose scan refuses what
libcst's native parser would overflow the C stack on (a segfault, exit 139, no report), and the file
becomes an error entry with a one-line reason. The commands run in a child process here, since a
segfault would take the test run with it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.pyparse import BUDGET, MAX_BRACKETS, TooDeep, parse_ast, parse_cst, too_deep
from tests.conftest import ROOT, git, make_repo

LAUNCH = '["python3", "-m", "verl.trainer.main_ppo", "actor_rollout_ref.actor.megatron.use_mbridge=False"]'
HEAD = f"import subprocess\nsubprocess.run({LAUNCH})\n"
APP = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="config", version_base=None)\n'
       "def main(cfg):\n    pass\n\n\n")
NESTED = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"  # what libcst cannot take: brackets
CHAINED = "ok = " + " and ".join(["ready"] * 36000) + "\n"  # valid Python CPython runs, 180 KB

# Each shape nests one more level of libcst's tree per repetition (n: how many)
SHAPES: dict[str, Callable[[int], str]] = {
    "parens": lambda n: "x = " + "(" * n + "1" + ")" * n,
    "lists": lambda n: "x = " + "[" * n + "1" + "]" * n,
    "dicts": lambda n: "x = " + "{1: " * n + "1" + "}" * n,
    "calls nested": lambda n: "x = " + "f(" * n + "1" + ")" * n,
    "and": lambda n: "x = " + " and ".join(["a"] * n),
    "or over lines": lambda n: "x = (" + " or\n    ".join(["a"] * n) + ")",
    "plus": lambda n: "x = " + " + ".join(["a"] * n),
    "power": lambda n: "x = " + " ** ".join(["a"] * n),
    "not": lambda n: "x = " + "not " * n + "a",
    "minus": lambda n: "x = " + "-" * n + "a",
    "attributes": lambda n: "x = a" + ".b" * n,
    "calls chained": lambda n: "x = a" + "()" * n,
    "calls spaced": lambda n: "x = a" + " (1)" * n,
    "subscripts": lambda n: "x = a" + "[0]" * n,
    "methods": lambda n: "x = a" + ".b(1, 2)" * n,
    "lambdas": lambda n: "x = " + "lambda: " * n + "1",
    "conditionals": lambda n: "x = " + "a if b else " * n + "c",
    "glued conditionals": lambda n: "x = " + "1if 1else " * n + "1",
    "walrus": lambda n: "x = " + "(a := " * n + "1" + ")" * n,
    "f-strings": lambda n: "x = " + "f'{" * n + "1" + "}'" * n,
    "f-strings alternating": lambda n: "x = " + "".join("f" + "'\""[i % 2] + "{" for i in range(n)) + "1"
    + "".join("}" + "'\""[i % 2] for i in reversed(range(n))),
    "elif": lambda n: "if a:\n    pass\n" + "elif a:\n    if b:\n        pass\n" * n,
    "and in brackets": lambda n: "x = " + "(a and " * min(n, 150) + " and ".join(["a"] * n) + ")" * min(n, 150),
}


def bot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BOT_CACHE_DIR": str(cwd / ".cache")}
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=300)


def _largest_accepted(shape: Callable[[int], str]) -> int:
    low, high = 1, 40_000
    while low < high:
        middle = (low + high + 1) // 2
        if too_deep(shape(middle) + "\n") is None:
            low = middle
        else:
            high = middle - 1
    return low


def test_the_scan_refuses_what_libcst_would_overflow_and_libcst_takes_all_it_accepts(tmp_path: Path) -> None:
    largest = {name: _largest_accepted(shape) for name, shape in SHAPES.items()}
    assert all(too_deep(SHAPES[name](7000) + "\n") for name in SHAPES)  # where libcst's stack runs out
    assert largest["parens"] == MAX_BRACKETS and largest["and"] > 1000  # long chains stay readable
    # every shape at the largest size the scan accepts parses, in a child process: none crashes
    probe = tmp_path / "probe.py"
    probe.write_text("import json, sys\nimport libcst\nfor text in json.load(open(sys.argv[1])):\n"
                     "    try:\n        libcst.parse_module(text)\n    except libcst.ParserSyntaxError:\n"
                     "        pass\nprint('survived')\n")
    cases = tmp_path / "cases.json"
    import json

    cases.write_text(json.dumps([SHAPES[name](n) + "\n" for name, n in largest.items()]))
    done = subprocess.run([sys.executable, str(probe), str(cases)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "survived" in done.stdout, (done.returncode, done.stderr[-500:])


def test_real_python_is_never_refused() -> None:
    """The bot's own source and tests, and long but flat shapes real files have."""
    for path in [*ROOT.glob("bot/**/*.py"), *ROOT.glob("tests/**/*.py")]:
        assert too_deep(path.read_bytes()) is None, path
    flat = ["x = {" + ", ".join(f"'k{i}': {i}" for i in range(50_000)) + "}",
            "help = (" + "\n".join(f"    'line {i} of a long text '" for i in range(5000)) + ")",
            "\n".join(f"import package.module{i}.part" for i in range(5000)),
            "".join(f"if a == {i}:\n    x = {i}\nelif b:\n    pass\n" for i in range(3000)),
            "\n".join(f"value_{i} = config.section.group.key + other.section.key * 2" for i in range(5000)),
            "\n".join(f"line_{i} = f'{{a}}{{{{b}}}} {{d:{{width}}}} {{x!r:>{{n}}}}'" for i in range(5000))]
    for text in flat:
        assert too_deep(text + "\n") is None, text[:60]


def test_guarded_parses_raise_too_deep_with_the_line() -> None:
    with pytest.raises(TooDeep, match=r"brackets nested more than 200 deep at line 2"):
        parse_cst("a = 1\n" + NESTED)
    with pytest.raises(TooDeep, match=r"at line 1"):
        parse_cst(CHAINED)
    with pytest.raises(TooDeep):  # CPython's own refusal, as the same error
        parse_ast("x = " + " + ".join(["a"] * 5000) + "\n")
    assert isinstance(TooDeep("x"), RecursionError)  # callers that skip unreadable nesting skip it too


def _deep_repo(path: Path) -> Path:
    return make_repo(path, {"deep.py": HEAD + NESTED, "chain.py": HEAD + CHAINED, "ok.py": HEAD})


def test_run_reports_deep_python_as_error_entries(tmp_path: Path) -> None:
    repo = _deep_repo(tmp_path / "repo")
    done = bot("run", "--repo", str(repo), "--dry-run", "--no-cache", cwd=tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-400:])
    assert "deep.py: not checked: Python brackets nested more than 200 deep at line 3" in done.stdout
    assert "chain.py: not checked: Python nested or chained deeper than the bot parses" in done.stdout
    assert "ok.py:2:" in done.stdout and "2 errors" in done.stdout  # the rest of the repository is checked


def test_notebook_and_doc_blocks_go_through_the_guard(tmp_path: Path) -> None:
    import json

    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": HEAD + CHAINED}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    repo = make_repo(tmp_path / "repo", {"run.ipynb": json.dumps(notebook),
                                         "README.md": f"Run:\n\n```python\n{HEAD}{CHAINED}```\n"})
    done = bot("run", "--repo", str(repo), "--dry-run", "--no-cache", cwd=tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-400:])
    assert "run.ipynb: not checked: Python nested or chained" in done.stdout
    assert "README.md: not checked: Python nested or chained" in done.stdout


def test_compose_check_and_launches_say_the_entry_was_not_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {
        "conf/config.yaml": "a:\n  b: 1\n",
        "deep.py": APP + NESTED, "chain.py": APP + CHAINED,
        "run.sh": "#!/bin/bash\npython3 deep.py a.b=2\npython3 chain.py a.b=3\n"})
    for command in ("compose-check", "launches"):
        done = bot(command, "--repo", str(repo), cwd=tmp_path)
        assert done.returncode in (0, 1), (command, done.returncode, done.stderr[-400:])
        out = done.stdout + done.stderr
        assert "deep.py could not be read: Python brackets nested more than 200 deep at line 9" in out, out
        assert "chain.py could not be read: Python nested or chained deeper" in out, out


def test_infer_and_watch_report_deep_files_and_go_on(tmp_path: Path) -> None:
    engine = "class Engine:\n    def __init__(self, config):\n        self.config = config\n"
    deep_elsewhere = "def f(self):\n    y = self" + ".b" * 1500 + "\n"  # CPython takes it; a recursive walk does not
    repo = make_repo(tmp_path / "repo", {"engine.py": engine, "other.py": deep_elsewhere})
    before = git(repo, "rev-parse", "HEAD").strip()
    (repo / "engine.py").write_text(engine + "        assert self.config.use_fast, 'use_fast must be set'\n")
    (repo / "deep.py").write_text(NESTED)
    (repo / "chain.py").write_text(CHAINED)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "checks")
    done = bot("infer", "--repo", str(repo), "--before", before, "--after", "HEAD", cwd=tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-400:])
    assert "deep.py: validation not read: not checked: Python brackets nested more than 200" in done.stdout
    assert "chain.py: validation not read: not checked: Python nested or chained" in done.stdout
    assert "engine.py:4:" in done.stdout  # the file beside them is still read
    watched = bot("watch", "--repo", str(repo), cwd=tmp_path)
    assert watched.returncode == 0, (watched.returncode, watched.stderr[-400:])
    assert "deep.py: validation not read: not checked: Python brackets nested" in watched.stdout


def test_budget_is_a_fraction_of_what_overflows() -> None:
    assert BUDGET * 3 < 7000  # an `and` chain overflows libcst's 8 MB stack near 7,000 links


def test_infer_and_watch_do_not_read_changed_python_over_the_size_bound(tmp_path: Path) -> None:
    from bot.upstream.sources import MAX_BYTES

    engine = "class Engine:\n    def __init__(self, config):\n        self.config = config\n"
    repo = make_repo(tmp_path / "repo", {"engine.py": engine, "table.py": "TABLE = {}\n"})
    before = git(repo, "rev-parse", "HEAD").strip()
    checks = "".join(f"        assert self.config.field_{i} > 0, 'field_{i} must be positive'\n" for i in range(30_000))
    (repo / "engine.py").write_text(engine + checks)  # 2 MB of asserts
    (repo / "table.py").write_text("TABLE = {" + ", ".join(f"'k{i}': {i}" for i in range(120_000)) + "}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big")
    assert (repo / "engine.py").stat().st_size > MAX_BYTES and (repo / "table.py").stat().st_size > MAX_BYTES
    done = bot("infer", "--repo", str(repo), "--before", before, "--after", "HEAD", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-400:]
    for name in ("engine.py", "table.py"):
        size = (repo / name).stat().st_size
        assert f"{name}: validation not read: larger than 1 MB ({size} bytes): not read" in done.stdout
    watched = bot("watch", "--repo", str(repo), cwd=tmp_path)
    assert watched.returncode == 0, watched.stderr[-400:]
    assert "engine.py: validation not read: larger than 1 MB" in watched.stdout
