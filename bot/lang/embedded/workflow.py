"""GitHub workflow files: each step's `run:` script, with the `env:` maps that feed it, as shell.

Every step is its own view (the runner starts a fresh shell per step): the workflow, job and step
`env:` entries as `KEY="value"` assignments, in that order whatever their place in the file, then
the step's script. Each byte of a value and of the script maps back to the file, so an edit to a
value fed through `env:` lands in the YAML. `${{ ... }}` expressions become run-time variables of
the same length.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from bot.lang.embedded.views import ShellView

SHELLS = {None, "bash", "sh", "bash {0}", "sh {0}", "bash -e {0}", "bash -l {0}", "bash -el {0}",
          "bash --noprofile --norc -eo pipefail {0}"}
EXPRESSION = re.compile(rb"\$\{\{.*?\}\}", re.S)
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class WorkflowError(ValueError):
    pass


class _Ruamel(Exception):
    """The fast nodes cannot tell this exactly (an empty env value's place, a folded shell): ask ruamel."""


def _compose(data: bytes, fast: bool = True) -> Any:
    """The workflow's one document (libyaml's nodes where bot.lang.yaml.fast vouches for them, else ruamel's)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    text = data.decode("utf-8")
    if fast:
        from bot.lang.yaml.fast import compose_all

        documents = compose_all(text)
        if documents is not None and len(documents) <= 1:  # several: ruamel's error says so
            return documents[0] if documents else None
    try:
        return YAML(typ="rt").compose(text)
    except YAMLError as exc:
        raise WorkflowError(" ".join(str(exc).split())) from None


def _mapping(node: Any) -> dict[str, tuple[Any, Any]]:
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    if not isinstance(node, MappingNode):
        return {}
    return {k.value: (k, v) for k, v in node.value if isinstance(k, ScalarNode)}


class _Offsets:
    """ruamel marks count characters; views need bytes. A character's byte is its index plus the bytes the
    multi-byte characters before it take beyond one each: those are found run by run (a workflow's text is
    mostly ASCII), not byte by byte."""

    def __init__(self, data: bytes) -> None:
        self.ascii = data.isascii()
        self.wide: list[int] = []  # the index of each multi-byte character, ascending
        self.extra: list[int] = []  # the bytes beyond one per character, up to and with that one
        if self.ascii:
            return
        extra = 0
        for run in _NON_ASCII.finditer(data):
            start, end = run.span()
            leads = [i for i in range(start, end) if data[i] & 0xC0 != 0x80]  # where each character starts
            for lead, after in zip(leads, [*leads[1:], end]):
                self.wide.append(lead - extra)
                extra += after - lead - 1
                self.extra.append(extra)

    def byte(self, index: int) -> int:
        if self.ascii:
            return index
        before = bisect_left(self.wide, index)  # the multi-byte characters before this one
        return index + (self.extra[before - 1] if before else 0)


_NON_ASCII = re.compile(rb"[\x80-\xff]+")


class _Builder:
    """A step's view: env assignments first, then the script, each byte mapped to the file."""

    def __init__(self) -> None:
        self.text = bytearray()
        self.host_at: list[int] = []
        self.names: dict[str, str] = {}

    def synthetic(self, text: bytes, at: int) -> None:
        self.text += text
        self.host_at.extend([at] * len(text))

    def copy(self, chunk: bytes, start: int) -> None:
        self.text += chunk
        self.host_at.extend(range(start, start + len(chunk)))

    def view(self) -> ShellView:
        return ShellView(bytes(self.text), [*self.host_at, self.host_at[-1] if self.host_at else 0], names=self.names)


def workflow_views(data: bytes) -> list[ShellView]:
    try:
        return _views(data, _compose(data), fast=True)
    except _Ruamel:
        return _views(data, _compose(data, fast=False), fast=False)


def _views(data: bytes, root: Any, fast: bool) -> list[ShellView]:
    offsets = _Offsets(data)
    top = _mapping(root)
    workflow_env = top.get("env", (None, None))[1]
    defaults_shell = _default_shell(top)
    views: list[ShellView] = []
    seen: set[int] = set()
    entries: dict[int, list[_Entry]] = {}  # each env map's entries, read once for every step it feeds
    for _, job in _mapping(top.get("jobs", (None, None))[1]).values():
        job_map = _mapping(job)
        job_shell = _default_shell(job_map) or defaults_shell
        steps = job_map.get("steps", (None, None))[1]
        for step in getattr(steps, "value", []) if steps is not None and steps.tag.endswith("seq") else []:
            step_map = _mapping(step)
            if "run" not in step_map or id(step_map["run"][1]) in seen:
                continue  # a step reused through a YAML alias is read once
            seen.add(id(step_map["run"][1]))
            shell_node = step_map.get("shell", (None, None))[1]
            if fast and shell_node is not None and shell_node.style == ">":
                raise _Ruamel
            shell = getattr(shell_node, "value", None) if shell_node is not None else job_shell
            if shell not in SHELLS:
                continue
            builder = _Builder()
            # the runner's order: workflow env, then job env, then step env, each shadowing the one before
            for env in (workflow_env, job_map.get("env", (None, None))[1], step_map.get("env", (None, None))[1]):
                if id(env) not in entries:
                    entries[id(env)] = _env_entries(data, env, offsets, fast)
                for name, text, start, end in entries[id(env)]:
                    builder.synthetic(name + b'="', start)
                    builder.copy(text, start)
                    builder.synthetic(b'"\n', end)
            if _add_script(builder, data, step_map["run"][1], offsets):
                views.append(builder.view())
    return views


def _default_shell(mapping: dict[str, tuple[Any, Any]]) -> str | None:
    defaults = _mapping(mapping.get("defaults", (None, None))[1])
    run = _mapping(defaults.get("run", (None, None))[1])
    node = run.get("shell", (None, None))[1]
    return getattr(node, "value", None) if node is not None else None


_Entry = tuple[bytes, bytes, int, int]  # an env entry's name, its value's bytes, where they start and end


def _env_entries(data: bytes, env: Any, offsets: _Offsets, fast: bool) -> list[_Entry]:
    """The entries of an `env:` map a view writes as `KEY="value"`, the value's bytes mapped to the file;
    unsafe values left out."""
    from bot.lang.yaml.fast import empty

    out: list[_Entry] = []
    for name, (key, value) in _mapping(env).items():
        if not ENV_NAME.match(name) or value is None or key.style or value.tag.endswith(("map", "seq")):
            continue
        if fast and empty(value):
            raise _Ruamel
        start, end = offsets.byte(value.start_mark.index), offsets.byte(value.end_mark.index)
        text = data[start:end]
        if value.style in ("'", '"'):
            start, end, text = start + 1, end - 1, text[1:-1]
        elif value.style is not None:
            continue  # a block scalar
        if re.search(rb'[\\"$`\n]', text) or (value.style == "'" and b"'" in text):
            continue
        out.append((name.encode(), text, start, end))
    return out


def _add_script(builder: _Builder, data: bytes, node: Any, offsets: _Offsets) -> bool:
    if node is None or not node.tag.endswith("str"):
        return False
    start, end = offsets.byte(node.start_mark.index), offsets.byte(node.end_mark.index)
    if node.style in ("|", ">"):
        first_break = data.find(b"\n", start, end)
        if first_break < 0:
            return False
        start = first_break + 1
    elif node.style in ("'", '"'):
        inner = data[start + 1 : end - 1]
        if b"\\" in inner or b"'" in inner or b"\n" in inner:
            return False  # escapes: the bytes are not the script's characters
        start, end = start + 1, end - 1
    chunk = bytearray(data[start:end])
    if node.style == ">" or node.style is None:
        _fold(chunk, 0, len(chunk))
    for match in EXPRESSION.finditer(data, start, end):
        name = f"GH_EXPR_{len(builder.names)}_".encode()
        width = match.end() - match.start()
        if width - 1 < len(name):
            name = b"_" * (width - 1)
        placeholder = name + b"_" * (width - 1 - len(name))
        chunk[match.start() - start : match.end() - start] = b"$" + placeholder
        builder.names[placeholder.decode()] = match.group().decode("utf-8", "replace")
    builder.copy(bytes(chunk), start)
    builder.synthetic(b"\n", end)
    return True


def _fold(view: bytearray, start: int, end: int) -> None:
    """A folded or plain multi-line scalar is one line of shell: its single line breaks become spaces."""
    pos = start
    while True:
        nl = view.find(b"\n", pos, end)
        if nl < 0 or nl + 1 >= end:
            return
        following = view[nl + 1 : view.find(b"\n", nl + 1, end) if view.find(b"\n", nl + 1, end) >= 0 else end]
        if following.strip():
            view[nl] = 32
            if nl > start and view[nl - 1] == 13:
                view[nl - 1] = 32
        pos = nl + 1


def workflow_errors(data: bytes) -> int:
    try:
        _compose(data)
    except WorkflowError:
        return 1
    return 0
