"""Hydra YAML configs as a source kind: every mapping key is a setting, each document one group.

A document's keys are dotted paths below the file's package (`# @package` header, else where a
defaults list puts the file, else the root). Rules are evaluated by bot.rules.evaluate; the fixes
are realised as byte edits by bot.lang.yaml.edits, on the documents read here (bot.lang.yaml.document).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.hydra.grammar import format_value
from bot.ir import HYDRA_NODE, Setting, SettingGroup
from bot.lang.yaml.defaults_list import defaults_group
from bot.lang.yaml.document import MERGE_TAG, Doc, Entry, Text, indent_step, merged_mappings, spaced
from bot.lang.yaml.packages import header_package, yaml_packages
from bot.lang.yaml.sweeper import sweeper_group

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node

SKIPPED_TOP = ("defaults", "hydra")
INTERPOLATION = "an interpolation, resolved at run time"


class YamlProblem(ValueError):
    """Why a file does not read as YAML, in one line."""


def yaml_errors(data: bytes) -> int:
    """0 when ruamel.yaml's round-trip loader reads every document, else 1."""
    return 0 if yaml_problem(data) is None else 1


def yaml_problem(data: bytes) -> str | None:
    """Why ruamel.yaml's round-trip loader cannot read every document (None: it can), in one line."""
    try:
        config_documents(data)
    except YamlProblem as exc:
        return str(exc)
    return None


def config_documents(data: bytes) -> list[Node]:
    """Every document's root node, read once, as ruamel.yaml's round-trip loader reads it.

    libyaml composes what it can vouch for (bot.lang.yaml.fast), and ruamel's round-trip constructor
    is run on those nodes to find what the loader refuses (a duplicate key, say); anything else, and
    any refusal, is read by ruamel itself, whose verdict and message are the ones reported.
    Raises YamlProblem.
    """
    from bot.lang.yaml.fast import compose_all

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlProblem(f"not UTF-8 (byte {exc.start})") from None
    roots = compose_all(text, folded=True)
    if roots is not None and not _ruamel_only(roots) and _constructs(roots):
        return roots
    problem = _ruamel_problem(text)
    if problem is not None:
        raise YamlProblem(problem)
    from ruamel.yaml import YAML

    return list(YAML(typ="rt").compose_all(text))


def _ruamel_only(roots: list[Node]) -> bool:
    """Whether a document holds `key:` with no value, whose marks only ruamel places (see fast.empty),
    or a merge key (`<<`), which ruamel's constructor flattens in the very nodes it is given."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    from bot.lang.yaml.fast import empty

    todo, seen = list(roots), set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if empty(node):
                return True
        elif isinstance(node, MappingNode):
            if any(key.tag == MERGE_TAG for key, _ in node.value):
                return True
            todo.extend(part for pair in node.value for part in pair)
        else:
            todo.extend(node.value)
    return False


def _constructs(roots: list[Node]) -> bool:
    """Whether ruamel's round-trip constructor takes every document (as its loader would construct them)."""
    from ruamel.yaml import YAML

    constructor = YAML(typ="rt").constructor
    try:
        for root in roots:
            constructor.construct_document(root)
    except Exception:  # the loader's refusal: ruamel reads the text again for its own message
        return False
    return True


def _ruamel_problem(text: str) -> str | None:
    from ruamel.yaml import YAML

    try:
        for _ in YAML(typ="rt").load_all(text):
            pass
    except RecursionError:
        return "nested too deeply to read"
    except Exception as exc:  # ruamel raises more than YAMLError on broken input
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())[:120]
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return f"not valid YAML{where}: {problem}"
    return None


def read_groups(path: str, data: bytes, packages: dict[str, str] | None = None) -> list[SettingGroup]:
    """The settings of a YAML config, one group a document ([] for what does not read as YAML)."""
    try:
        return yaml_groups(data, package_prefix(data, path, packages))
    except (YamlProblem, RecursionError):  # not YAML (the front end reports it) or self-nested
        return []


def package_prefix(data: bytes, path: str, packages: dict[str, str] | None) -> str:
    header = header_package(data)
    package = header if header is not None else (packages or {}).get(path, "")
    return package + "." if package else ""


