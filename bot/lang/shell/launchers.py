"""Which program a command runs: the launcher words (python, torchrun, wrappers, runners) before the entry point.

`find_entry` steps over wrappers (`nohup`, `env A=1`, `timeout 5`, `ray job submit ... --`) and runners
(`srun`, `uv run`, `deepspeed`, ...) to the Python entry point, or to a shell script handed overrides.
"""

from __future__ import annotations

import re

from bot.context import NO_CONSOLES, Consoles
from bot.ir import CONSOLE, DORA, SHELL_SCRIPT
from bot.lang.shell.text import Field
from bot.lang.shell.tools import NOT_LAUNCHES, TOOL_MODULES

PYTHON = re.compile(r"^(?:.*/)?python(?:\d+(?:\.\d+)*)?$")
TORCHRUN = re.compile(r"^(?:.*/)?torchrun$")
COVERAGE = re.compile(r"^(?:.*/)?coverage(?:-?\d+(?:\.\d+)*)?$")  # coverage, coverage3, coverage-3.12
WRAPPERS = {"nohup", "exec", "time", "command", "builtin", "sudo", "nice", "stdbuf", "timeout",
            "setsid", "numactl", "taskset", "xargs", "unbuffer", "chrt", "ionice"}
RUNNERS = {"srun", "mpirun", "mpiexec", "deepspeed", "uv", "poetry", "conda", "pdm", "pipenv",
           "accelerate", "hatch", "rye", "pixi", "micromamba", "mamba", "horovodrun", "composer",
           "singularity", "apptainer", "docker", "podman"}
# runners that launch only through a subcommand (`conda create -n x python=3.10` runs nothing)
RUNNER_SUBCOMMANDS = {"uv": {"run"}, "poetry": {"run"}, "conda": {"run"}, "pdm": {"run"}, "pipenv": {"run"},
                      "hatch": {"run"}, "rye": {"run"}, "pixi": {"run", "exec"}, "micromamba": {"run"},
                      "mamba": {"run"}, "accelerate": {"launch"}, "docker": {"run", "exec"},
                      "podman": {"run", "exec"}, "singularity": {"exec", "run"}, "apptainer": {"exec", "run"}}
# a runner's options that take no value: the word after one is the program (`uv run --frozen pytest`)
RUNNER_FLAGS = {"--", "--frozen", "--locked", "--no-sync", "--isolated", "--no-dev", "--all-extras", "--active",
                "--no-project", "--offline", "--exact", "--no-editable", "--all-packages", "--quiet", "-q",
                "--verbose", "--no-capture-output", "--live-stream", "--rm", "-it", "-i", "-t", "--nv"}
RUNNER_MODULES = {"composer.cli.launcher"}  # `python -m composer.cli.launcher -n 8 train.py`: a runner
PYTHON_VALUE_OPTIONS = {"-X", "-W", "-Q"}
WRAPPER_VALUE_OPTIONS = {"timeout": {"-s", "--signal", "-k", "--kill-after"}, "nice": {"-n"},
                         "stdbuf": {"-i", "-o", "-e"}, "chrt": {"-p"}}
TORCHRUN_FLAGS = {"--standalone", "--no-python", "--no_python", "--run-path", "--run_path",
                  "--module", "-m", "--redirects", "--tee"}
# `coverage run`'s options that take a value (as `--opt=v` or `--opt v`); any other option takes none
COVERAGE_VALUE_OPTIONS = {"--concurrency", "--context", "--data-file", "--include", "--omit", "--save-signal",
                          "--source", "--debug", "--rcfile"}
DORA_SUBCOMMANDS = {"run", "launch", "info"}  # what runs (or names) one experiment with the overrides
DORA_VALUE_OPTIONS = {"-f", "--from_sig", "--ddp_workers", "-p", "--partition", "-g", "--gpus", "-c",
                      "--constraint", "--comment", "--qos", "--account"}
def _basename(text: str) -> str:
    return text.rsplit("/", 1)[-1]


_CALLERS = {"source", ".", "zsh"}  # what runs a repository script besides bash and sh (bot.lang.shell.calls)


def stops_launch(first: Field, consoles: Consoles = NO_CONSOLES) -> bool:
    """Whether a command whose first field is `first` runs no launch (find_entry stops at it, whatever the
    other words: no launcher, wrapper, runner, interpreter, script or console script) and no repository
    script (bot.lang.shell.calls.script_call)."""
    if not first.static:
        return False  # a prefix set at run time may wrap a launcher
    word = first.text
    base = _basename(word)
    return not (base == "env" or base == "ray" or base in WRAPPERS or base in RUNNERS or TORCHRUN.match(base)
                or COVERAGE.match(base)
                or base == "dora" or PYTHON.match(base) or base in ("bash", "sh") or word.endswith((".sh", ".py"))
                or word in _CALLERS or base in consoles)


