"""A config's defaults list as group choices: `- env: tsp` chooses what `env=tsp` chooses on the command line.

A rule that maps or sets a group's option (`env: tsp -> routing/tsp`, after the option files moved)
must rewrite the defaults entries that choose it too (`- env: tsp`, `- override /env: cvrp`), or
the config no longer composes ("Could not find 'env/tsp'"). Each entry of one group and one option
is a setting of role DEFAULTS_LIST: its key the group as the command line names it, its value the
option. A relative entry of a config with a package is below that config's own group, which the
package does not tell: not read. Only the option is written here, where the new option's file is in
the group's directory; renaming or removing a group's entry is left to a person.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.ir import DEFAULTS_LIST, Action, Setting, SettingGroup, SetValue, State
from bot.lang.yaml.document import Doc, Edits, Entry, has_props

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, ScalarNode

KEYWORDS = ("override", "optional")


@dataclass
class Choice(Entry):
    """A defaults entry's place, whether its group is written from the config root (`/env`), and the group as
    written (relative to the config's own directory unless rooted)."""

    rooted: bool = False
    written: str = ""
    suffix: str = ""  # `- env: gym.yaml`: Hydra reads the option's file name as the option


Beside = Callable[[str], "str | None"]


def defaults_group(doc: Doc, headed: bool, beside: Beside | None = None) -> SettingGroup | None:
    """The group choices of the document's defaults list, if it makes any; `headed`: the file has a
    `# @package` header (an option or experiment config, whose relative entries are below its group, unless
    `beside` names the group from the config root: its directory is beside the file)."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    listed = next((v for k, v in doc.root.value if isinstance(k, ScalarNode) and k.value == "defaults"), None)
    if not isinstance(listed, SequenceNode):
        return None
    settings = []
    for item in listed.value:
        if isinstance(item, MappingNode) and len(item.value) == 1:
            key, value = item.value[0]
            if isinstance(key, ScalarNode) and isinstance(value, ScalarNode):
                setting = _choice(doc, item, key, value, headed, beside)
                if setting is not None:
                    settings.append(setting)
    if not settings:
        return None
    return SettingGroup(settings, settings[0].line, settings[0].column, role=DEFAULTS_LIST, handle=doc,
                        label="a defaults list")


def _choice(doc: Doc, item: MappingNode, key: ScalarNode, value: ScalarNode, headed: bool,
            beside: Beside | None) -> Setting | None:
    words = str(key.value).split()
    if not words or any(w not in KEYWORDS for w in words[:-1]):
        return None
    written = words[-1].partition("@")[0]
    if not written.strip("/") or written.startswith("."):
        return None
    group = written.lstrip("/")
    if not written.startswith("/") and (doc.prefix or headed):
        placed = beside(group) if beside is not None and not doc.prefix else None
        if placed is None:
            return None  # relative to the group this option file is in, which its package does not tell
        group = placed
    option = value.value if value.tag == "tag:yaml.org,2002:str" else None
    if option is None or option == "???" or "${" in str(option):
        return None  # no choice, each run's own, or one known at run time
    suffix = ".yaml" if str(option).endswith(".yaml") and len(str(option)) > len(".yaml") else ""
    option = str(option)[: len(str(option)) - len(suffix)]
    line, column = key.start_mark.line + 1, key.start_mark.column + 1
    entry = Choice(key, value, item, ("defaults", str(key.value)), False, bool(item.flow_style),
                   rooted=written.startswith("/"), written=written.lstrip("/"), suffix=suffix)
    return Setting(group, "", doc.text.slice(value), str(option), State.STATIC, line, column, handle=entry)


OptionExists = Callable[[str, str, str, bool], bool]


def defaults_edits(actions: list[Action], doc: Doc, option_exists: OptionExists) -> Edits | str:
    """The option of a defaults entry rewritten, or why not; `option_exists(group, old, new, rooted)`: whether
    the new option's file is in the group's directory (a choice of one the repository lacks would not compose)."""
    from bot.lang.yaml.edits import replace_value

    action = actions[0]
    if len(actions) != 1 or not isinstance(action, SetValue):
        return "a defaults list entry: a person must rename or remove the group's choice there"
    entry: Choice = action.setting.handle
    if not isinstance(action.value, str) or has_props(doc.text, entry.value):
        return "a group's option is a name: a person must write this one"
    if not option_exists(entry.written, str(action.setting.value), action.value, entry.rooted):
        if entry.written.startswith("hydra/"):  # a plugin's options are registered in code, not files
            return (f"no option {action.value} of {action.setting.key} in the repository or hydra-core: a person must"
                    " check that an installed plugin provides it")
        return f"no option {action.value} of {action.setting.key} in the repository: the config would not compose"
    return replace_value(doc, entry, action.value + entry.suffix)
