"""Hydra YAML configs as a source kind: every mapping key is a setting, each document one group.

A document's keys are dotted paths below the file's package (`# @package` header, else where a
defaults list puts the file, else the root). Rules are evaluated by bot.rules.evaluate; the fixes
are realised as byte edits by bot.lang.yaml.edits, on the documents read here (bot.lang.yaml.document).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.ir import HYDRA_NODE, SettingGroup
from bot.lang.yaml.defaults_list import defaults_group
from bot.lang.yaml.document import MERGE_TAG, Doc, Text, all_nodes, indent_step, spaced
from bot.lang.yaml.packages import header_package, yaml_packages
from bot.lang.yaml.sweeper import sweeper_group
from bot.lang.yaml.walker import Walker, is_key
from bot.lang.yaml.wandb_sweep import is_wandb_sweep, wandb_group

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node



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

    return any(empty(node) if isinstance(node, ScalarNode)
               else isinstance(node, MappingNode) and any(key.tag == MERGE_TAG for key, _ in node.value)
               for node in all_nodes(roots))


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


def yaml_groups(data: bytes, prefix: str, roots: list[Node] | None = None,
                beside: Callable[[str], str | None] | None = None) -> list[SettingGroup]:
    """One group a document; `roots`: the documents as config_documents read them (else read here);
    `beside`: for a config with a `# @package` header that no defaults list names, a relative entry's group
    as named from the config root, where its directory is beside the file (None: not read). That is the group
    itself in a primary config, and below the file's own group in an experiment config that sits in a group
    directory of the config root."""
    from ruamel.yaml.nodes import MappingNode

    text = Text(data)
    headed = header_package(data) is not None
    groups: list[SettingGroup] = []
    for root in config_documents(data) if roots is None else roots:
        if not isinstance(root, MappingNode):
            continue
        doc = Doc(text, root, prefix, indent_step(root), spaced(text, root))
        if is_wandb_sweep(root):  # no Hydra config: at most its parameters' names are override keys
            groups.extend(g for g in [wandb_group(doc)] if g is not None)
            continue
        walker = Walker(doc)
        walker.mapping(root, (), shared=root.anchor is not None, flow=bool(root.flow_style))
        if walker.settings:
            first = walker.settings[0]
            groups.append(SettingGroup(walker.settings, first.line, first.column, handle=doc))
        groups.extend(walker.in_lists())
        choices = defaults_group(doc, headed, beside)
        if choices is not None:
            groups.append(choices)
        hydra = next((v for k, v in root.value if is_key(k) and k.value == "hydra"), None)
        if isinstance(hydra, MappingNode) and not prefix:  # Hydra's own only at the root (below a package: a key)
            node_doc = Doc(text, root, "", indent_step(root), spaced(text, root))
            node_walker = Walker(node_doc)
            node_walker.mapping(hydra, ("hydra",), shared=hydra.anchor is not None, flow=bool(hydra.flow_style))
            if node_walker.settings:
                first = node_walker.settings[0]
                groups.append(SettingGroup(node_walker.settings, first.line, first.column, role=HYDRA_NODE,
                                           handle=node_doc))
            groups.extend(replace(g, role=HYDRA_NODE) for g in node_walker.in_lists())  # read as the node's
            sweep = sweeper_group(node_doc)
            if sweep is not None:
                groups.append(sweep)
    return groups


__all__ = ["read_groups", "yaml_errors", "yaml_packages"]
