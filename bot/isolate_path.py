"""The bot's first step: the repository it reads is taken off the import path before anything is imported.

A repository may hold Python files named like the modules the bot imports (`yaml.py`, `omegaconf.py`,
`git.py`, a `hydra/` package) or a `hydra_plugins/` package, which Hydra's plugin scan imports while it
composes. None of it runs while no directory of the repository is on the import path. One gets there
when the bot is started from inside the repository as `python -m bot` (Python puts the working
directory first) or with PYTHONPATH naming it (`PYTHONPATH=.`). So the entry (bot.__main__) first
takes off `sys.path`, and off PYTHONPATH (which child processes inherit; forked workers inherit
`sys.path`), every entry that is a repository the command line names or a path inside one: `--repo
PATH` and the lines of `--repos FILE` that are directories; an empty or relative entry is taken from
the working directory. A Python child started in the repository does not put it first either
(PYTHONSAFEPATH). A repository the command knows only once bot.toml is read is taken off by the
command as soon as it is resolved (`forget`, from bot.commands.output.local_repository), before any
third-party module is imported. The interpreter's own directories (a `.venv` inside the repository) stay.

This module imports only `os` and `sys`, which Python has loaded before the bot's first line runs, so
nothing is looked up on the import path before it is cleaned. What no program can guard: what Python
runs before that first line (a `sitecustomize.py` or `usercustomize.py` on PYTHONPATH; under `python -m
bot` from the repository's root, the standard modules `runpy` imports, so a `types.py` or `functools.py`
there, and a `bot/` package of its own, which runs instead of the bot).
"""

import os  # no `from __future__ import ...`: that is an import too, of a module Python has not loaded
import sys


def isolate(argv: list[str]) -> None:
    """Every repository the command line names off the import path, and a Python child process never puts
    its working directory (or script's) first on its own (PYTHONSAFEPATH, Python 3.11 and later)."""
    for target in command_line_targets(argv):
        forget(target)
    os.environ["PYTHONSAFEPATH"] = "1"


def command_line_targets(argv: list[str]) -> list[str]:
    """The local repository directories the command line names: `--repo PATH` (`--repo=PATH`) and the lines
    of `--repos FILE`, as the commands read them; names that are no directory are resolved later."""
    found: list[str] = []
    items = iter(argv)
    for arg in items:
        if arg == "--":
            break
        name, equals, value = arg.partition("=")
        if name not in ("--rep", "--repo", "--repos"):  # `--rep`: argparse takes an unambiguous prefix
            continue
        given = value if equals else next(items, None)
        if given is None:
            break
        found += _listed(given) if name == "--repos" else [given]
    return [path for path in found if os.path.isdir(path)]


def _listed(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]


def forget(root: str | os.PathLike[str]) -> None:
    """Take `root` and every path inside it off sys.path and PYTHONPATH (its own environment's directories aside)."""
    cwd = os.getcwd()
    targets = _forms(cwd, os.fspath(root))
    environments = {_real(cwd, os.fspath(p)) for p in (sys.prefix, sys.exec_prefix, sys.base_prefix,
                                                       sys.base_exec_prefix)}
    kept = [e for e in environments if any(_within(e, t) for t in targets)]  # e.g. a .venv in the repository

    def inside(entry: str) -> bool:
        forms = _forms(cwd, entry)
        return (any(_within(f, t) for f in forms for t in targets)
                and not any(_within(f, k) for f in forms for k in kept))

    sys.path[:] = [e for e in sys.path if not (isinstance(e, str) and inside(e))]
    value = os.environ.get("PYTHONPATH")
    if value is not None:
        entries = [e for e in value.split(os.pathsep) if not inside(e)]
        if entries:
            os.environ["PYTHONPATH"] = os.pathsep.join(entries)
        else:
            del os.environ["PYTHONPATH"]


def _forms(cwd: str, path: str) -> set[str]:
    """The path as written (absolute, from the working directory; "" is it) and with its links resolved."""
    absolute = os.path.normpath(os.path.join(cwd, path)) if path else cwd
    return {absolute, _real(cwd, absolute)}


def _real(cwd: str, path: str) -> str:
    return os.path.realpath(os.path.join(cwd, path))


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
