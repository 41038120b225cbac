"""A W&B sweep configuration (`method:` and `parameters:` at its top) is no Hydra config.

With `${args_no_hyphens}` in its `command`, W&B passes each parameter to the program as `name=value`, a
Hydra override: the parameter names are override keys, which a rename or a removal rewrites as it does a
Hydra sweeper's params (bot.lang.yaml.sweeper.sweep_edits). Their values (`values: [...]`, `min`/`max`,
a distribution) are the sweep's, known per run: a rule on a value leaves them to a person. Without it,
W&B passes `--name=value`, which a Hydra app does not read: nothing of the file is a setting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ir import SWEEP_PARAMS, Setting, SettingGroup, State
from bot.lang.yaml.document import Doc, Entry

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node

METHODS = {"grid", "random", "bayes"}


def is_wandb_sweep(root: MappingNode) -> bool:
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    top = {str(k.value): v for k, v in root.value if isinstance(k, ScalarNode)}
    method = top.get("method")
    return isinstance(method, ScalarNode) and str(method.value) in METHODS and isinstance(
        top.get("parameters"), MappingNode)


def wandb_group(doc: Doc) -> SettingGroup | None:
    """The parameters of a sweep whose command passes them as overrides, as settings of their keys."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    from bot.hydra.grammar import HydraSyntaxError, parse_override

    top = {str(k.value): v for k, v in doc.root.value if isinstance(k, ScalarNode)}
    command, params = top.get("command"), top.get("parameters")
    if not isinstance(command, SequenceNode) or not isinstance(params, MappingNode) or not any(
            isinstance(word, ScalarNode) and "${args_no_hyphens}" in str(word.value) for word in command.value):
        return None
    settings = []
    for key, value in params.value:
        if not isinstance(key, ScalarNode):
            continue
        try:
            parsed = parse_override(f"{key.value}=x")  # the name as W&B writes it before `=`
        except HydraSyntaxError:
            continue
        entry = Entry(key, value, params, ("parameters", str(key.value)), False, bool(params.flow_style))
        settings.append(Setting(parsed.key, parsed.prefix, _shown(doc, value), None, State.DYNAMIC,
                                key.start_mark.line + 1, key.start_mark.column + 1,
                                reason="a W&B sweep's values, one per run", handle=entry))
    if not settings:
        return None
    return SettingGroup(settings, settings[0].line, settings[0].column, role=SWEEP_PARAMS, handle=doc,
                        label="a W&B sweep's parameters")


def _shown(doc: Doc, value: Node) -> str:
    text = doc.text.slice(value).strip()
    return text if "\n" not in text else " ".join(text.split())
