"""Shell scripts: parse with tree-sitter-bash and collect the launches with their overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from bot.context import NO_CONSOLES, Consoles
from bot.ir import CONSOLE, SHELL_SCRIPT
from bot.lang.shell.arms import Statement
from bot.lang.shell.calls import ScriptCall, script_call
from bot.lang.shell.carried import (
    SUBMITTERS,
    Carries,
    callee_of,
    carried_launch_words,
    carried_values,
    exported_definitions,
)
from bot.lang.shell.continuations import BLANK, COMMENT, LINE_END, cut_by_comment, cut_by_line_end, cut_short_at
from bot.lang.shell.directories import tilde
from bot.lang.shell.launchers import stops_launch
from bot.lang.shell.launches import Launch, build_launches, parse_override_field
from bot.lang.shell.quirks import masked
from bot.lang.shell.text import Field, split_fields
from bot.lang.shell.variables import Definition
from bot.lang.shell.walk import CommandSite, Walker
from bot.model import Span

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
    """The syntax tree; where a known tree-sitter-bash quirk causes an error, the tree of a masked copy
    with the same byte offsets (bot.lang.shell.quirks) when that has fewer errors."""
    tree = _parser().parse(src)
    if not tree.root_node.has_error:
        return tree
    errors = error_spans(tree.root_node)
    copy = masked(src, errors)
    if copy is not None:
        again = _parser().parse(copy)
        if len(error_spans(again.root_node)) < len(errors):
            return again
    return tree


@dataclass
class ShellScript:
    src: bytes
    tree: Tree
    launches: list[Launch] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    errors: list[Span] = field(default_factory=list)
    calls: list[ScriptCall] = field(default_factory=list)  # repository scripts run with environment values
    statements: dict[int, Statement] = field(default_factory=dict)  # `if`/`case` arms (bot.lang.shell.arms)
    reaching: dict[tuple[int, int], tuple[Definition, ...]] = field(default_factory=dict)  # defs at each use
    inline_strings: list[tuple[int, int, bytes]] = field(default_factory=list)  # `bash -c` strings read as scripts

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


def command_words(node: Node, env: object, walker: Walker, start: int = 0,
                  stop: int | None = None) -> list[list[list[Field]]]:
    """The command's argv after expansion, by word: each word's alternatives, each a list of fields; only
    the words from `start` to `stop` when asked."""
    words: list[list[list[Field]]] = []
    word = walker.expander.word
    for target in _arguments(node)[start:stop]:
        alternatives = []
        for alternative in word(target, env):  # type: ignore[arg-type]
            fields = split_fields(tilde(alternative, argument=True))
            for item in fields:
                item.word = start + len(words)
            alternatives.append(fields)
        words.append(alternatives)
    return words


def _site_words(site: CommandSite, walker: Walker, consoles: Consoles, whole: bool) -> list[list[list[Field]]]:
    """The command's words, or only its first when that already says it runs no launch and no script
    (bot.lang.shell.launchers.stops_launch: `echo`, `mkdir`, `export`), unless `whole` is asked."""
    first = command_words(site.node, site.env, walker, stop=1)
    if not whole and first and first[0] and all(fields and stops_launch(fields[0], consoles) for fields in first[0]):
        return first
    return first + command_words(site.node, site.env, walker, start=1)


def _carried(site: CommandSite, walker: Walker, src: bytes, path: str | None, consoles: Consoles,
             carries: Carries, all_exported: bool) -> list[Launch]:
    """The launches the command's own assignments, or the variables exported before it, carry to the
    repository script it runs, which runs them."""
    arguments = _arguments(site.node)
    if not arguments:
        return []
    first = src[arguments[0].start_byte : arguments[0].end_byte].decode("utf-8", "replace")
    if first in SUBMITTERS:  # only a submitter's other words name the script (callee_of): read them then
        target = callee_of([first, *[src[c.start_byte : c.end_byte].decode("utf-8", "replace") for c in arguments[1:]]])
    else:
        target = callee_of([first])
    if target is None:
        return []
    own = [(name, walker.expander.word(value, site.env)) for name, value in carried_values(site.node, src)]
    named = {name for name, _ in own}
    values = own + [(name, definition.values) for name, definition in exported_definitions(site.env, src, all_exported)
                    if name not in named]
    out = []
    for name, alternatives in values:
        launches = build_launches(site, carried_launch_words(alternatives), src, path, consoles)
        if not launches or not carries(target, name):
            continue
        for launch in launches:
            launch.carrier, launch.carrier_variable = target, name
            out.append(launch)
    return out


def _strand(launches: list[Launch], fields: list[Field], src: bytes) -> None:
    """The overrides on the lines after a launch cut short, which run as a command of their own (its name
    the first of them): they never reach the launch."""
    if not fields[0].static or (parse_override_field(fields[0], src) is None and not fields[0].text.startswith("-")):
        return  # the launch ended where it meant to: the next command is another (not an override or an option)
    found = [o for item in fields if (o := parse_override_field(item, src)) is not None]
    for launch in launches:
        launch.stranded = found


def _arguments(node: Node) -> list[Node]:
    """The nodes of the command's words, in order. A redirection takes one word as its file: tree-sitter
    also hangs the words after it on the redirection (`python t.py > log a=1`), and bash passes them on."""
    found: list[Node] = []
    redirects: list[Node] = []
    for child in node.children:
        kind = child.type
        if kind == "command_name":
            found.append(child.children[0] if child.children else child)
        elif kind == "file_redirect":
            redirects.append(child)
        elif kind not in NOT_ARGUMENTS:
            found.append(child)
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":  # the command is its body
        redirects += [c for c in parent.children if c.type == "file_redirect"]
    for redirect in redirects:
        found += [c for c in redirect.children_by_field_name("destination")][1:]
    return sorted(found, key=lambda n: n.start_byte) if redirects else found


def analyse(src: bytes, all_exported: bool = False, path: str | None = None,
            consoles: Consoles = NO_CONSOLES, tree: Tree | None = None, whole_script: bool = False,
            carries: Carries | None = None) -> ShellScript:
    """Launches, variables and script calls; `all_exported`: every assignment reaches child processes.

    `path`: the file, relative to the repository, for entry points given relative to the script;
    `consoles`: the repository's console scripts, which are launches; `tree`: the text's parse_tree, when
    the caller has it (a front end parses a text once, whoever reads it: bot.lang.shell.front); `whole_script`: the
    text is the whole script at `path` (its `$0`), not a doc's snippet. A ShellScript is never changed after
    it is made. `carries`: whether a repository script runs a variable as its command (bot.lang.shell.carried).
    """
    tree = tree if tree is not None else parse_tree(src)
    walker = Walker(src, path if whole_script else None)
    result = walker.run(tree.root_node)
    errors = sorted([*error_spans(tree.root_node), *result.too_deep], key=lambda s: (s.start, s.end))
    script = ShellScript(src=src, tree=tree, definitions=result.definitions, errors=errors,
                         statements=result.statements, reaching=result.reaching, inline_strings=result.inline_strings)
    cut_launches: dict[int, list[Launch]] = {}  # the line after a cut: the launches it was meant to continue
    for site in result.commands:
        line = int(site.node.start_point[0]) + 1
        words = _site_words(site, walker, consoles, whole=line in cut_launches)  # a cut launch's rest: every word
        fields = [f for alternatives in words for alternative in alternatives for f in alternative]
        if not fields:
            continue
        stranded = cut_launches.pop(line, None)
        if stranded is not None:
            _strand(stranded, fields, src)
        launches = [launch for launch in build_launches(site, words, src, path, consoles)
                    if launch.entry_kind != CONSOLE or launch.entry not in result.functions]  # `run() {...}`: ours
        if not launches and carries is not None:
            launches = _carried(site, walker, src, path, consoles, carries, all_exported)
        cut, how = cut_short_at(src, site.node), BLANK
        rest = None if cut is None else cut + 1
        for later, kind in ((cut_by_comment, COMMENT), (cut_by_line_end, LINE_END)):
            found = later(src, site.node) if cut is None and launches else None
            if found is not None:
                (cut, rest), how = found, kind
        for launch in launches:
            launch.cut_short, launch.cut_by = cut, how
        if rest is not None and launches:
            cut_launches[rest] = launches
        script.launches.extend(launches)
        if any(launch.entry_kind != SHELL_SCRIPT and launch.carrier is None for launch in launches):
            continue  # a launch; a script that runs a carried launch is handed the rest of its environment too
        call = script_call(site, [f.text for f in fields[:4]], src, all_exported)
        if call is not None and call.values:
            script.calls.append(call)
    return script


def count_errors(src: bytes) -> int:
    return len(error_spans(parse_tree(src).root_node))
