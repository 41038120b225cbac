"""Small readings of tree-sitter-bash nodes: a command's name, the parts of an expansion, nested nodes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

    Expansion = tuple[str, str | None, str | None, list[Node] | None]  # what parse_expansion reads


def line_of(node: Node) -> int:
    """The node's 1-based line."""
    return int(node.start_point[0]) + 1


def parse_expansion(node: Node) -> Expansion | None:
    """(name, subscript, operator, operand nodes) for `$V`, `${V}`, `${V:-x}`, `${A[@]}`."""
    if node.type == "simple_expansion":
        for child in node.children:
            if child.type in ("variable_name", "special_variable_name"):
                return child.text.decode() if child.text else "", None, None, None
        return None
    children = [c for c in node.children if c.type not in ("${", "}")]
    if not children or any(c.type == "ERROR" or c.is_missing for c in children):
        return None
    first = children[0]
    subscript = None
    if first.type in ("variable_name", "special_variable_name"):
        name = first.text.decode() if first.text else ""
    elif first.type == "subscript":
        sub_children = first.children
        name = sub_children[0].text.decode() if sub_children and sub_children[0].text else ""
        index = [c for c in sub_children[1:] if c.type not in ("[", "]")]
        subscript = index[0].text.decode() if index and index[0].text else None
    else:
        return None
    rest = children[1:]
    if not rest:
        return name, subscript, None, None
    op = rest[0].type
    return name, subscript, op, rest[1:]


def variable_of(node: Node) -> str | None:
    """V for `$V`, `${V}` and `"$V"`, else None."""
    if node.type == "string":
        inner = [c for c in node.children if c.type not in ('"',)]
        node = inner[0] if len(inner) == 1 else node
    if node.type in ("simple_expansion", "expansion"):
        form = parse_expansion(node)
        if form is not None and form[2] is None:
            return form[0]
    return None


def command_name(node: Node) -> str:
    for child in node.children:
        if child.type == "command_name":
            return (child.text or b"").decode("utf-8", "replace")
    return ""


def outermost(node: Node, kind: str) -> list[Node]:
    """The nodes of `kind` in the subtree, not those nested inside one of them."""
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            out.append(current)
            continue
        stack.extend(reversed(current.children))
    return out


def descendants(node: Node, kinds: set[str]) -> list[Node]:
    """Every node of one of `kinds` in the subtree, the node itself included, in source order."""
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in kinds:
            out.append(current)
        stack.extend(reversed(current.children))
    return out


EXPANSIONS = ("simple_expansion", "expansion")
_EXPANSION_KINDS = set(EXPANSIONS)


def uses_in(node: Node) -> tuple[list[Node], list[tuple[Node, str]]]:
    """In one pass: `outermost(node, "command_substitution")`, and `descendants(node, EXPANSIONS)` with
    each one's type, both in source order."""
    substitutions: list[Node] = []
    expansions: list[tuple[Node, str]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind == "simple_expansion" or kind == "expansion":
            expansions.append((current, kind))
        elif kind == "command_substitution":
            substitutions.append(current)
            expansions.extend((n, n.type) for n in descendants(current, _EXPANSION_KINDS))  # before what follows
            continue
        children = current.children
        if children:
            stack.extend(reversed(children))
    return substitutions, expansions



def tests_value(tree: Tree, start: int, end: int) -> bool:
    """Whether the expansion at [start, end) is only compared (inside `[ ]`, `[[ ]]`, `test ...` or as a
    `case` subject): there a changed value takes the branch the script wrote for it."""
    node: Node | None = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None:
        if node.type == "test_command":
            return True
        if node.type == "case_statement":
            subject = next((c for c in node.children if c.type != "case"), None)
            return subject is not None and subject.start_byte <= start and end <= subject.end_byte
        if node.type == "command":
            name = node.child_by_field_name("name")
            return name is not None and name.text in (b"test", b"[")
        if node.type in ("program", "variable_assignment", "declaration_command", "redirected_statement"):
            return False
        node = node.parent
    return False