def find_entry(words: list[str], fields: list[Field],
               consoles: Consoles = NO_CONSOLES) -> tuple[str, str | None, str, int] | None:
    """(launcher, entry, entry kind, index of the first argument after the entry); `consoles`: the
    repository's console scripts, each a launch."""
    i = 0
    n = len(words)
    launcher = None
    while i < n:
        word = words[i]
        base = _basename(word)
        if fields[i].static is False and not PYTHON.match(base) and "PYTHON" not in word.upper():
            after = _launcher_after(words, i + 1)
            if after is None:
                return None
            launcher = launcher or word  # `$UV_RUN [--with x] python3 -m M`: a prefix set at run time
            i = after
            continue
        if base == "env":
            i += 1
            while i < n and (("=" in words[i] and not words[i].startswith("-")) or words[i] in ("-i", "-")):
                i += 1
            continue
        if base in WRAPPERS:
            i += 1
            while i < n and words[i].startswith("-"):
                takes_value = words[i] in WRAPPER_VALUE_OPTIONS.get(base, ())
                i += 2 if takes_value else 1
            if base in ("timeout", "nice", "chrt", "taskset") and i < n and not PYTHON.match(_basename(words[i])):
                i += 1  # the duration, priority or CPU list
            continue
        if base == "ray" and words[i + 1 : i + 3] == ["job", "submit"]:
            if "--" not in words[i:]:
                return None
            launcher = "ray job submit"
            i = words.index("--", i) + 1
            continue
        if base in RUNNERS:
            launcher = launcher or base
            ran = _after_runner(words, fields, i + 1, base, launcher, consoles)
            if not isinstance(ran, int):
                return ran
            i = ran
            continue
        return _program(words, fields, i, launcher, consoles)
    return None


def _program(words: list[str], fields: list[Field], i: int, launcher: str | None,
             consoles: Consoles) -> tuple[str, str | None, str, int] | None:
    """What the program at `words[i]` (past the wrappers and runners) launches, if it launches anything."""
    word = words[i]
    base = _basename(word)
    if TORCHRUN.match(base):
        return _torchrun(words, i + 1, launcher or "torchrun")
    if base == "dora" and fields[i].static:
        return _dora(words, i + 1, f"{launcher} dora" if launcher else "dora")
    if _is_coverage_run(words, i) and fields[i].static:
        return _coverage(words, i + 2, launcher or "coverage run")
    if PYTHON.match(base) or (not fields[i].static and "PYTHON" in word.upper()):
        return _python(words, i + 1, launcher or "python", consoles)
    if base in ("bash", "sh") and i + 1 < len(words) and words[i + 1].endswith(".sh") and fields[i + 1].static:
        return launcher or base, words[i + 1], SHELL_SCRIPT, i + 2
    if word.endswith(".sh") and fields[i].static:
        return launcher or "script", word, SHELL_SCRIPT, i + 1
    if word.endswith(".py") and fields[i].static and word.startswith(("./", "../")) and "=" not in word:
        return launcher or "script", word, "script", i + 1  # `./train.py a=1`: run by its `#!` line
    if _is_console(words, fields, i, consoles):
        return launcher or "console script", word, CONSOLE, i + 1
    return None


def _after_runner(words: list[str], fields: list[Field], i: int, base: str,
                  launcher: str, consoles: Consoles) -> tuple[str, str | None, str, int] | int | None:
    """What a runner's words run: a launch, the index of the interpreter they reach, or None (a program
    that is no launch, such as `pytest`)."""
    n = len(words)
    subcommands = RUNNER_SUBCOMMANDS.get(base)
    if subcommands is not None:
        at = next((j for j in range(i, n) if not words[j].startswith("-")), n)
        if at == n or words[at] not in subcommands:
            return None
        i = at + 1  # the subcommand is neither a console script nor the program
    start = i
    while i < n and not (PYTHON.match(_basename(words[i])) or TORCHRUN.match(_basename(words[i]))):
        after_option = words[i - 1].startswith("-") and "=" not in words[i - 1] and words[i - 1] not in RUNNER_FLAGS
        if _is_console(words, fields, i, consoles) and (not after_option or (
                i + 1 < n and "=" in words[i + 1] and not words[i + 1].startswith("-"))):
            # `uv run sheeprl ...`, `srun --exclusive sheeprl a=1`; not an option's value (`-J sheeprl`)
            return launcher, words[i], CONSOLE, i + 1
        if _is_coverage_run(words, i) and (i == start or not after_option):
            return _coverage(words, i + 2, launcher)  # `uv run coverage run app.py`
        if words[i] in NOT_LAUNCHES and (i == start or not after_option):
            return None  # the program the runner runs (`uv run pytest`), not an option's value (`-J git`)
        if words[i].endswith(".py") and not words[i].startswith("-"):
            return launcher, words[i], "script", i + 1  # deepspeed / accelerate launch run a script
        if words[i] == "dora" and not after_option:
            return _dora(words, i + 1, f"{launcher} dora")
        if words[i] in ("-m", "--module") and i + 1 < n and base in ("deepspeed", "accelerate", "uv"):
            return _module(launcher, words[i + 1], i + 2)
        i += 1
    return i


# bash runs its own builtin, whatever a package installs under the name (`test`, `source`, `wait`)
_BUILTINS = {"test", "[", "echo", "printf", "cd", "export", "source", ".", "eval", "exec", "set", "unset", "read",
             "true", "false", "wait", "kill", "type", "command", "builtin", "alias", "local", "declare", "shift",
             "trap", "exit", "return", "let", "pwd", "help", "history", "jobs", "times", "ulimit", "umask"}


