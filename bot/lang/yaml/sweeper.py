"""A config's `hydra.sweeper.params`: each entry is an override a multirun sweep passes every run.

Hydra's sweepers (the basic one since 1.2, optuna, nevergrad, ax) turn each `key: value` of that
mapping into the override `key=value` and parse it with the override grammar, so the YAML key is a
whole override key (`model.optimizer.lr`, `+extra.flag`, a group `db`) and the value a sweep
(`choice(32, 64)`, `interval(0.1, 1)`, `a,b`) or a single value. A rename of `model.optimizer.lr`
must rename that key too, or every sweep run fails to override a key the config no longer has.
Read here as one group of overrides (role SWEEP_PARAMS); its edits rewrite the key or value text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.ir import (
    SWEEP_PARAMS,
    Action,
    InsertKey,
    MoveEntry,
    RemoveKey,
    RenameKey,
    SetBranchValue,
    SetItems,
    SetPrefix,
    Setting,
    SettingGroup,
    SetValue,
    State,
    assert_never,
    changes,
)
from bot.lang.yaml.document import Doc, Edits, Entry, has_props
from bot.lang.yaml.format import yaml_word_key

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

PARAMS_PATH = ("hydra", "sweeper", "params")
SWEEP_VALUE_REASON = "the value is a sweep: a person must rewrite its elements"


def sweeper_group(doc: Doc) -> SettingGroup | None:
    """The sweeper's params of the document (at its root, as Hydra reads its own node), if it has any."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    node: Node = doc.root
    for name in PARAMS_PATH:
        if not isinstance(node, MappingNode):
            return None
        found = next((v for k, v in node.value if isinstance(k, ScalarNode) and k.value == name), None)
        if found is None:
            return None
        node = found
    if not isinstance(node, MappingNode):
        return None
    settings = [s for key, value in node.value if isinstance(key, ScalarNode)
                for s in [_setting(doc, node, key, value)] if s is not None]
    if not settings:
        return None
    return SettingGroup(settings, settings[0].line, settings[0].column, role=SWEEP_PARAMS, handle=doc,
                        label="a multirun sweep's params")


def _setting(doc: Doc, params: MappingNode, key: ScalarNode, value: Node) -> Setting | None:
    from ruamel.yaml.nodes import ScalarNode

    from bot.hydra.grammar import HydraSyntaxError, parse_override

    line, column = key.start_mark.line + 1, key.start_mark.column + 1
    entry = Entry(key, value, params, (*PARAMS_PATH, str(key.value)), False, bool(params.flow_style))
    if not isinstance(value, ScalarNode):
        try:
            parsed = parse_override(f"{key.value}=x")  # the key alone, as an override reads it
        except HydraSyntaxError:
            return None
        return Setting(parsed.key, parsed.prefix, doc.text.slice(value), None, State.INVALID, line, column,
                       reason="not a value the sweeper reads as one override", handle=entry)
    word = _as_override(value)
    try:
        parsed = parse_override(f"{key.value}={word}")
    except HydraSyntaxError as exc:
        try:
            parsed = parse_override(f"{key.value}=x")
        except HydraSyntaxError:
            return None
        return Setting(parsed.key, parsed.prefix, word, None, State.INVALID, line, column, reason=str(exc),
                       handle=entry)
    state = State.DYNAMIC if "${" in word else State.STATIC
    return Setting(parsed.key, parsed.prefix, word, parsed.value, state, line, column,
                   reason="an interpolation, resolved at run time" if state == "dynamic" else "",
                   handle=entry)


def _as_override(value: Node) -> str:
    """The value as the sweeper writes it after `key=` (OmegaConf's value, made a string)."""
    from ruamel.yaml import YAML

    try:
        plain: Any = YAML(typ="safe", pure=True).constructor.construct_object(value, deep=True)
    except Exception:  # a tag of the application's own: the text as written
        return str(value.value)
    if plain is None:
        return "null"
    return plain if isinstance(plain, str) else str(plain)


def sweep_edits(actions: list[Action], doc: Doc) -> Edits | str:
    """The key or value of one param rewritten, or the entry removed; anything else is refused."""
    from bot.lang.yaml.edits import remove, replace_value

    for action in actions:
        match action:
            case SetValue() | RenameKey() | SetPrefix() | RemoveKey():
                pass
            case SetItems() | InsertKey() | MoveEntry() | SetBranchValue():
                return "a sweep's params take no new keys, list edits or per-branch values: a person must edit them"
            case _:
                assert_never(action)
    found = changes(actions)
    changed = found.remove or found.key or found.prefix or found.value
    if changed is None:
        return "a sweep's params take no new keys, list edits or per-branch values: a person must edit them"
    setting = changed.setting
    entry: Entry = setting.handle
    if has_props(doc.text, entry.key) or has_props(doc.text, entry.value):
        return "the key or value has a YAML anchor or tag, which the bot does not rewrite"
    if found.remove is not None:
        return remove(doc, entry)
    edits: Edits = []
    if found.key is not None or found.prefix is not None:
        old = doc.text.slice(entry.key)
        if "\n" in old:
            return "the key spans several lines"
        new_key = found.key.text if found.key is not None else setting.key
        prefix = found.prefix.text if found.prefix is not None else setting.prefix
        package = _package(str(entry.key.value))
        written = f"{prefix}{new_key}" + (f"@{package}" if package else "")
        if any(str(k.value) == written for k, _ in entry.parent.value):
            return f"{written} is already among the sweep's params"
        edits.append((entry.key.start_mark.index, entry.key.end_mark.index, yaml_word_key(written, old)))
    if found.value is not None:
        from bot.hydra.sweeps import Sweep

        if isinstance(setting.value, Sweep):
            return SWEEP_VALUE_REASON
        replaced = replace_value(doc, entry, found.value.value)
        if isinstance(replaced, str):
            return replaced
        edits.extend(replaced)
    return sorted(edits)


def _package(key_text: str) -> str:
    """The `@package` part of an override key (`db@backup`), if any."""
    return key_text.split("@", 1)[1] if "@" in key_text else ""
