"""One reader per source kind: findings for a file's bytes, its parse errors, and what else to check.

The engine plans, applies and verifies edits the same way for every kind; a reader knows how
its kind is parsed. Shell-family readers analyse shell views (bot.lang.embedded.views) with
tree-sitter-bash; YAML configs and Python files are read as settings (bot.rules.settings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from bot.lang import kinds
from bot.model import Finding
from bot.rules.model import Rule

if TYPE_CHECKING:
    from pathlib import Path

    from bot.lang.embedded.views import ShellView
    from bot.lang.shell.calls import EnvInput
    from bot.lang.shell.parse import ShellScript
    from bot.rules.evaluate import LaunchFacts

UNREADABLE = 10**6  # as many parse errors as a file that no longer reads as its kind can have


class SourceUnreadable(ValueError):
    """The file is not what its name says (a notebook that is not JSON, a workflow that is not YAML)."""


@dataclass
class Reading:
    findings: list[Finding]
    partly_parsed: bool = False
    unsure: set[str] = field(default_factory=set)  # rules the parse errors may hide something from
    launches: int = 0
    reads: set[str] = field(default_factory=set)  # other repository files the findings depend on


class Reader(Protocol):
    def read(self, data: bytes, rules: list[Rule]) -> Reading: ...
    def errors(self, data: bytes) -> int: ...
    def problem(self, before: bytes, after: bytes) -> str | None: ...


@dataclass
class ShellFamilyReader:
    path: str
    kind: str
    facts: LaunchFacts | None = None
    root: Path | None = None  # the repository, to read the scripts a file calls
    _views: dict[bytes, list[ShellView]] = field(default_factory=dict)
    _scripts: dict[bytes, ShellScript] = field(default_factory=dict)

    def views(self, data: bytes) -> list[ShellView]:
        if data not in self._views:
            self._views[data] = _view_function(self.kind)(data)
        return self._views[data]

    def script(self, text: bytes) -> ShellScript:
        from bot.lang.shell.parse import analyse

        if text not in self._scripts:
            self._scripts[text] = analyse(text, all_exported=self.kind == kinds.WORKFLOW, path=self.path)
        return self._scripts[text]

    def read(self, data: bytes, rules: list[Rule]) -> Reading:
        from bot.rules.evaluate import evaluate

        try:
            views = self.views(data)
        except ValueError as exc:
            raise SourceUnreadable(str(exc)) from None
        reading = Reading([])
        for view in views:
            script = self.script(view.text)
            reading.findings.extend(view.to_host(f, data) for f in evaluate(self.path, script, rules, self.facts))
            reading.launches += len(script.launches)
            if script.partly_parsed and self.kind in (kinds.SHELL, kinds.WORKFLOW):
                from bot.rules.parse_reach import rules_reached

                reading.partly_parsed = True
                reading.unsure |= rules_reached(script, rules)
            if self.root is not None and script.calls:
                reading.findings.extend(view.to_host(f, data, lines_in_message=False)
                                        for f in self.call_findings(script, rules, reading.reads))
        return reading

    def call_findings(self, script: ShellScript, rules: list[Rule], reads: set[str]) -> list[Finding]:
        from bot.lang.shell.calls import resolve
        from bot.rules.env_calls import call_findings

        assert self.root is not None
        findings: list[Finding] = []
        for call in script.calls:
            callee = resolve(call.target, self.path, None)
            if callee is None or callee == self.path:
                continue
            reads.add(callee)
            inputs = callee_inputs(self.root, callee)
            if inputs:
                findings.extend(call_findings(self.path, script.src, call, callee, inputs, rules))
        return findings

    def errors(self, data: bytes) -> int:
        try:
            views = self.views(data)
        except ValueError:
            return UNREADABLE
        host = 0
        if self.kind == kinds.WORKFLOW:
            from bot.lang.embedded.workflow import workflow_errors

            host = workflow_errors(data)
        return host + sum(len(self.script(v.text).errors) for v in views)

    def problem(self, before: bytes, after: bytes) -> str | None:
        try:
            if len(self.views(before)) != len(self.views(after)):
                return "the edit changed where the shell code is"
        except ValueError as exc:
            return f"the edited file no longer reads as {self.kind}: {exc}"
        if self.kind == kinds.NOTEBOOK:
            from bot.lang.embedded.views import notebook_problem

            return notebook_problem(before, after)
        return None


_CALLEES: dict[tuple[str, str], tuple[float, list[EnvInput]]] = {}


def callee_inputs(root: Path, path: str) -> list[EnvInput]:
    """The environment inputs of a repository script (cached per file version); [] if not readable."""
    import os

    from bot.lang.shell.calls import env_inputs
    from bot.lang.shell.parse import analyse

    target = os.path.join(root, *path.split("/"))
    real_root = os.path.realpath(root)
    if os.path.islink(target) or not os.path.realpath(target).startswith(real_root.rstrip(os.sep) + os.sep):
        return []
    try:
        stamp = os.stat(target).st_mtime
        if (str(root), path) in _CALLEES and _CALLEES[(str(root), path)][0] == stamp:
            return _CALLEES[(str(root), path)][1]
        with open(target, "rb") as handle:
            data = handle.read(8 * 1024 * 1024 + 1)
    except OSError:
        return []
    inputs = [] if len(data) > 8 * 1024 * 1024 or b"\0" in data else env_inputs(analyse(data, path=path).launches)
    _CALLEES[(str(root), path)] = (stamp, inputs)
    return inputs


def _view_function(kind: str) -> Callable[[bytes], list[ShellView]]:
    from bot.lang.embedded import views as shell_views
    from bot.lang.embedded import workflow as workflow_shell

    if kind == kinds.SHELL:
        return lambda data: [shell_views.ShellView(data)]
    return {
        kinds.MARKDOWN: shell_views.markdown_views,
        kinds.RST: shell_views.rst_views,
        kinds.NOTEBOOK: shell_views.notebook_views,
        kinds.WORKFLOW: workflow_shell.workflow_views,
    }[kind]


@dataclass
class YamlConfigReader:
    path: str
    packages: dict[str, str] | None = None

    def read(self, data: bytes, rules: list[Rule]) -> Reading:
        from bot.lang.yaml.config import find_yaml, yaml_problem

        problem = yaml_problem(data)
        if problem is not None:
            raise SourceUnreadable(problem)
        return Reading(find_yaml(self.path, data, rules, self.packages))

    def errors(self, data: bytes) -> int:
        from bot.lang.yaml.config import yaml_errors

        return UNREADABLE if yaml_errors(data) else 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        return None


@dataclass
class PythonReader:
    path: str

    def read(self, data: bytes, rules: list[Rule]) -> Reading:
        from bot.lang.python.launch import find_python, python_errors

        if python_errors(data):
            raise SourceUnreadable("Python that libcst cannot parse")
        return Reading(find_python(self.path, data, rules))

    def errors(self, data: bytes) -> int:
        from bot.lang.python.launch import python_errors

        return UNREADABLE if python_errors(data) else 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        return None


def reader_for(path: str, kind: str, facts: LaunchFacts | None = None,
               packages: dict[str, str] | None = None, root: Path | None = None) -> Reader:
    if kind in kinds.SHELL_FAMILY:
        return ShellFamilyReader(path, kind, facts, root)
    if kind == kinds.YAML:
        return YamlConfigReader(path, packages)
    if kind == kinds.PYTHON:
        return PythonReader(path)
    raise ValueError(f"no reader for kind {kind!r}")