def _is_console(words: list[str], fields: list[Field], i: int, consoles: Consoles) -> bool:
    return (bool(consoles) and (i >= len(fields) or fields[i].static is not False) and _basename(words[i]) in consoles
            and words[i] not in _BUILTINS)


def _launcher_word(word: str) -> bool:
    base = _basename(word)
    return (bool(PYTHON.match(base) or TORCHRUN.match(base) or COVERAGE.match(base)) or base in RUNNERS
            or base in WRAPPERS or base == "env")


def _launcher_after(words: list[str], start: int, reach: int = 6) -> int | None:
    """The index of a launcher word within the options that follow a run-time prefix, if there is one."""
    for j in range(start, min(len(words), start + reach)):
        if _launcher_word(words[j]):
            return j
        if ("=" in words[j] and not words[j].startswith("-")) or words[j].endswith((".py", ".sh")):
            return None  # an override or a program: the prefix is not a wrapper of a launcher
    return None


def _python(words: list[str], i: int, launcher: str, consoles: Consoles) -> tuple[str, str | None, str, int] | None:
    n = len(words)
    while i < n:
        word = words[i]
        if word == "-m" and i + 1 < n:
            module = words[i + 1]
            if module in ("torch.distributed.run", "torch.distributed.launch"):
                return _torchrun(words, i + 2, launcher + " -m " + module)
            if module == "dora":
                return _dora(words, i + 2, launcher + " -m dora")
            if module == "coverage" and words[i + 2 : i + 3] == ["run"]:
                return _coverage(words, i + 3, launcher + " -m coverage run")
            if module in RUNNER_MODULES:
                ran = _after_runner(words, [], i + 2, module, launcher + " -m " + module, consoles)
                if not isinstance(ran, int):
                    return ran
                if ran >= n:
                    return None
                if TORCHRUN.match(_basename(words[ran])):
                    return _torchrun(words, ran + 1, launcher + " -m " + module)
                return _python(words, ran + 1, launcher + " -m " + module, consoles)
            return _module(launcher, module, i + 2)
        if word.startswith("-m") and len(word) > 2:
            return _module(launcher, word[2:], i + 1)
        if word in ("-c", "-"):
            return None
        if word in PYTHON_VALUE_OPTIONS:
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        return launcher, word, "script", i + 1
    return None


def _module(launcher: str, module: str, after: int) -> tuple[str, str | None, str, int] | None:
    """A launch of `python -m module`; None for a well-known tool's module (`pip`), which runs no Hydra app."""
    return None if module in TOOL_MODULES else (launcher, module, "module", after)


def _dora(words: list[str], i: int, launcher: str) -> tuple[str, str | None, str, int] | None:
    """`dora [-P PKG] [--main_module M] run|launch|info [options] overrides`: dora runs module M (`train`) of
    PKG, else of the one package beside where it runs that has it; `dora grid` runs a grid file's own."""
    n = len(words)
    package, main = None, "train"
    while i < n and words[i].startswith("-"):
        name, eq, value = words[i].partition("=")
        if name in ("-P", "--package", "--main_module", "--main-module"):
            if not eq:
                if i + 1 >= n:
                    return None
                i += 1
                value = words[i]
            package, main = (value, main) if name in ("-P", "--package") else (package, value)
        i += 1
    if i >= n or words[i] not in DORA_SUBCOMMANDS:
        return None
    i += 1
    while i < n and words[i].startswith("-"):
        i += 2 if words[i] in DORA_VALUE_OPTIONS else 1
    return (launcher, f"{package}.{main}", "module", i) if package else (launcher, main, DORA, i)


def _is_coverage_run(words: list[str], i: int) -> bool:
    """`coverage run` at `words[i]`; coverage's other commands (`report`, `combine`) run nothing."""
    return bool(COVERAGE.match(_basename(words[i]))) and words[i + 1 : i + 2] == ["run"]


def _coverage(words: list[str], i: int, launcher: str) -> tuple[str, str | None, str, int] | None:
    """`coverage run [options] app.py args` runs app.py with args as python would; `-m`/`--module` (also in a
    cluster of short flags, `-pm`) makes the first word after the options a module."""
    n = len(words)
    module = False
    while i < n:
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word in ("-m", "--module") or (not word.startswith("--") and "m" in word[1:]):
            module = True
        i += 2 if word in COVERAGE_VALUE_OPTIONS else 1
    if i >= n:
        return None
    return _module(launcher, words[i], i + 1) if module else (launcher, words[i], "script", i + 1)


def _torchrun(words: list[str], i: int, launcher: str) -> tuple[str, str | None, str, int] | None:
    n = len(words)
    while i < n:
        word = words[i]
        if word in ("-m", "--module") and i + 1 < n:
            return _module(launcher, words[i + 1], i + 2)
        if word.startswith("-"):
            i += 1 if ("=" in word or word in TORCHRUN_FLAGS) else 2
            continue
        return launcher, word, "script", i + 1
    return None
