"""Shell scripts: parse with tree-sitter-bash and collect the launches with their overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from bot.model import Span
from bot.sources.launches import SHELL_SCRIPT, Launch, build_launch
from bot.sources.script_calls import ScriptCall, script_call
from bot.sources.shell_text import Field, split_fields
from bot.sources.shell_vars import Definition
from bot.sources.shell_walk import Walker

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

NOT_ARGUMENTS = {"variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect",
                 "comment", "command_name"}


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def parse_tree(src: bytes) -> Tree:
    return _parser().parse(src)


@dataclass
class ShellScript:
    src: bytes
    tree: Tree
    launches: list[Launch] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    errors: list[Span] = field(default_factory=list)
    tested: dict[str, list[str]] = field(default_factory=dict)
    calls: list[ScriptCall] = field(default_factory=list)  # repository scripts run with environment values

    @property
    def partly_parsed(self) -> bool:
        return bool(self.errors)

    def error_lines(self) -> set[int]:
        """Lines inside a parse error region, and the lines just before and after it."""
        lines: set[int] = set()
        for span in self.errors:
            first = self.src.count(b"\n", 0, span.start) + 1
            last = first + self.src.count(b"\n", span.start, max(span.start, span.end - 1))
            lines.update(range(first - 1, last + 2))
        return lines


def error_spans(root: Node) -> list[Span]:
    if not root.has_error:
        return []
    out: list[Span] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            out.append(Span(node.start_byte, node.end_byte))
            continue
        if node.has_error:
            stack.extend(node.children)
    return sorted(out, key=lambda s: (s.start, s.end))


def command_fields(node: Node, env: object, walker: Walker) -> list[Field]:
    """The command's argv after expansion: every alternative of a word contributes its fields."""
    fields: list[Field] = []
    for child in node.children:
        if child.type in NOT_ARGUMENTS and child.type != "command_name":
            continue
        target = child.children[0] if child.type == "command_name" and child.children else child
        alternatives = walker.expander.word(target, env)  # type: ignore[arg-type]
        for alternative in alternatives:
            fields.extend(split_fields(alternative))
    return fields


def analyse(src: bytes, all_exported: bool = False) -> ShellScript:
    """Launches, variables and script calls; `all_exported`: every assignment reaches child processes."""
    tree = parse_tree(src)
    walker = Walker(src)
    result = walker.run(tree.root_node)
    script = ShellScript(src=src, tree=tree, definitions=result.definitions, errors=error_spans(tree.root_node),
                         tested=result.tested)
    for site in result.commands:
        fields = command_fields(site.node, site.env, walker)
        if not fields:
            continue
        launch = build_launch(site, fields, src)
        if launch is not None:
            script.launches.append(launch)
            if launch.entry_kind != SHELL_SCRIPT:
                continue
        call = script_call(site, [f.text for f in fields[:4]], src, all_exported)
        if call is not None and call.values:
            script.calls.append(call)
    return script


def count_errors(src: bytes) -> int:
    return len(error_spans(parse_tree(src).root_node))
