"""The repository's structured configs (bot.hydra.store_calls) put in Hydra's ConfigStore while its launches
compose, and taken out after, so that a defaults entry naming one (`- task_schema`) composes with its keys and
types under struct mode, as when the app runs.

Each schema read is made a dataclass again here (`dataclasses.make_dataclass`, with the types
bot.hydra.dataclass_spec reads: OmegaConf checks values against them as it checks the repository's class) and
then the node Hydra's `ConfigStore.store` makes of it. A (group, name) that two calls store differently, or
whose node is not read, is not put in: a launch needing it stays "not checked" (bot.compose.launches).
"""

from __future__ import annotations

import copy
import dataclasses
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from bot.hydra.dataclass_spec import MISSING, ClassSpec, FieldSpec, TypeSpec
from bot.hydra.store_calls import StoredNode

_SCALAR_TYPES: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool, "bytes": bytes}
_ABSENT = object()
# the classes made here, by their names: held weakly, only while their scan's nodes hold them
_MADE: weakref.WeakValueDictionary[str, type] = weakref.WeakValueDictionary()


def __getattr__(name: str) -> type:
    """A class made here, by its name: how pickle finds it again (a composed base holding it is copied by a
    pickling round trip: bot.hydra.applied)."""
    try:
        return _MADE[name]
    except KeyError:
        raise AttributeError(name) from None


def usable(nodes: list[StoredNode]) -> dict[tuple[str | None, str], StoredNode]:
    """The nodes to put in, by (group, name): read, and stored alike wherever stored."""
    found: dict[tuple[str | None, str], StoredNode] = {}
    clashing: set[tuple[str | None, str]] = set()
    for node in nodes:
        if node.name is None:
            continue
        key = (node.group, node.name[: -len(".yaml")] if node.name.endswith(".yaml") else node.name)
        if node.node is None:
            clashing.add(key)  # one of its calls is not read: which node the app gets is not known
        elif key in found and _shape(found[key]) != _shape(node):
            clashing.add(key)
        else:
            found.setdefault(key, node)
    return {key: node for key, node in found.items() if key not in clashing}


def _shape(node: StoredNode) -> object:
    return (node.package, repr(node.node))


class Registered:
    """Hydra's config nodes of the repository's structured configs, made once per process when first put in."""

    def __init__(self, nodes: dict[tuple[str | None, str], StoredNode], unread: list[StoredNode] | None = None) -> None:
        self.nodes = nodes
        self.unread = unread or []  # the calls not read, with why
        self._made: dict[tuple[str | None, str], Any] | None = None

    def made(self) -> dict[tuple[str | None, str], Any]:
        if self._made is None:
            from hydra.core.config_store import ConfigNode
            from omegaconf import OmegaConf

            self._made = {}
            classes: dict[int, type] = {}
            for (group, name), stored in self.nodes.items():
                try:
                    source = stored.node if isinstance(stored.node, dict) else make_class(stored.node, classes)
                    made = OmegaConf.structured(source)
                except Exception:  # OmegaConf refuses the schema (as it would refuse the repository's class)
                    continue
                self._made[(group, name)] = ConfigNode(name=f"{name}.yaml", node=made, group=group,
                                                       package=stored.package, provider="repository")
        return self._made

    @contextmanager
    def put_in(self) -> Iterator[None]:
        """The nodes in Hydra's ConfigStore while the block runs; the store as it was after."""
        if not self.nodes:
            yield
            return
        from hydra.core.config_store import ConfigStore

        repo = ConfigStore.instance().repo
        undo: list[tuple[dict[str, Any], str, Any]] = []  # (mapping, key, what was there)
        try:
            for (group, name), node in self.made().items():
                where = repo
                for part in group.split("/") if group else []:
                    if not isinstance(where.get(part, {}), dict):
                        break
                    if part not in where:
                        where[part] = {}
                        undo.append((where, part, _ABSENT))
                    where = where[part]
                else:
                    undo.append((where, f"{name}.yaml", where.get(f"{name}.yaml", _ABSENT)))
                    where[f"{name}.yaml"] = node
            yield
        finally:
            for where, key, before in reversed(undo):
                if before is _ABSENT:
                    where.pop(key, None)
                else:
                    where[key] = before


def make_class(spec: ClassSpec | None, classes: dict[int, type]) -> type:
    """The schema as a dataclass of its own (made once per spec)."""
    assert spec is not None
    if id(spec) not in classes:
        fields = [(f.name, _type(f.type, classes), _field(f, classes)) for f in spec.fields]
        made = dataclasses.make_dataclass(spec.name, fields)
        made.__qualname__ = f"_made_{uuid.uuid4().hex}_{spec.name}"  # found again by it: see __getattr__
        made.__module__ = __name__
        _MADE[made.__qualname__] = made
        classes[id(spec)] = made
    return classes[id(spec)]


def _type(kind: TypeSpec, classes: dict[int, type]) -> Any:
    if kind[0] in _SCALAR_TYPES:
        return _SCALAR_TYPES[kind[0]]
    if kind[0] == "optional":
        return Optional[_type(kind[1], classes)]  # noqa: UP045 - a type made at run time for OmegaConf
    if kind[0] == "list":
        return list[_type(kind[1], classes)]  # type: ignore[misc]
    if kind[0] == "dict":
        return dict[str, _type(kind[1], classes)]  # type: ignore[misc]
    if kind[0] == "node":
        return make_class(kind[1], classes)
    return Any


def _field(spec: FieldSpec, classes: dict[int, type]) -> Any:
    default = spec.default
    if default[0] == "missing":
        return dataclasses.field(default=MISSING)
    if default[0] == "node":
        made, keywords = make_class(default[1], classes), default[2]
        return dataclasses.field(default_factory=lambda: made(**keywords))
    value = default[1]
    if isinstance(value, (list, dict)):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(value))
    return dataclasses.field(default=value)
