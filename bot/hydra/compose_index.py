"""Whether a launch's overrides (besides its config-group choices) compose on a composed base, read off the
base itself instead of applying them to a copy of it.

Hydra applies each override to the composed config in turn (ConfigLoaderImpl._apply_overrides_to_config):
what it does is decided by the node at the override's key and the nodes on the way to it (a mapping, a
list or a value; its type and flags; missing `???`, an interpolation, null), the override's prefix and its
value. The index answers PASS only where that is certain: every node on the way a plain mapping of the
config's own (no structured-config type, no flag of its own but the root's), the value a plain one (a
string that is no interpolation, a number, a bool, null; a flat list or mapping of them where Hydra sets or
merges one), and no two overrides of the list touching the same key or one below another (each is then
applied to the base as Hydra finds it). FAIL only where Hydra certainly raises; anything else is UNSURE,
and the composer applies the overrides as before. A FAIL is applied too: Hydra's own message is the
finding's, never the index's.
"""

from __future__ import annotations

import re
from typing import Any

PASS = "pass"
FAIL = "fail"
UNSURE = "unsure"

_KEY = re.compile(r"[\w\-]+(?:\.[\w\-]+)*")
_PRIMITIVES = (str, int, float, bool, type(None))


def verdict(base: Any, overrides: list[Any], plain: dict[int, bool] | None = None) -> tuple[str, str | None]:
    """(PASS, FAIL or UNSURE; the key that decided a FAIL or UNSURE) for Hydra's parsed overrides applied in
    order to the composed config `base` (the composer sets its struct flag, as Hydra does)."""
    said, key = verdicts(base, overrides, plain)
    if said is None:
        return UNSURE, key
    failing = [o.key_or_group for o, one in zip(overrides, said) if one == FAIL]
    return (FAIL, failing[0]) if failing else (PASS, None)


def verdicts(base: Any, overrides: list[Any], plain: dict[int, bool] | None = None
             ) -> tuple[list[str] | None, str | None]:
    """PASS or FAIL for each override, or None and the key the index is not sure of. The keys of a list it
    decides are unrelated, and a failing override changes nothing before Hydra raises, so each answers as it
    would alone on the base. `plain`: what is known of the base's mappings, by id (the caller's while it keeps
    the base unchanged: bot.hydra.applied)."""
    plain = {} if plain is None else plain
    keys: list[str] = []
    for override in overrides:
        key = override.key_or_group
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            return None, str(key)
        keys.append(key)
    tangled = _related(base, overrides, keys) or _under_added(base, overrides, keys)
    if tangled is not None:
        return None, tangled
    said: list[str] = []
    for override, key in zip(overrides, keys):
        # a plain key with `@package`: Hydra raises for every one, before it changes anything
        one = FAIL if override.package is not None else _one(base, override, key, plain)
        if one == UNSURE:
            return None, key
        said.append(one)
    return said, None


def _related(base: Any, overrides: list[Any], keys: list[str]) -> str | None:
    """A key the list names twice (but for plain values set on an untyped value, which each set alike), or
    that one of its keys lies under: the order of applying then matters."""
    seen: set[str] = set()
    for key in keys:
        if key in seen and not _resettable(base, [o for o, k in zip(overrides, keys) if k == key], key):
            return key
        seen.add(key)
    for key in keys:
        parts = key.split(".")
        for end in range(1, len(parts)):
            if ".".join(parts[:end]) in seen:
                return key
    return None


def _under_added(base: Any, overrides: list[Any], keys: list[str]) -> str | None:
    """A key set or deleted under a mapping that an earlier `+` or `++` adds on the way to its own key: how it
    fails depends then on the order (a `+` or `++` under it adds its key either way)."""
    added: dict[str, int] = {}  # the mapping added, by whose key
    for index, (override, key) in enumerate(zip(overrides, keys)):
        if override.is_add() or override.is_force_add():
            parts = key.split(".")
            node = base
            for end in range(1, len(parts)):
                node = node._get_node(parts[end - 1], validate_access=False) if hasattr(node, "_get_node") else None
                if node is None:
                    added.setdefault(".".join(parts[:end]), index)
                    break
    return under_added(added, overrides, keys)


def under_added(added: dict[str, int], overrides: list[Any], keys: list[str]) -> str | None:
    """The first key, set or deleted, that lies under a mapping an earlier `+` or `++` adds (`added`: each added
    mapping, by the index of the override that adds it)."""
    for index, key in enumerate(keys if added else ()):
        if overrides[index].is_add() or overrides[index].is_force_add():
            continue
        parts = key.split(".")
        if any(added.get(".".join(parts[:end]), index) < index for end in range(1, len(parts))):
            return key
    return None


def _resettable(base: Any, overrides: list[Any], key: str) -> bool:
    """Overrides of one key that each set it to a plain value, where the base has an untyped value: each
    leaves an untyped value there, so each is applied as to the base."""
    from omegaconf import AnyNode

    if any(o.is_delete() or o.is_add() for o in overrides):
        return False
    try:
        values = [o.value() for o in overrides]
        node = base
        for part in key.split("."):
            node = node._get_node(part, validate_access=False) if node is not None else None
    except Exception:
        return False
    return isinstance(node, AnyNode) and all(_simple(v) for v in values)


