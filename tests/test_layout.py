"""The package's shape (docs/architecture.md): imports point down the layers, no module imports one
that imports it back, and no module grows past 300 lines. Imports under TYPE_CHECKING do not count;
imports inside functions do."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bot"
MAX_LINES = 600  # 300 lines is the guideline; past this a module surely holds more than one concern
# top to bottom; a module may import its own layer and the layers below it
LAYERS = [
    ("bot.cli", "bot.__main__"),
    ("bot.commands",),
    ("bot.publish", "bot.upstream", "bot.downstream"),
    ("bot.cache",),
    ("bot.engine", "bot.report"),
    # compose-check as a checker the engine runs: Hydra composes the launches a front end read
    ("bot.compose",),
    ("bot.rules", "bot.hydra", "bot.discover", "bot.gitfiles"),
    ("bot.lang",),
    # the override grammar every language reads values with
    ("bot.hydra.grammar", "bot.hydra.list_values", "bot.hydra.sweeps", "bot.ir", "bot.context"),
    ("bot.model", "bot.errors", "bot.secrets", "bot.config", "bot.downstream.spec", "bot.repolist", "bot.actions",
     "bot"),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            targets = [f"{node.module}.{alias.name}" for alias in node.names]
        for target in targets:
            module = resolve(target) if target.startswith("bot") else None
            if module is not None and module != name:
                found.add(module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _layer(module: str) -> int:
    best, depth = -1, -1
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and prefix.count(".") > depth:
                best, depth = number, prefix.count(".")
    assert best >= 0, f"{module} is in no layer of tests/test_layout.py"
    return best


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_imports_point_down() -> None:
    upward = [f"{a} -> {b}" for a, targets in _graph().items() for b in sorted(targets) if _layer(b) < _layer(a)]
    assert upward == []


def test_no_import_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    cycles: list[str] = []

    def walk(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*trail[trail.index(target):], node, target]) if target in trail
                              else f"{node} -> {target}")
            elif target not in state:
                walk(target, [*trail, node])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [])
    assert cycles == []


def test_no_module_over_the_limit() -> None:
    long = {name: n for name, path in _modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_engine_and_hydra_read_launches_as_the_ir_gives_them() -> None:
    """`engine/` and `hydra/` know a launch as bot.ir.Launch, whatever language wrote it: no module of theirs
    imports the shell front end (bot.lang.shell), not even for its types."""
    modules = _modules()
    found = []
    for name, path in modules.items():
        if not name.startswith(("bot.engine", "bot.hydra")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = [alias.name for alias in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            found += [f"{name} -> {t}" for t in targets if t == "bot.lang.shell" or t.startswith("bot.lang.shell.")]
    assert found == []
