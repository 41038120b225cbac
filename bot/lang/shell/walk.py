"""One pass over a script's syntax tree: which definitions reach each command.

Branches are merged conservatively: after `if`/`case` a variable may hold the value of any
branch (or the caller's value, where a branch did not assign it); loop bodies may not run.
Function bodies are read with the variables defined before the function.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.lang.shell.text import BREAK, SCRIPT_DIR, WORK_DIR, Piece
from bot.lang.shell.variables import (
    Definition,
    Env,
    Expander,
    as_default,
    caller_definition,
    parse_expansion,
    reaching,
    tilde,
)
from bot.model import Span

if TYPE_CHECKING:
    from tree_sitter import Node

STATEMENT_LISTS = {"program", "compound_statement", "do_group", "list", "pipeline",
                   "redirected_statement", "negated_command", "ERROR"}
DECLARATIONS = {"declaration_command"}
LITERAL_WORDS = {"word", "string", "raw_string", "number", "extglob_pattern"}
MAX_DEPTH = 60  # statements inside statements (and `$(...)` inside commands) that are followed
SKIP = {"comment", ";", ";;", "&", "&&", "||", "|", "|&", "\n", "(", ")", "{", "}"}


Workdir = tuple[str, str]  # ("root" | "script" | "absolute", path): the repository root, the script's dir, or /path
ROOT: Workdir = ("root", "")


@dataclass
class CommandSite:
    node: Node
    env: Env
    in_function: str | None
    branch: str | None  # the nearest condition the command sits under, as written
    cwd: Workdir | None = ROOT  # where the command runs, as far as the script's `cd`s say (None: unknown)



@dataclass
class WalkResult:
    commands: list[CommandSite] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    tested: dict[str, list[str]] = field(default_factory=dict)  # values the script compares a variable with
    too_deep: list[Span] = field(default_factory=list)  # statements nested too deeply to follow


def _line(node: Node) -> int:
    return int(node.start_point[0]) + 1


class Walker:
    def __init__(self, src: bytes) -> None:
        self.src = src
        self.expander = Expander(src)
        self.result = WalkResult()
        self._function: str | None = None
        self._branch: str | None = None
        self._depth = 0
        self._cwd: Workdir | None = ROOT
        self._moved = False  # a branch of the current compound statement ran `cd`

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
        if kind == "variable_assignments":
            for child in node.children:
                if child.type == "variable_assignment":
                    env = self.assignment(child, env)
            return env
        if kind in DECLARATIONS:
            for child in node.children:
                if child.type == "variable_assignment":
                    env = self.assignment(child, env)
                elif child.type not in ("export", "declare", "local", "readonly", "typeset"):
                    self.record_uses(child, env)
            return env
        if kind == "command":
            return self.command(node, env)
        if kind in STATEMENT_LISTS:
            return self.block(node.children, env)
        if kind == "subshell":
            cwd = self._cwd
            self.block(node.children, dict(env))
            self._cwd = cwd  # a `cd` inside ( ... ) stays there
            return env
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

    def assignment(self, node: Node, env: Env) -> Env:
        name_node = node.children[0] if node.children else None
        if name_node is None or name_node.type not in ("variable_name", "subscript"):
            self.record_uses(node, env)
            return env
        append = any(c.type == "+=" for c in node.children)
        values = [c for c in node.children[1:] if c.type not in ("=", "+=")]
        for part in values:
            self.record_uses(part, env)
        if name_node.type == "subscript":  # A[3]=x: too rare to track; A may now be anything
            name = (name_node.children[0].text or b"").decode()
            return {**env, name: (self._computed(name, node, "an element assigned by index"),)}
        name = (name_node.text or b"").decode()
        value: Node | None = values[0] if values else None
        if value is not None and value.type == "array":
            kind = "array"
            alternatives = [self._array_items(value, env)]
        else:
            kind = "scalar"
            alternatives = ([tilde(alt, assignment=True) for alt in self.expander.word(value, env)]
                            if value is not None else [[Piece("")]])
        if append:
            previous = [d for d in reaching(env, name) if d.kind != "caller"]
            alternatives = [
                before + ([BREAK] if kind == "array" else []) + after
                for d in previous for before in d.values for after in alternatives
            ] or alternatives
        definition = Definition(
            name=name,
            kind=kind,
            line=_line(node),
            span=Span(value.start_byte, value.end_byte) if value is not None else None,
            values=alternatives,
            conditional=self._branch is not None or self._function is not None,
        )
        self.result.definitions.append(definition)
        return {**env, name: (definition,)}

    def _array_items(self, array: Node, env: Env) -> list[Piece | None]:
        items: list[Piece | None] = []
        for child in array.children:
            if child.type in ("(", ")", "comment"):
                continue
            alternatives = [tilde(alt) for alt in self.expander.word(child, env)]
            for alternative in alternatives:  # every branch's value is a possible element
                if items:
                    items.append(BREAK)
                items.extend(p for p in alternative if p is not None and (p.text or not p.splittable))
        return items

    def _computed(self, name: str, node: Node, why: str) -> Definition:
        piece = Piece((node.text or b"").decode("utf-8", "replace"), dynamic=why)
        return Definition(name=name, kind="scalar", line=_line(node), values=[[piece]])

    def command(self, node: Node, env: Env) -> Env:
        self.record_uses(node, env)
        self.result.commands.append(CommandSite(node, env, self._function, self._branch, self._cwd))
        name = _command_name(node)
        if name in ("cd", "pushd", "popd"):
            self._cwd = self._change_dir(node, env) if name != "popd" else None
        if name in ("read", "mapfile", "readarray", "getopts"):
            env = dict(env)
            for child in node.children[1:]:
                if child.type == "word" and child.text and not child.text.startswith(b"-"):
                    var = child.text.decode()
                    env[var] = (self._computed(var, node, f"read by {name}"),)
        return self._assign_defaults(node, env)

    def _change_dir(self, node: Node, env: Env) -> Workdir | None:
        """Where `cd DIR` leads from the current directory; None when the script does not say."""
        args = [c for c in node.children[1:] if c.type not in ("comment", "file_redirect", "herestring_redirect")]
        args = [a for a in args if not (a.text or b"").startswith(b"-")]
        if len(args) != 1:
            return None
        alternatives = self.expander.word(args[0], env)
        if len(alternatives) != 1:
            return None
        return directory_of([p for p in alternatives[0] if p is not None], self._cwd)

    def _assign_defaults(self, node: Node, env: Env) -> Env:
        """`${V:=x}` in a command assigns x to V when V was unset."""
        updated: dict[str, tuple[Definition, ...]] | None = None
        if not self._may_expand(node):
            return env
        for sub in _descendants(node, {"expansion"}):
            form = parse_expansion(sub)
            if form is None or form[2] not in (":=", "="):
                continue
            name, _, _, operand = form
            defs = reaching(env, name)
            if all(d.kind != "caller" for d in defs):
                continue
            alternatives = self.expander._operand(operand or [], env, "b")
            marked = [[as_default(p, name) for p in alt] for alt in alternatives]
            definition = Definition(name=name, kind="scalar", line=_line(sub),
                                    span=Span(sub.start_byte, sub.end_byte), values=marked)
            self.result.definitions.append(definition)
            updated = updated if updated is not None else dict(env)
            updated[name] = (*[d for d in defs if d.kind != "caller"], definition)
        return updated if updated is not None else env

    def compound(self, walk: Callable[[Node, Env], Env], node: Node, env: Env) -> Env:
        """A statement with branches; a `cd` in any of them leaves the directory after it unknown."""
        outer, self._moved = self._moved, False
        try:
            return walk(node, env)
        finally:
            if self._moved:
                self._cwd = None
            self._moved = outer or self._moved

    def if_statement(self, node: Node, env: Env) -> Env:
        condition: list[Node] = []
        body: list[Node] = []
        branches: list[Node] = []
        target = condition
        has_else = False
        for child in node.children:
            if child.type == "if":
                continue
            if child.type == "then":
                target = body
                continue
            if child.type == "fi":
                break
            if child.type in ("elif_clause", "else_clause"):
                branches.append(child)
                has_else = has_else or child.type == "else_clause"
                continue
            target.append(child)
        env = self.block(condition, env)
        label = self._condition_text(condition)
        outs = [self._branch_block(body, env, label)]
        for clause in branches:
            parts = [c for c in clause.children if c.type not in ("elif", "else", "then")]
            clause_label = "else" if clause.type == "else_clause" else self._condition_text(parts[:1])
            outs.append(self._branch_block(parts, env, clause_label))
        if not has_else:
            outs.append(env)
        return merge(outs)

    def case_statement(self, node: Node, env: Env) -> Env:
        outs = []
        has_default = False
        subject: str | None = None
        subject_var: str | None = None
        for child in node.children:
            if child.type == "case_item":
                patterns: list[Node] = []
                body: list[Node] = []
                seen_paren = False
                for part in child.children:
                    if not seen_paren:
                        if part.type == ")":
                            seen_paren = True
                        elif part.type not in ("(", "|"):
                            patterns.append(part)
                        continue
                    body.append(part)
                texts = [(p.text or b"").decode() for p in patterns]
                has_default = has_default or "*" in texts
                if subject_var is not None:
                    for text in texts:
                        self._tested(subject_var, text)
                label = f"case {subject} in {'|'.join(texts)})" if subject else None
                outs.append(self._branch_block(body, env, label))
            elif child.type not in ("case", "in", "esac") and subject is None:
                self.record_uses(child, env)
                subject_var = _variable_of(child)
                subject = (child.text or b"").decode("utf-8", "replace")
        if not has_default:
            outs.append(env)
        return merge(outs)

    def loop(self, node: Node, env: Env) -> Env:
        body = [c for c in node.children if c.type == "do_group"]
        header = [c for c in node.children if c.type != "do_group"]
        loop_env = dict(env)
        if node.type == "for_statement":
            var = next((c for c in header if c.type == "variable_name"), None)
            words = [c for c in header if c.type not in ("for", "in", "variable_name", ";", "do")]
            for word in words:
                self.record_uses(word, env)
            if var is not None and var.text:
                name = var.text.decode()
                alternatives = [alt for w in words for alt in self.expander.word(w, env)]
                definition = Definition(name=name, kind="loop", line=_line(var),
                                        values=alternatives or [[Piece("", dynamic="loop")]])
                loop_env[name] = (definition,)
        else:
            for part in header:
                self.statement(part, env) if part.type not in ("while", "until", "for", "select") else None
        after = self._branch_block(body, loop_env, "inside a loop")
        return merge([env, after])

    def function(self, node: Node, env: Env) -> Env:
        name_node = next((c for c in node.children if c.type == "word"), None)
        previous = self._function
        self._function = (name_node.text or b"").decode() if name_node is not None else "function"
        body = [c for c in node.children if c.type in ("compound_statement", "subshell")]
        cwd = self._cwd
        self.block(body, dict(env))
        self._function, self._cwd = previous, cwd  # the body runs where it is called, later
        return env

    def _branch_block(self, nodes: list[Node], env: Env, label: str | None) -> Env:
        previous = self._branch
        cwd = self._cwd
        self._branch = label or previous
        try:
            return self.block(nodes, dict(env))
        finally:
            self._branch = previous
            self._moved |= self._cwd != cwd
            self._cwd = cwd  # each branch starts where the `if` (or `case`, or loop) starts

    def _condition_text(self, nodes: list[Node]) -> str | None:
        if not nodes:
            return None
        text = self.src[nodes[0].start_byte : nodes[-1].end_byte].decode("utf-8", "replace")
        return "if " + " ".join(text.split())

    def _tested(self, name: str, value: str) -> None:
        value = value.strip("\"'")
        if value and not any(ch in value for ch in "*?[$") and value not in self.result.tested.setdefault(name, []):
            self.result.tested[name].append(value)

    def _record_tests(self, node: Node) -> None:
        """`[ "$V" = x ]`, `[[ $V == x ]]`: the values a script itself tests a variable against."""
        for expr in _descendants(node, {"binary_expression"}):
            parts = [c for c in expr.children if c.type not in ("=", "==", "!=")]
            operators = [c for c in expr.children if c.type in ("=", "==", "!=")]
            if len(parts) != 2 or not operators:
                continue
            left, right = parts
            for var_side, value_side in ((left, right), (right, left)):
                name = _variable_of(var_side)
                if name is not None and value_side.type in LITERAL_WORDS:
                    self._tested(name, (value_side.text or b"").decode("utf-8", "replace"))

    # ---- uses ----------------------------------------------------------------------
    def _may_expand(self, node: Node) -> bool:
        """Whether the node's text has a `$` or a backquote: without one there is nothing to expand."""
        text = self.src[node.start_byte : node.end_byte]
        return b"$" in text or b"`" in text

    def record_uses(self, node: Node, env: Env) -> None:
        if node.type == "test_command":
            self._record_tests(node)
        if not self._may_expand(node):
            return
        cwd = self._cwd
        for inner in _outermost(node, "command_substitution"):
            self.block(inner.children, dict(env))  # launches inside $( ... ) run in a subshell
            self._cwd = cwd
        for sub in _descendants(node, {"simple_expansion", "expansion"}):
            form = parse_expansion(sub)
            if form is None:
                continue
            span = Span(sub.start_byte, sub.end_byte)
            for definition in env.get(form[0], ()):
                definition.uses.append(span)


