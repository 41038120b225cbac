"""Hydra's messages in the repository's terms: its search path and file names name the machine's
directories (`file:///home/.../repo/conf`); a report says `conf`, whatever the working directory."""

from __future__ import annotations

from pathlib import Path


def in_repository_terms(text: str, root: Path) -> str:
    """`text` with the repository's absolute directory (plain, resolved, or as a `file://` URL) left out, so
    that the paths below it read relative to the repository, and the directory itself reads `.`."""
    for base in dict.fromkeys((str(root), str(root.resolve()))):
        base = base.rstrip("/")
        text = text.replace(f"file://{base}/", "").replace(f"{base}/", "")
        text = text.replace(f"file://{base}", ".").replace(base, ".")
    return text
