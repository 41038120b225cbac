"""One pass over a script's syntax tree: which definitions reach each command, and where it runs.

The walker follows statements, compound statements and assignments:
- Branches are merged conservatively: after `if`/`case` a variable may hold the value of any branch (or the
  caller's value, where a branch did not assign it); loop bodies may not run. Function bodies are read with
  the variables defined before the function. Each `if` and `case` records its arms and what their tests say
  of a variable (bot.lang.shell.arms); definitions and commands carry the arms they sit in.
- Assignments are recorded as definitions: `V=x`, `A=(...)`, `V+=x`, `${V:=x}`, and variables a command
  reads in (`read V`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.lang.shell.arms import Arm, Guard, Statement, Test, case_tests, condition_tests
from bot.lang.shell.directories import ROOT, Workdir, change_dir, tilde
from bot.lang.shell.expansion import Expander, as_default
from bot.lang.shell.inline import InlineScript, inline_script
from bot.lang.shell.nodes import command_name, descendants, line_of, uses_in, variable_of
from bot.lang.shell.text import BREAK, Items, Piece, split_fields
from bot.lang.shell.variables import Definition, Env, merge, reaching
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


class Walker:
    def __init__(self, src: bytes, script_path: str | None = None) -> None:
        self.src = src
        self.expander = Expander(src, script_path)
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
            form = self.expander.form(sub)
            if form is None:
                continue
            forms.append((sub, kind, form))
            start, end = sub.start_byte, sub.end_byte
            assigned = env.get(form[0])
            reached[(start, end)] = assigned or reaching(env, form[0])
            if assigned:
                span = Span(start, end)
                for definition in assigned:
                    if span not in definition.uses:  # a `bash -c "..."` string's uses are read twice
                        definition.uses.append(span)
        self._uses = (node, forms)  # what _assign_defaults reads of the same command again

    # ---- compound statements: branches, loops, function bodies ----------------------
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
        statement = self._statement_arms(node)
        when_true, ruled_out = condition_tests(condition)
        first = (label or "if").rstrip(";").rstrip()
        statement.arms.append(Arm(first, when_true))
        outs = [self._branch_block(body, env, label, (node.start_byte, 0))]
        for clause in branches:
            parts = [c for c in clause.children if c.type not in ("elif", "else", "then")]
            true: list[Test] = []
            false: list[Test] = []
            if clause.type == "else_clause":
                clause_label = "else"
            else:
                condition = [c for c in parts if c.type not in ("compound_statement",)][:1]
                clause_label = self._condition_text(parts[:1]) or "elif"
                true, false = condition_tests(condition)
            arm_label = clause_label.rstrip(";").rstrip().replace("if ", "elif ", 1)
            statement.arms.append(Arm(f"{first}: else" if clause_label == "else" else arm_label,
                                      [*ruled_out, *true]))
            ruled_out = [*ruled_out, *false]
            outs.append(self._branch_block(parts, env, clause_label, (node.start_byte, len(statement.arms) - 1)))
        if not has_else:
            statement.arms.append(Arm(f"{first}: not taken", ruled_out))
            outs.append(env)
        return merge(outs)

    def case_statement(self, node: Node, env: Env) -> Env:
        outs = []
        has_default = False
        subject: str | None = None
        subject_var: str | None = None
        statement: Statement | None = None
        ruled_out: list[Test] = []
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
                label = f"case {subject} in {'|'.join(texts)})" if subject else None
                statement = statement or self._statement_arms(node)
                test = case_tests(subject_var, patterns)
                statement.arms.append(Arm(label or "case", [*ruled_out, *([test] if test else [])]))
                if test is not None:
                    ruled_out = [*ruled_out, test.negated()]
                outs.append(self._branch_block(body, env, label, (node.start_byte, len(statement.arms) - 1)))
            elif child.type not in ("case", "in", "esac") and subject is None:
                self.record_uses(child, env)
                subject_var = variable_of(child)
                subject = (child.text or b"").decode("utf-8", "replace")
        if not has_default:
            statement = statement or self._statement_arms(node)
            statement.arms.append(Arm(f"no arm of case {subject}", ruled_out))
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
                # the variable takes each field of the list, after splitting: `"${A[@]}"` and `$LIST` give several
                alternatives: list[Items] = [[*f.pieces] for w in words for alt in self.expander.word(w, env)
                                             for f in split_fields(tilde(alt))]
                if "IFS" in env:  # splitting at other characters than blanks: the values are not followed
                    alternatives = [[Piece("$" + name, dynamic="split by the script's own IFS")]]
                definition = Definition(name=name, kind="loop", line=line_of(var),
                                        values=alternatives or [[Piece("", dynamic="loop")]], guard=self._guard)
                loop_env[name] = (definition,)
        else:
            for part in header:
                self.statement(part, env) if part.type not in ("while", "until", "for", "select") else None
        after = self._branch_block(body, loop_env, "inside a loop", (-node.start_byte - 1, 0))
        return merge([env, after])

    def function(self, node: Node, env: Env) -> Env:
        name_node = next((c for c in node.children if c.type == "word"), None)
        previous = self._function
        self._function = (name_node.text or b"").decode() if name_node is not None else "function"
        self.result.functions.add(self._function)
        body = [c for c in node.children if c.type in ("compound_statement", "subshell")]
        cwd = self._cwd
        self.block(body, dict(env))
        self._function, self._cwd = previous, cwd  # the body runs where it is called, later
        return env

    def _statement_arms(self, node: Node) -> Statement:
        statement = Statement(self._guard)
        self.result.statements[node.start_byte] = statement
        return statement

    def _branch_block(self, nodes: list[Node], env: Env, label: str | None, arm: tuple[int, int]) -> Env:
        """One arm; a loop's body is an arm of a statement no launch is split on (it may run or not)."""
        previous, guard = self._branch, self._guard
        cwd = self._cwd
        self._branch = label or previous
        self._guard = (*guard, arm)
        try:
            return self.block(nodes, dict(env))
        finally:
            self._branch, self._guard = previous, guard
            self._moved |= self._cwd != cwd
            self._cwd = cwd  # each branch starts where the `if` (or `case`, or loop) starts

    def _condition_text(self, nodes: list[Node]) -> str | None:
        if not nodes:
            return None
        text = self.src[nodes[0].start_byte : nodes[-1].end_byte].decode("utf-8", "replace")
        return "if " + " ".join(text.split())

    # ---- assignments ----------------------------------------------------------------
    def assignment(self, node: Node, env: Env) -> Env:
        name_node = node.children[0] if node.children else None
        if name_node is None or name_node.type not in ("variable_name", "subscript"):
            self.record_uses(node, env)
            return env
        append = False
        values = []
        for child in node.children[1:]:  # one pass: the operator, and the value's nodes
            kind = child.type
            if kind == "+=":
                append = True
            elif kind != "=":
                values.append(child)
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
            line=line_of(node),
            span=Span(value.start_byte, value.end_byte) if value is not None else None,
            values=alternatives,
            conditional=self._branch is not None or self._function is not None,
            guard=self._guard,
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
                only = alternative[0] if len(alternative) == 1 else None
                if only is not None and (not only.splittable or only.dynamic is not None):
                    if only.text or not only.splittable:  # one piece, not split: an element of its own
                        if items:
                            items.append(BREAK)
                        items.append(only)
                    continue
                for element in split_fields(alternative):  # `"${A[@]}"`, an unquoted `$X`: several elements
                    if items:
                        items.append(BREAK)
                    items.extend(element.pieces)
        return items

    def _computed(self, name: str, node: Node, why: str) -> Definition:
        piece = Piece(f"${{{name}}}", dynamic=why)  # shown as the variable, not the command that sets it
        return Definition(name=name, kind="scalar", line=line_of(node), values=[[piece]], guard=self._guard)


    def _assign_defaults(self, node: Node, env: Env) -> Env:
        """`${V:=x}` in a command assigns x to V when V was unset."""
        updated: dict[str, tuple[Definition, ...]] | None = None
        if not self._may_expand(node):
            return env
        known, forms = self._uses
        if known is node:  # record_uses has just read the command's expansions
            found: list[tuple[Node, Expansion | None]] = [(sub, form) for sub, kind, form in forms
                                                         if kind == "expansion"]
        else:
            found = [(sub, self.expander.form(sub)) for sub in descendants(node, {"expansion"})]
        for sub, form in found:
            if form is None or form[2] not in (":=", "="):
                continue
            name, _, _, operand = form
            defs = reaching(env, name)
            if all(d.kind != "caller" for d in defs):
                continue
            alternatives = self.expander._operand(operand or [], env, "b")
            marked = [[as_default(p, name) for p in alt] for alt in alternatives]
            definition = Definition(name=name, kind="scalar", line=line_of(sub),
                                    span=Span(sub.start_byte, sub.end_byte), values=marked, guard=self._guard)
            self.result.definitions.append(definition)
            updated = updated if updated is not None else dict(env)
            updated[name] = (*[d for d in defs if d.kind != "caller"], definition)
        return updated if updated is not None else env