def directory_of(pieces: list[Piece], cwd: Workdir | None) -> Workdir | None:
    """The directory a path names, from `cwd`: `$(cd "$(dirname "$0")" && pwd)/x` is beside the script,
    `$(pwd)/x` and `$PWD/x` below the current directory; None when the script does not say."""
    if cwd is None and not (pieces and pieces[0].dynamic == SCRIPT_DIR):
        return None
    base, rest = cwd or ROOT
    anchored = bool(pieces) and pieces[0].dynamic in (SCRIPT_DIR, WORK_DIR)
    if anchored and pieces[0].dynamic == SCRIPT_DIR:
        base, rest = "script", ""
    if anchored:
        pieces = pieces[1:]
    if any(not p.static for p in pieces):
        return None
    path = "".join(p.text for p in pieces)
    if anchored:
        path = path.lstrip("/")
    elif path.startswith("/"):
        return "absolute", posixpath.normpath(path)
    if path.startswith("~"):
        return None
    joined = posixpath.normpath(posixpath.join(rest, path)) if path else rest
    if base == "absolute":
        return base, joined
    return base, "" if joined == "." else joined


def merge(envs: list[Env]) -> Env:
    names: dict[str, None] = {}
    for env in envs:
        names.update(dict.fromkeys(env))
    out: dict[str, tuple[Definition, ...]] = {}
    for name in names:
        seen: dict[int, Definition] = {}
        for env in envs:
            for definition in env.get(name) or (caller_definition(name),):
                seen.setdefault(id(definition), definition)
        out[name] = tuple(seen.values())
    return out


def _variable_of(node: Node) -> str | None:
    """V for `$V`, `${V}` and `"$V"`, else None."""
    if node.type == "string":
        inner = [c for c in node.children if c.type not in ('"',)]
        node = inner[0] if len(inner) == 1 else node
    if node.type in ("simple_expansion", "expansion"):
        form = parse_expansion(node)
        if form is not None and form[2] is None:
            return form[0]
    return None


def _command_name(node: Node) -> str:
    for child in node.children:
        if child.type == "command_name":
            return (child.text or b"").decode("utf-8", "replace")
    return ""


def _outermost(node: Node, kind: str) -> list[Node]:
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            out.append(current)
            continue
        stack.extend(reversed(current.children))
    return out


def _descendants(node: Node, kinds: set[str]) -> list[Node]:
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in kinds:
            out.append(current)
        stack.extend(reversed(current.children))
    return out