def _simple(value: Any) -> bool:
    """A value Hydra's override grammar gives that every plain node takes as written: no interpolation, no
    `???`."""
    if isinstance(value, str):
        return "${" not in value and value != "???"
    return isinstance(value, _PRIMITIVES)


def _simple_container(value: Any) -> bool:
    if isinstance(value, list):
        return all(_simple(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _simple(v) for k, v in value.items())
    return False


def _own_flag(node: Any, flag: str) -> bool | None:
    return node._get_node_flag(flag)  # type: ignore[no-any-return]


def _plain_dict(node: Any, root: bool) -> bool:
    """A mapping of the config's own: no structured-config type, any keys and values, no flag set on it (the
    root's struct flag is the composer's), a value of its own (not null, `???` or an interpolation)."""
    from omegaconf import DictConfig

    if not isinstance(node, DictConfig) or node._is_none() or node._is_missing() or node._is_interpolation():
        return False
    meta = node._metadata
    if meta.object_type not in (None, dict) or meta.ref_type not in (Any, dict):
        return False
    if meta.key_type not in (Any, str) or meta.element_type is not Any:
        return False
    if _own_flag(node, "readonly"):
        return False
    return root or _own_flag(node, "struct") is None


def _one(base: Any, override: Any, key: str, plain: dict[int, bool]) -> str:
    """The verdict on one override applied to the base."""
    try:
        value = override.value()
    except Exception:  # a sweep or a function Hydra evaluates: not the index's to say
        return UNSURE
    parts = key.split(".")
    parent = base
    for depth, part in enumerate(parts):
        if depth and override.is_force_add() and _untyped_value(parent):
            # OmegaConf's update puts an empty mapping in the value's place and adds the rest of the way
            return PASS if _simple(value) or _simple_container(value) else UNSURE
        known = plain.get(id(parent))
        if known is None:
            known = plain[id(parent)] = _plain_dict(parent, root=depth == 0)
        if not known:
            return UNSURE
        child = parent._get_node(part, validate_access=False)
        if child is None:
            return _absent(override, value)
        if depth == len(parts) - 1:
            return _present(override, value, child)
        parent = child
    return UNSURE


def _untyped_value(node: Any) -> bool:
    """A value node of no declared type (a YAML config's value, null, `???` or an interpolation), not read-only."""
    from omegaconf import AnyNode

    return isinstance(node, AnyNode) and not _own_flag(node, "readonly")


def _absent(override: Any, value: Any) -> str:
    """The key (or a mapping on the way to it) is not in the config: only `+` and `++` add it."""
    if override.is_delete():
        return FAIL  # Hydra selects it, finds nothing and raises
    if override.is_add() or override.is_force_add():
        return PASS if _simple(value) or _simple_container(value) else UNSURE
    return FAIL  # the config is in struct mode and every mapping on the way inherits it


def _present(override: Any, value: Any, child: Any) -> str:
    """The key is in the config: what deleting, adding or setting it does."""
    if _own_flag(child, "readonly"):
        return UNSURE
    if (override.is_delete() or override.is_add()) and (child._is_interpolation() or child._is_missing()):
        return UNSURE  # Hydra selects it first: an interpolation is resolved there
    if override.is_delete():
        if value is not None:
            return UNSURE  # `~key=value`: Hydra compares the values
        return FAIL if child._is_none() else PASS
    if override.is_add() and not child._is_none() and not isinstance(value, (list, dict)):
        return FAIL  # something is already there
    return _settable(child, value)


def _settable(child: Any, value: Any) -> str:
    """Whether OmegaConf.update (merging) sets the node to the value: a value node takes a plain value its
    type converts; an untyped list takes a flat list of them in its place; a node of no declared type (a
    YAML config's) is replaced by a plain value, a list or mapping in place of an untyped value."""
    from omegaconf import AnyNode, Container, ListConfig, ValueNode

    if isinstance(value, list) and isinstance(child, ListConfig):
        if child._is_none() or child._is_missing() or child._is_interpolation():
            return UNSURE
        if child._metadata.element_type is not Any or _own_flag(child, "struct") is not None:
            return UNSURE
        return PASS if _simple_container(value) else UNSURE
    if isinstance(value, (list, dict)):
        return PASS if isinstance(child, AnyNode) and _simple_container(value) else UNSURE
    if isinstance(child, Container):  # replaced by the value where it declares no type
        return PASS if not child._has_ref_type() and value is not None and _simple(value) else UNSURE
    if not isinstance(child, ValueNode) or not _simple(value):
        return UNSURE
    if value is None:
        return PASS if isinstance(child, AnyNode) and child._is_optional() else UNSURE
    if isinstance(child, AnyNode):
        return PASS
    try:
        child.validate_and_convert(value)
    except Exception:
        return UNSURE
    return PASS
