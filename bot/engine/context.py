"""The scan's context (bot.context), built once before a scan, listing or compose-check reads its files.

The repository's packaging is read for its console scripts (bot.lang.consoles), which are launches, and
for where its packages live (a package of a monorepo lives beside its own packaging file); the
composer and the caches the scan fills start empty.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot import confined
from bot.compose.context import ComposeContext
from bot.context import Consoles
from bot.discover import SourceFile, read_source
from bot.hydra.compose import Composer
from bot.hydra.entry import package_roots
from bot.hydra.stores import StoredConfigs
from bot.lang.consoles import console_scripts
from bot.lang.focus import Focus
from bot.model import Skipped
from bot.rules.model import Rule


@dataclass(frozen=True, kw_only=True)
class EngineContext(ComposeContext):
    """The scan context with what composing reads (bot.compose.context: the composer, the configs the
    repository registers in Hydra's ConfigStore) and what the engine reads besides: the files listed, the
    enabled rules and what a file must hold for them."""

    listed: tuple[SourceFile, ...] = ()
    rules: tuple[Rule, ...] = ()
    focus: Focus | None = None  # bot.lang.focus; None: every file


def scan_context(root: Path, listed: Iterable[SourceFile] = (), packaging: Iterable[str] = (),
                 rules: Iterable[Rule] = (), focus: Focus | None = None) -> EngineContext:
    """The context of a scan of `root` that listed these files and packaging files (bot.discover.sources);
    `rules`: the enabled ones, `focus`: what a file must hold for them."""
    confined.forget()  # links may have changed since the last scan of this process
    packaging = list(packaging)
    files = []
    real_root = os.path.realpath(root)
    ignored: list[Skipped] = []  # the packaging is not checked: a file that cannot be read declares nothing
    for path in packaging:
        real = os.path.realpath(os.path.join(root, path))
        if not real.startswith(real_root.rstrip(os.sep) + os.sep):
            continue  # through a symlinked directory to outside the repository
        data = read_source(SourceFile(path, root, "packaging"), ignored)
        if data is not None:
            files.append((path, data))
    table = console_scripts(files)
    directories = [posixpath.dirname(path) for path in packaging]
    digest = hashlib.sha256(repr((sorted(table.items()), sorted(set(directories)))).encode()).hexdigest()
    resolved = root.resolve()
    return EngineContext(root=resolved, consoles=Consoles.of(table), package_roots=package_roots(directories),
                         consoles_digest=digest, composer=Composer(), stored=StoredConfigs(resolved),
                         listed=tuple(listed), rules=tuple(rules), focus=focus)


def repository_context(root: Path) -> EngineContext:
    """The context of `root` alone (its packaging listed here), for reading a few of its files outside a scan."""
    from bot.discover import sources

    packaging: list[str] = []
    listed = list(sources(root, [], packaging=packaging))
    return scan_context(root, listed, packaging)
