"""No per-repository fact lives in the process (issue 40, step 1): what a scan knows of its repository is
held by its ScanContext, so two scans in one process never read each other's facts.

Held over the AST of every module of `bot/`: no `global` statement; no module-level container that a
function changes; a `functools` cache at module level (or on a class, which is as shared) only for a pure
function of its arguments, each named below with the reason it is pure.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bot"

# "module:function" -> why the cache is a pure function of its arguments (their text), never of a repository
PURE_CACHES = {
    "bot.lang.shell.variables:caller_definition": "one Definition per variable name a caller may set: its name",
    "bot.hydra.source:_source_class": "Hydra's config source class, made once; no argument",
    "bot.cache.store:_code_digest": "the digest of the bot's own source and parser versions; no argument",
    "bot.hydra.grammar:_parser": "Hydra's override parser, built once; no argument",
    "bot.hydra.grammar:_parse_override": "the override grammar: one override's text",
    "bot.lang.shell.values:hydra_reading": "the override grammar's reading, or its refusal: one override's text",
    "bot.rules.globs:compile_glob": "glob compilation: the pattern and its separator",
    "bot.rules.suffix:_suffixes": "the key-suffix globs of one pattern",
    "bot.rules.moves:_pattern": "the regular expression of one move's old key",
    "bot.lang.focus:_settled_form": "the regular expression of one token",
    "bot.lang.yaml.fast:_loader": "libyaml's loader class, built once; no argument",
    "bot.lang.shell.parse:_parser": "tree-sitter-bash's parser, built once; no argument",
    "bot.lang.shell.inline:_parser": "tree-sitter-bash's parser for inline strings, built once; no argument",
    "bot.lang.shell.launches:_newlines": "the newline offsets of one text",
    "bot.lang.shell.settings:_env_inputs": "the inputs of a called script: its bytes, its path and the "
                                           "console-script table, all arguments",
    "bot.hydra.config_files:_parse_yaml": "the data of one YAML text",
    "bot.hydra.hydra_steps:_package_source": "the class reading Hydra's own package configs once: Hydra's class",
    "bot.hydra.source:_quick_loader": "OmegaConf's YAML loader on libyaml, built once; no argument",
    "bot.scratch:_ram_backed": "whether this machine's /dev/shm is a tmpfs the process may write to; no argument",
}

# "module.NAME" -> why a module-level container that functions change holds no repository's fact
PROCESS_STATE = {
    "bot.secrets._SECRETS": "the tokens this process was given, removed from everything it prints: the process's own",
    "bot.hydra.hydra_steps._read": "Hydra's own configs as its installed package holds them: no repository's",
    "bot.hydra.structured_nodes._MADE": "the classes made of a scan's stored schemas, each by a name unique in the "
                                        "process and held weakly (while that scan's nodes hold it), for pickle to "
                                        "find again: no scan looks up another's",
    "bot.confined._directories": "the real path of a directory, used only while its path still leads to the same "
                                 "directory (device and inode, checked on each use): the file system's, as it is",
}

_CACHES = {"lru_cache", "cache"}
_MUTATORS = {"append", "appendleft", "add", "update", "clear", "pop", "popleft", "popitem", "setdefault",
             "extend", "extendleft", "insert", "remove", "discard", "sort", "reverse", "rotate",
             "difference_update", "intersection_update", "symmetric_difference_update", "__setitem__"}
_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter", "bytearray",
               "WeakValueDictionary", "WeakKeyDictionary", "WeakSet", "ChainMap"}


def _modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"))
    return found


def _is_cache(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    return name in _CACHES


def _cached_functions(module: ast.Module) -> list[str]:
    """Functions of the module's top level, or of its classes, that a functools cache wraps."""
    found = []
    for node in module.body:
        bodies = [(node.name + ".", node.body)] if isinstance(node, ast.ClassDef) else [("", [node])]
        for prefix, body in bodies:
            for item in body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(map(_is_cache,
                                                                                           item.decorator_list)):
                    found.append(prefix + item.name)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) and (
                isinstance(node.value.func, ast.Call) and _is_cache(node.value.func)):  # f = lru_cache(...)(g)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.extend(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _mutable(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in _CONTAINERS
    return False


def _module_containers(module: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in module.body:
        if isinstance(node, ast.Assign) and _mutable(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _mutable(node.value):
            names.add(node.target.id)
    return names


def _changed_in_functions(module: ast.Module, names: dict[str, str]) -> set[str]:
    """Which of `names` (local name -> what it is) a function of the module changes."""
    changed: set[str] = set()

    def root_name(node: ast.expr) -> str | None:
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    for function in ast.walk(module):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        local: set[str] = set()  # names the function binds itself shadow the module's
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                local.add(node.id)
            elif isinstance(node, ast.arg):
                local.add(node.arg)
        for node in ast.walk(function):
            targets: list[ast.expr] = []
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = [t for t in node.targets if isinstance(t, ast.Subscript)]
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                targets = [node.func.value]
            for target in targets:
                name = root_name(target)
                if name in names and name not in local:
                    changed.add(names[name])
    return changed


def test_no_global_statement() -> None:
    found = [f"{name}: global {', '.join(node.names)}" for name, module in _modules().items()
             for node in ast.walk(module) if isinstance(node, ast.Global)]
    assert found == []


def test_module_caches_are_pure_functions_on_the_list() -> None:
    found = {f"{name}:{function}" for name, module in _modules().items() for function in _cached_functions(module)}
    assert sorted(found - PURE_CACHES.keys()) == [], "a process-wide cache: keep it in the ScanContext instead"
    assert sorted(PURE_CACHES.keys() - found) == [], "listed here, and no longer a cache: take it off the list"


def test_no_module_container_is_changed_by_a_function() -> None:
    modules = _modules()
    containers = {name: _module_containers(module) for name, module in modules.items()}
    changed: set[str] = set()
    for name, module in modules.items():
        visible = {local: f"{name}.{local}" for local in containers[name]}
        for node in module.body:  # names imported from a module of bot/ that holds them
            if isinstance(node, ast.ImportFrom) and node.module in containers:
                for alias in node.names:
                    if alias.name in containers[node.module]:
                        visible[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        changed |= _changed_in_functions(module, visible)
    assert sorted(changed - PROCESS_STATE.keys()) == [], "per-repository facts: keep them in the ScanContext"
    assert sorted(PROCESS_STATE.keys() - changed) == [], "listed here, and no longer changed: take it off the list"
