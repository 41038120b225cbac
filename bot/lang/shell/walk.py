"""One pass over a script's syntax tree: which definitions reach each command, and where it runs.

Statements are walked here; compound statements (bot.lang.shell.branches) and assignments
(bot.lang.shell.assignments) are the walker's other two parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.lang.shell.arms import Guard, Statement
from bot.lang.shell.assignments import AssignmentTracking
from bot.lang.shell.branches import BranchWalking
from bot.lang.shell.directories import ROOT, Workdir, change_dir
from bot.lang.shell.expansion import Expander
from bot.lang.shell.inline import InlineScript, inline_script
from bot.lang.shell.nodes import command_name, parse_expansion, uses_in
from bot.lang.shell.variables import Definition, Env, reaching
from bot.model import Span

if TYPE_CHECKING:
    from tree_sitter import Node

    from bot.lang.shell.nodes import Expansion

STATEMENT_LISTS = {"program", "compound_statement", "do_group", "list", "pipeline",
                   "redirected_statement", "negated_command", "ERROR"}
DECLARATIONS = {"declaration_command"}
MAX_DEPTH = 60  # statements inside statements (and `$(...)` inside commands) that are followed
SKIP = {"comment", ";", ";;", "&", "&&", "||", "|", "|&", "\n", "(", ")", "{", "}"}


@dataclass
class CommandSite:
    node: Node
    env: Env
    in_function: str | None
    branch: str | None  # the nearest condition the command sits under, as written
    cwd: Workdir | None = ROOT  # where the command runs, as far as the script's `cd`s say (None: unknown)
    guard: Guard = ()  # the branch arms it sits in (bot.lang.shell.arms)


@dataclass
class WalkResult:
    commands: list[CommandSite] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    too_deep: list[Span] = field(default_factory=list)  # statements nested too deeply to follow
    inline_strings: list[tuple[int, int, bytes]] = field(default_factory=list)  # `bash -c` strings read, quote
    functions: set[str] = field(default_factory=set)  # the names of the functions the script defines
    statements: dict[int, Statement] = field(default_factory=dict)  # `if`/`case` by start byte, with their arms
    reaching: dict[tuple[int, int], tuple[Definition, ...]] = field(default_factory=dict)  # at each use


class Walker(BranchWalking, AssignmentTracking):
    def __init__(self, src: bytes) -> None:
        self.src = src
        self.expander = Expander(src)
        self.result = WalkResult()
        self._function: str | None = None
        self._branch: str | None = None
        self._guard: Guard = ()
        self._depth = 0
        self._exported: set[str] | None = set()  # names surely exported so far
        self._set_a: int | None = None  # where `set -a` made later assignments exported
        self._cwd: Workdir | None = ROOT
        self._moved = False  # a branch of the current compound statement ran `cd`
        self._uses: tuple[Node | None, list[tuple[Node, str, Expansion]]] = (None, [])  # the last record_uses

    def run(self, root: Node) -> WalkResult:
        self.block(root.children, {})
        return self.result

    # ---- statements ----------------------------------------------------------------
    def block(self, nodes: list[Node], env: Env) -> Env:
        for node in nodes:
            env = self.statement(node, env)
        return env

    def statement(self, node: Node, env: Env) -> Env:
        if self._depth >= MAX_DEPTH:  # not followed: the file reads as partly parsed there
            self.result.too_deep.append(Span(node.start_byte, node.end_byte))
            return env
        self._depth += 1
        try:
            return self._statement(node, env)
        finally:
            self._depth -= 1

    def _statement(self, node: Node, env: Env) -> Env:
        kind = node.type
        if kind in SKIP:
            return env
        if kind == "variable_assignment":
            return self.assignment(node, env)
        if kind == "variable_assignments" or kind in DECLARATIONS:
            return self.declaration(node, env)
        if kind == "unset_command":
            self._note_exports(node)
        if kind == "command":
            return self.command(node, env)
        if kind in STATEMENT_LISTS:
            return self.block(node.children, env)
        if kind == "subshell":
            return self.subshell(node, env)
        if kind == "if_statement":
            return self.compound(self.if_statement, node, env)
        if kind == "case_statement":
            return self.compound(self.case_statement, node, env)
        if kind in ("for_statement", "c_style_for_statement", "while_statement", "until_statement",
                    "select_statement"):
            return self.compound(self.loop, node, env)
        if kind == "function_definition":
            return self.function(node, env)
        self.record_uses(node, env)
        return env

    def declaration(self, node: Node, env: Env) -> Env:
        """`A=1 B=2`, `export A=1 B`, `local -a C=(x)`: each assignment, and what the other words read."""
        if node.type in DECLARATIONS:
            self._note_exports(node)
        for child in node.children:
            if child.type == "variable_assignment":
                env = self.assignment(child, env)
            elif node.type in DECLARATIONS and child.type not in ("export", "declare", "local", "readonly", "typeset"):
                self.record_uses(child, env)
        return env

    def subshell(self, node: Node, env: Env) -> Env:
        cwd, exported = self._cwd, set(self._exported or ())
        self.block(node.children, dict(env))
        self._cwd, self._exported = cwd, exported  # a `cd` or an `export` inside ( ... ) stays there
        return env

    def command(self, node: Node, env: Env) -> Env:
        self.record_uses(node, env)
        self.result.commands.append(CommandSite(node, env, self._function, self._branch, self._cwd,
                                                   self._guard))
        name = command_name(node)
        inline = inline_script(self.src, node)
        if inline is not None:  # `bash -c "..."`: a script of its own, run where the command runs
            self.result.inline_strings.append((inline.string.start_byte, inline.string.end_byte, inline.quote))
            cwd = self._cwd
            self.block(inline.root.named_children, self._inner_env(node, inline, env))
            self._cwd = cwd
        if name == "set" and any(c.text in (b"-a", b"allexport") for c in node.children[1:]):
            self._set_a = node.start_byte if not self._guard else self._set_a  # later assignments exported
        if name in ("cd", "pushd", "popd"):
            self._cwd = change_dir(self.expander, node, env, self._cwd) if name != "popd" else None
        if name in ("read", "mapfile", "readarray", "getopts"):
            env = dict(env)
            for child in node.children[1:]:
                if child.type == "word" and child.text and not child.text.startswith(b"-"):
                    var = child.text.decode()
                    env[var] = (self._computed(var, node, f"set by `{name}`"),)
        return self._assign_defaults(node, env)

    def _note_exports(self, node: Node) -> None:
        """`export A B=1`, `declare -x A`: the names a `bash -c '...'` run later surely inherits (not in a
        branch or a function, where it may not happen; `export -n` and `local` export nothing)."""
        head = node.children[0].text if node.children else b""
        flags = [c.text or b"" for c in node.children[1:] if c.type == "word" and (c.text or b"").startswith(b"-")]
        withdrawn = head == b"unset" or (head == b"export" and any(b"n" in f for f in flags))
        exports = (head == b"export" and not withdrawn) or (
            head in (b"declare", b"typeset") and any(b"x" in f for f in flags))
        if not (exports or withdrawn) or self._exported is None:
            return
        names = set()
        for child in node.children[1:]:
            name = child if child.type in ("variable_name", "word") else next(
                (c for c in child.children if c.type == "variable_name"), None)
            if name is not None and name.text and not name.text.startswith(b"-"):
                names.add(name.text.decode())
        if withdrawn:
            self._exported -= names  # `unset`, `export -n`: not exported any more, wherever it happens
        elif not self._guard and self._function is None:
            self._exported |= names

    def _inner_env(self, node: Node, inline: InlineScript, env: Env) -> Env:
        """What a `bash -c` string reads: in double quotes the script's own values (the script expands
        them); in single quotes what the inner shell inherits, the command's own `X=$V bash -c` included
        (its value read as the script reads it)."""
        if inline.quote == b'"':
            return dict(env)
        exported = self._exported
        inner: dict[str, tuple[Definition, ...]] = {} if inline.clean else {
            k: v for k, v in env.items()
            if exported is None or k in exported or self._exported_by_set_a(v)}
        for child in node.children:
            if child.type == "variable_assignment" and child.children and child.children[0].text:
                name = child.children[0].text.decode()
                inner[name] = self.assignment(child, dict(env)).get(name, ())
        for word in inline.env_words:  # `env X=1 bash -c`: a value the bot does not follow
            inner[word] = (self._computed(word, node, "set by `env`"),)
        return inner

    def _exported_by_set_a(self, definitions: tuple[Definition, ...]) -> bool:
        start = self._set_a
        return start is not None and bool(definitions) and all(
            d.span is not None and d.span.start > start for d in definitions)

    # ---- uses ----------------------------------------------------------------------
    def _may_expand(self, node: Node) -> bool:
        """Whether the node's text has a `$` or a backquote: without one there is nothing to expand."""
        start, end = node.start_byte, node.end_byte
        return self.src.find(b"$", start, end) >= 0 or self.src.find(b"`", start, end) >= 0

    def record_uses(self, node: Node, env: Env) -> None:
        if not self._may_expand(node):
            return
        cwd = self._cwd
        substitutions, expansions = uses_in(node)
        for inner in substitutions:
            self.block(inner.children, dict(env))  # launches inside $( ... ) run in a subshell
            self._cwd = cwd
        forms: list[tuple[Node, str, Expansion]] = []
        reached = self.result.reaching
        for sub, kind in expansions:
            form = parse_expansion(sub)
            if form is None:
                continue
            forms.append((sub, kind, form))
            span = Span(sub.start_byte, sub.end_byte)
            reached[(span.start, span.end)] = reaching(env, form[0])
            for definition in env.get(form[0], ()):
                if span not in definition.uses:  # a `bash -c "..."` string's uses are read twice
                    definition.uses.append(span)
        self._uses = (node, forms)  # what _assign_defaults reads of the same command again
