"""Which of an upstream's Hydra apps load the module a new check is in (bot.lang.python.imports, over the
commit's Python sources; nothing is imported).

A check in a module that only some apps load (a recipe's own rollouter, one trainer's worker) runs only for
their launches. The rule inferred from it then says so (`when.imports`), and a launch is fixed only when its
own entry point loads that module: its repository's, or a downstream's that runs the upstream's code.
"""

from __future__ import annotations

import re

from bot.lang.python.imports import closure, imported, module_of

# `@hydra.main(` or `@main(` in a file that imports Hydra: an app's entry module, for telling which apps load
# a module (a compose-API app is not counted: a check it alone loads stays unscoped, as before)
_HYDRA_MAIN = re.compile(r"^[ \t]*@[ \t]*(?:hydra\.)?main[ \t]*\(", re.MULTILINE)


class AppReach:
    """The commit's modules (path -> source) and the apps among them."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources
        self.modules: dict[str, tuple[str, bool]] = {}  # dotted name -> (path, is a package)
        for path in sorted(sources):
            found = module_of(path)
            if found is not None:
                self.modules.setdefault(found[0], (path, found[1]))
        self.apps = sorted(name for name, (path, _) in self.modules.items()
                           if "hydra" in sources[path] and _HYDRA_MAIN.search(sources[path]))
        self._imports: dict[str, set[str]] = {}
        self._closures: dict[str, set[str]] = {}

    def _imports_of(self, name: str) -> set[str] | None:
        if name not in self.modules:
            return None
        if name not in self._imports:
            path, package = self.modules[name]
            self._imports[name] = imported(self.sources[path], name, package)
        return self._imports[name]

    def loads(self, app: str) -> set[str]:
        if app not in self._closures:
            self._closures[app] = closure(app, self._imports_of)
        return self._closures[app]

    def scope(self, path: str) -> str | None:
        """The module at `path`, where some of the apps load it and others do not; None where every app
        loads it, none does (it may be loaded at run time) or it is no module."""
        found = module_of(path)
        if found is None or len(self.apps) < 2:
            return None
        reaching = [app for app in self.apps if found[0] in self.loads(app)]
        return found[0] if reaching and len(reaching) < len(self.apps) else None
