"""Compound statements of the shell walk (bot.lang.shell.walk): `if`, `case`, loops and functions.

Branches are merged conservatively: after `if`/`case` a variable may hold the value of any
branch (or the caller's value, where a branch did not assign it); loop bodies may not run.
Function bodies are read with the variables defined before the function. Each `if` and `case`
records its arms and what their tests say of a variable (bot.lang.shell.arms); definitions and
commands carry the arms they sit in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.lang.shell.arms import Arm, Guard, Statement, Test, case_tests, condition_tests
from bot.lang.shell.directories import tilde
from bot.lang.shell.nodes import line_of, variable_of
from bot.lang.shell.text import Items, Piece, split_fields
from bot.lang.shell.variables import Definition, Env, merge

if TYPE_CHECKING:
    from tree_sitter import Node

    from bot.lang.shell.directories import Workdir
    from bot.lang.shell.expansion import Expander
    from bot.lang.shell.walk import WalkResult



class BranchWalking:
    """The part of the walker that follows statements with branches, loops and function bodies."""

    src: bytes
    expander: Expander
    result: WalkResult
    _function: str | None
    _branch: str | None
    _guard: Guard
    _cwd: Workdir | None
    _moved: bool

    if TYPE_CHECKING:  # the statement walking itself: bot.lang.shell.walk.Walker
        def block(self, nodes: list[Node], env: Env) -> Env: ...

        def statement(self, node: Node, env: Env) -> Env: ...

        def record_uses(self, node: Node, env: Env) -> None: ...

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