def yaml_groups(data: bytes, prefix: str, roots: list[Node] | None = None) -> list[SettingGroup]:
    """One group a document; `roots`: the documents as config_documents read them (else read here)."""
    from ruamel.yaml.nodes import MappingNode

    text = Text(data)
    headed = header_package(data) is not None
    groups = []
    for root in config_documents(data) if roots is None else roots:
        if not isinstance(root, MappingNode):
            continue
        doc = Doc(text, root, prefix, indent_step(root), spaced(text, root))
        walker = _Walker(doc)
        walker.mapping(root, (), shared=root.anchor is not None, flow=bool(root.flow_style))
        if walker.settings:
            first = walker.settings[0]
            groups.append(SettingGroup(walker.settings, first.line, first.column, handle=doc))
        choices = defaults_group(doc, headed)
        if choices is not None:
            groups.append(choices)
        hydra = next((v for k, v in root.value if _is_key(k) and k.value == "hydra"), None)
        if isinstance(hydra, MappingNode):  # always at the config's root, whatever its package
            node_doc = Doc(text, root, "", indent_step(root), spaced(text, root))
            node_walker = _Walker(node_doc)
            node_walker.mapping(hydra, ("hydra",), shared=hydra.anchor is not None, flow=bool(hydra.flow_style))
            if node_walker.settings:
                first = node_walker.settings[0]
                groups.append(SettingGroup(node_walker.settings, first.line, first.column, role=HYDRA_NODE,
                                           handle=node_doc))
            sweep = sweeper_group(node_doc)
            if sweep is not None:
                groups.append(sweep)
    return groups


class _Walker:
    def __init__(self, doc: Doc) -> None:
        from ruamel.yaml import YAML

        self.doc = doc
        self.settings: list[Setting] = []
        self.safe = YAML(typ="safe", pure=True)
        self.open: set[int] = set()  # mappings being walked: a recursive alias stops here

    def mapping(self, node: MappingNode, path: tuple[str, ...], shared: bool, flow: bool) -> None:
        if id(node) in self.open:
            return
        self.open.add(id(node))
        pairs = [(k, v, shared) for k, v in node.value if _is_key(k) and k.tag != MERGE_TAG]
        explicit = {k.value for k, _, _ in pairs}
        for merged in merged_mappings(node):
            self.doc.merged.add(id(node))
            for k, v in merged.value:
                if _is_key(k) and k.tag != MERGE_TAG and k.value not in explicit:
                    explicit.add(k.value)
                    pairs.append((k, v, True))
        for key, value, key_shared in pairs:
            if not path and key.value in SKIPPED_TOP:
                continue
            self.add(Entry(key, value, node, (*path, str(key.value)), key_shared or value.anchor is not None,
                           flow))
        self.open.discard(id(node))

    def add(self, entry: Entry) -> None:
        from ruamel.yaml.nodes import MappingNode, ScalarNode

        value, key = entry.value, entry.key
        setting = Setting(self.doc.prefix + ".".join(entry.path), "", None, None, "static",
                          key.start_mark.line + 1, key.start_mark.column + 1, handle=entry)
        self.settings.append(setting)
        if isinstance(value, MappingNode):
            setting.state = "mapping"
            self.mapping(value, entry.path, entry.shared, entry.flow or bool(value.flow_style))
            return
        setting.value = self.plain(value)
        written = self.doc.text.slice(value)
        if isinstance(value, ScalarNode):
            setting.text = written
        else:
            flow = getattr(value, "flow_style", False)  # a block list's text starts with its first `- `
            setting.text = written if flow and "\n" not in written.strip() else format_value(setting.value)
        if _interpolated(value):
            setting.state, setting.reason = "dynamic", INTERPOLATION

    def plain(self, node: Node) -> Any:
        import datetime

        from ruamel.yaml.error import YAMLError

        try:
            value = self.safe.constructor.construct_object(node, deep=True)
        except YAMLError:  # a tag of the application's own (`!Foo x`): keep what is written
            return self.doc.text.slice(node)
        if isinstance(value, (datetime.date, datetime.datetime)):
            return str(node.value)  # OmegaConf reads timestamps as strings
        return _plain(value)


def _plain(value: Any) -> Any:
    import datetime

    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def _is_key(node: Node) -> bool:
    from ruamel.yaml.nodes import ScalarNode

    return isinstance(node, ScalarNode)


def _interpolated(node: Node) -> bool:
    """Whether a string anywhere in the value (a scalar, or inside sequences and mappings) interpolates."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    todo, seen = [node], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:  # an alias back to an enclosing node
            continue
        seen.add(id(current))
        if isinstance(current, ScalarNode):
            if current.tag == "tag:yaml.org,2002:str" and "${" in str(current.value):
                return True
        elif isinstance(current, MappingNode):
            todo.extend(part for pair in current.value for part in pair)
        elif isinstance(current.value, list):
            todo.extend(current.value)
    return False


__all__ = ["read_groups", "yaml_errors", "yaml_packages"]
