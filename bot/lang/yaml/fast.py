"""YAML composed by libyaml (PyYAML's C parser) into ruamel.yaml's nodes, as ruamel's round-trip loader would.

ruamel.yaml's pure-Python scanner is what reading configs and workflows cost; libyaml is some 30
times faster. The nodes are ruamel's own classes, tagged by ruamel's YAML 1.2 resolver, with the
same start marks (character index, line, column), end indexes, styles and anchors, so every
reader and writer of nodes works on either (the line and column of a block collection's end mark
differ: nothing reads them), except for empty plain scalars (`key:` with no value): ruamel places
them by its comment handling, so a caller that reads their marks must ask ruamel (`empty()` tells).
Whatever this path cannot vouch for returns None and is read with ruamel: no libyaml, a `%YAML`
directive, a tab anywhere (ruamel refuses tabs libyaml takes), a tag other than `!name`/`!!name`,
an anchor name beyond libyaml's, a folded (`>`) key, a folded value when `folded=True` (ruamel's round-trip
scanner marks each fold in the value with a `\\a`), and every text libyaml refuses (ruamel's
verdict and message are the ones reported). tests/test_yaml_fast.py holds the nodes equal to
ruamel's on varied and mutated documents.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

# a BOM: libyaml skips it, so its marks would be one short; NEL, LS and PS: line breaks to libyaml (YAML 1.1)
# and not to ruamel's YAML 1.2 reading, so every line and column after one would differ
_UNSURE = re.compile(r"^%YAML|\t|\ufeff|[\x85\u2028\u2029]", re.M)
_SIMPLE_TAG = re.compile(r"!!?[A-Za-z][A-Za-z0-9_\-]*(?=\s|$)")
_ANCHOR = re.compile(r"&([A-Za-z0-9_\-]+)(?=\s|$)")
_KNOWN_LENGTH, _KNOWN_SIZE = 64, 4096  # scalars whose tags are remembered, and how many at most
_PROPERTY = re.compile(r"(?:&[^\s,\[\]{}]+|![^\s,\[\]{}]*)\s*")


@lru_cache(maxsize=1)
def _loader() -> Any:
    """A libyaml parser whose untagged nodes are resolved by ruamel's YAML 1.2 rules; None without libyaml."""
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - PyYAML comes with omegaconf
        return None
    if not getattr(yaml, "__with_libyaml__", False):  # pragma: no cover
        return None
    from ruamel.yaml import nodes
    from ruamel.yaml.resolver import VersionedResolver

    resolver = VersionedResolver(version=(1, 2))
    kinds = {yaml.ScalarNode: nodes.ScalarNode, yaml.SequenceNode: nodes.SequenceNode,
             yaml.MappingNode: nodes.MappingNode}

    from yaml.cyaml import CParser  # type: ignore[import-untyped]

    known: dict[tuple[str, bool, bool], Any] = {}  # resolving is a function of these alone (no path resolvers)

    class Loader(CParser):  # type: ignore[misc]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is not yaml.ScalarNode or len(value) > _KNOWN_LENGTH:
                return resolver.resolve(kinds[kind], value, implicit)
            key = (value, bool(implicit[0]), bool(implicit[1]))
            tag = known.get(key)
            if tag is None:
                if len(known) >= _KNOWN_SIZE:
                    known.clear()
                tag = known[key] = resolver.resolve(nodes.ScalarNode, value, implicit)
            return tag

        def descend_resolver(self, parent: Any, index: Any) -> None:  # no path resolvers, as in ruamel's
            pass

        def ascend_resolver(self) -> None:
            pass

    return Loader


class _Unsure(Exception):
    pass


def compose_all(text: str, folded: bool = False) -> list[Any] | None:
    """ruamel nodes of every document of `text`; None when ruamel must read it (see the module docstring).

    `folded`: the caller reads the values of folded block scalars (then such a document goes to ruamel).
    """
    loader_class = _loader()
    if loader_class is None or _UNSURE.search(text):
        return None
    import yaml

    loader = loader_class(text)
    try:
        documents = []
        while loader.check_node():
            documents.append(loader.get_node())
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    finally:
        loader.dispose()
    done: dict[int, Any] = {}
    try:
        return [_convert(node, text, done, folded) for node in documents]
    except _Unsure:
        return None


def _convert(root: Any, text: str, done: dict[int, Any], folded: bool) -> Any:
    """The document's nodes as ruamel's; iterative, so that deep nesting costs no Python recursion."""
    from ruamel.yaml import nodes

    todo: list[tuple[Any, Any]] = []

    def node_for(node: Any) -> Any:
        if id(node) in done:  # an alias: the anchored node itself, as ruamel's composer gives it
            return done[id(node)]
        anchor = _anchor(text, node.start_mark.index)
        out: Any
        if node.id == "scalar":
            if node.style == ">" and folded:
                raise _Unsure
            out = nodes.ScalarNode(node.tag, node.value, node.start_mark, node.end_mark, style=node.style or None,
                                   anchor=anchor)
        else:
            kind = nodes.SequenceNode if node.id == "sequence" else nodes.MappingNode
            if kind is nodes.MappingNode and node.value and node.value[0][0].start_mark.index == node.start_mark.index:
                anchor = None  # `&a key: v`: the properties are the first key's, not the mapping's
            out = kind(node.tag, [], node.start_mark, node.end_mark, flow_style=node.flow_style, anchor=anchor)
            todo.append((node, out))  # its children later: a recursive alias points back here
        done[id(node)] = out
        return out

    out = node_for(root)
    while todo:
        source, target = todo.pop()
        for item in source.value:
            if isinstance(item, tuple):
                if item[0].id == "scalar" and item[0].style == ">":
                    raise _Unsure
                target.value.append((node_for(item[0]), node_for(item[1])))
            else:
                target.value.append(node_for(item))
    return out


def _anchor(text: str, index: int) -> str | None:
    """The anchor among the node's properties (`&name` and a tag, in either order) written at `index`."""
    anchor = None
    while index < len(text) and text[index] in "&!":
        match = _PROPERTY.match(text, index)
        if match is None:
            raise _Unsure
        if text[index] == "&":
            found = _ANCHOR.match(text, index)
            if found is None:
                raise _Unsure  # an anchor name beyond libyaml's letters, digits, `_` and `-`
            anchor = found.group(1)
        elif _SIMPLE_TAG.match(text, index) is None:
            raise _Unsure  # a tag other than `!name` or `!!name` (`!`, `!<...>`, handles): ruamel's reading
        index = match.end()
    return anchor


def empty(node: Any) -> bool:
    """An empty plain scalar, whose marks are libyaml's, not ruamel's (see the module docstring)."""
    return node.id == "scalar" and node.value == "" and node.style is None


def safe_documents(text: str) -> Iterator[Any]:
    """Each document as ruamel.yaml's safe loader constructs it, in turn, composed by libyaml where it can
    vouch. Raises what ruamel's loader raises: when the constructor refuses a document, ruamel reads the
    text itself from there, for its own verdict and message.
    """
    from ruamel.yaml import YAML

    roots = compose_all(text)
    if roots is None:
        yield from YAML(typ="safe", pure=True).load_all(text)
        return
    constructor = YAML(typ="safe", pure=True).constructor
    for number, root in enumerate(roots):
        try:
            document = constructor.construct_document(root)
        except Exception:
            yield from itertools.islice(YAML(typ="safe", pure=True).load_all(text), number, None)
            return
        yield document
