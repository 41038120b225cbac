"""The repository's packaging, read before a scan, listing or compose-check: its console scripts are
launches (bot.lang.shell.launchers), and a package of a monorepo lives beside its own packaging file."""

from __future__ import annotations

import hashlib
import os
import posixpath
from pathlib import Path

from bot.discover import SourceFile, read_source
from bot.hydra.entry import set_package_roots
from bot.lang.consoles import console_scripts
from bot.lang.shell.launchers import set_console_scripts
from bot.model import Skipped


def use_consoles(root: Path, packaging: list[str]) -> str:
    """Read the packaging files (bot.lang.consoles) and make their console scripts launches.

    Returns a digest of the table: every result of the scan depends on it (bot.cache.reuse).
    """
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
    set_console_scripts(table)
    roots = [posixpath.dirname(path) for path in packaging]
    set_package_roots(roots)
    return hashlib.sha256(repr((sorted(table.items()), sorted(set(roots)))).encode()).hexdigest()
