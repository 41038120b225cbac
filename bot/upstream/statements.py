"""Which libcst nodes a walk over a module's statements enters: those that can hold a statement (or a function's
parameters). A visitor that reads statements only (bot.upstream.checks) passes over the rest unentered: libcst
rebuilds every node it enters, expressions and whitespace included, the larger part of reading a file.
"""

from __future__ import annotations

import libcst as cst

# the nodes a statement (or a parameter) can be found in: the module, blocks, lines of small statements, compound
# statements and their clauses, a function's parameter list (no statement is ever inside an expression)
HOLDERS: frozenset[type[cst.CSTNode]] = frozenset({
    cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine,
    cst.ClassDef, cst.FunctionDef, cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Match,
    cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase, cst.Parameters,
})


def entered(node: cst.CSTNode) -> bool:
    """Whether a statement-level walk enters `node` (its exact type, not a subclass: no isinstance of libcst's
    abstract classes, which costs as much as the rest of the test)."""
    return type(node) in HOLDERS
