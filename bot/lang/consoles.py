"""Console scripts a repository's packages declare: `sheeprl = "sheeprl.cli:run"` makes the command
`sheeprl exp=ppo` a launch of the module sheeprl.cli.

Read from the packaging metadata as written, never by running it: `[project.scripts]` and
`[tool.poetry.scripts]` of pyproject.toml, `console_scripts` under `[options.entry_points]` of
setup.cfg, and the `entry_points={"console_scripts": [...]}` literal of a setup.py call (a name
bound once at module level to such a literal counts too). A file that does not parse declares
nothing: the packaging is not what the bot checks.
"""

from __future__ import annotations

import ast
import posixpath
import re
import sys
from collections.abc import Iterable
from typing import Any

from bot.pyparse import parse_ast

PACKAGING_NAMES = ("pyproject.toml", "setup.cfg", "setup.py")
FILE = "./"  # a target that is a script file of the repository, not a module
_SPEC = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._+-]*)\s*=\s*([A-Za-z_][\w.]*)\s*(?::\s*([A-Za-z_][\w.]*))?\s*"
                   r"(?:\[[^\]]*\])?\s*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
_SCRIPTS_TABLE = re.compile(rb"\bscripts\s*[\].=]|\bscript-files\b")  # `[project.scripts]`, `scripts = {`,
# `scripts.x =`, setuptools' `script-files = [...]`
_SCRIPT_FILES = re.compile(rb"\bscripts\s*=")  # setup.py's `scripts=[...]`, setup.cfg's `scripts =`
_TARGET = re.compile(r"^([A-Za-z_][\w.]*)\s*(?::\s*([A-Za-z_][\w.]*))?$")


def is_packaging(path: str) -> bool:
    """Whether a repository path names a packaging metadata file."""
    return path.rpartition("/")[2] in PACKAGING_NAMES


def console_scripts(files: Iterable[tuple[str, bytes]]) -> dict[str, str]:
    """Command name -> "module:function" (or "module") over the given packaging files; a script file the
    packaging installs as a command (`script-files`, `scripts=`) -> "./path/in/the/repository".

    Files nearer the root come first, and a name keeps the first target declared for it.
    """
    import configparser  # here: most runs read no packaging file

    table: dict[str, str] = {}
    for path, data in sorted(files, key=lambda item: (item[0].count("/"), item[0])):
        name = path.rpartition("/")[2]
        reader = {"pyproject.toml": _pyproject, "setup.cfg": _setup_cfg, "setup.py": _setup_py}.get(name)
        declares = (_SCRIPTS_TABLE.search(data) if name == "pyproject.toml"
                    else b"console_scripts" in data or _SCRIPT_FILES.search(data))
        if reader is None or not declares:
            continue  # declares none: not parsed
        try:
            text = data.decode("utf-8")
            found = reader(text)
        except (UnicodeDecodeError, ValueError, SyntaxError, RecursionError, configparser.Error):
            continue
        folder = path.rpartition("/")[0]
        for command, target in found:
            if target.startswith(FILE):  # a path relative to the packaging file
                target = FILE + posixpath.normpath(posixpath.join(folder, target[len(FILE):]))
                if target.startswith(FILE + ".."):
                    continue
            table.setdefault(command, target)
    return table


def _target(text: str) -> str | None:
    match = _TARGET.match(text.strip())
    if match is None:
        return None
    module, function = match.groups()
    return f"{module}:{function}" if function else module


def _pyproject(text: str) -> list[tuple[str, str]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

    data = tomllib.loads(text)
    found: list[tuple[str, str]] = []
    project = data.get("project")
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    tables = [project.get("scripts") if isinstance(project, dict) else None,
              poetry.get("scripts") if isinstance(poetry, dict) else None]
    for table in tables:
        if not isinstance(table, dict):
            continue
        for command, value in table.items():
            spec = value.get("callable") if isinstance(value, dict) else value  # poetry's long form
            target = _target(spec) if isinstance(spec, str) else None
            if target is not None and _NAME.match(command):
                found.append((command, target))
    setuptools = data.get("tool", {}).get("setuptools") if isinstance(data.get("tool"), dict) else None
    files = setuptools.get("script-files") if isinstance(setuptools, dict) else None
    return found + _files(files if isinstance(files, list) else [])


def _files(paths: Iterable[Any]) -> list[tuple[str, str]]:
    """Script files installed as commands of their own name."""
    found = []
    for path in paths:
        if isinstance(path, str) and path.strip() and not path.startswith("/"):
            name = path.strip().rpartition("/")[2]
            if _NAME.match(name):
                found.append((name, FILE + path.strip()))
    return found


def _setup_cfg(text: str) -> list[tuple[str, str]]:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    found = _files(parser.get("options", "scripts").split()) if parser.has_option("options", "scripts") else []
    if not parser.has_option("options.entry_points", "console_scripts"):
        return found
    return found + _specs(parser.get("options.entry_points", "console_scripts").splitlines())


def _specs(lines: Iterable[Any]) -> list[tuple[str, str]]:
    found = []
    for line in lines:
        match = _SPEC.match(line) if isinstance(line, str) else None
        if match is not None:
            command, module, function = match.groups()
            found.append((command, f"{module}:{function}" if function else module))
    return found


def _setup_py(text: str) -> list[tuple[str, str]]:
    tree = parse_ast(text)
    bound: dict[str, list[ast.expr]] = {}
    for node in tree.body:  # NAME = {...} at module level, once
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bound.setdefault(node.targets[0].id, []).append(node.value)
    found: list[tuple[str, str]] = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        for keyword in call.keywords:
            if keyword.arg == "entry_points":
                found.extend(_entry_points(_bound(keyword.value, bound), bound))
            elif keyword.arg == "scripts":
                listed = _bound(keyword.value, bound)
                if isinstance(listed, (ast.List, ast.Tuple)):
                    found.extend(_files(e.value for e in listed.elts if isinstance(e, ast.Constant)))
    return found


def _bound(node: ast.expr, bound: dict[str, list[ast.expr]]) -> ast.expr:
    if isinstance(node, ast.Name) and len(bound.get(node.id, [])) == 1:
        return bound[node.id][0]
    return node


def _entry_points(node: ast.expr, bound: dict[str, list[ast.expr]]) -> list[tuple[str, str]]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # the INI form: "[console_scripts]\n..."
        import configparser

        parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        parser.read_string(node.value)
        if not parser.has_section("console_scripts"):
            return []
        return _specs(f"{name} = {value}" for name, value in parser.items("console_scripts"))
    if not isinstance(node, ast.Dict):
        return []
    for key, value in zip(node.keys, node.values):
        if isinstance(key, ast.Constant) and key.value == "console_scripts":
            value = _bound(value, bound)
            if isinstance(value, (ast.List, ast.Tuple)):
                return _specs(e.value for e in value.elts if isinstance(e, ast.Constant))
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return _specs(value.value.splitlines())
    return []
