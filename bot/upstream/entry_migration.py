"""A format 2 migration of the entry points an upstream change moved (bot.upstream.entry_moves).

Each move is verified by git: the old module is gone after the change (or left as a shim) and the new one is an
entry point. It is of high confidence when one more source agrees: the change's own launch edits, a shim, or the
moved entry points unchanged but for their own module path (what runs at the new place is what ran at the old).
The high moves make one rule (`entrypoints:`), the others a suggested one; ids derive from the moves.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from bot.upstream.entry_moves import EntryMove, entry_moves

UNCHANGED = 0.95  # the old text, its module path written anew, against the new text


def unchanged(history: Path, before: str, after: str, move: EntryMove) -> bool:
    """Whether every moved file reads as it did, but for the module path and folder it moved from."""
    import git

    old_dir, new_dir = move.old.replace(".", "/"), move.new.replace(".", "/")
    with git.Repo(history) as repo:
        old_tree, new_tree = repo.commit(before).tree, repo.commit(after).tree
        for old_path, new_path in move.files:
            try:
                old_text = old_tree[old_path].data_stream.read().decode("utf-8", "replace")
                new_text = new_tree[new_path].data_stream.read().decode("utf-8", "replace")
            except KeyError:
                return False
            written = old_text.replace(move.old, move.new).replace(old_dir, new_dir)
            if written != new_text and difflib.SequenceMatcher(None, written, new_text).ratio() < UNCHANGED:
                return False
    return True


def entry_migration(history: Path, before: str, after: str, upstream: str = ""
                    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(the high-confidence moves as one rule, the others as a suggested rule), either None when empty."""
    high: list[tuple[EntryMove, list[str]]] = []
    low: list[tuple[EntryMove, list[str]]] = []
    for move in entry_moves(history, before, after):
        sources = list(move.agreeing)
        if unchanged(history, before, after, move):
            sources.append("the moved entry points are unchanged but for their module path")
        (high if sources else low).append((move, sources))
    return _rule(high, upstream, True), _rule(low, upstream, False)


def _rule(moves: list[tuple[EntryMove, list[str]]], upstream: str, confident: bool) -> dict[str, Any] | None:
    if not moves:
        return None
    mapping = {move.old: move.new for move, _ in moves}
    digest = hashlib.sha1(json.dumps(mapping, sort_keys=True).encode()).hexdigest()[:8]
    slug = re.sub(r"[^a-z0-9]+", "-", moves[0][0].old.lower()).strip("-")
    lines = [f"- `{move.old}` -> `{move.new}` (git: {', '.join(f'{a} -> {b}' for a, b in move.files[:3])}"
             + (", ..." if len(move.files) > 3 else "") + ")" + (f"; {'; '.join(sources)}" if sources else "")
             for move, sources in moves]
    first = moves[0][0]
    more = f" (and {len(moves) - 1} more)" if len(moves) > 1 else ""
    return {
        "format": 2,
        "id": f"inferred-entry-{slug}-{digest}",
        "title": f"{first.old} moved to {first.new}{more}",
        "description": ("Entry points the change moved (" + ("verified by git, and another source agrees on each"
                        if confident else "verified by git, no second source") + "):\n" + "\n".join(lines)),
        **({"upstream": upstream} if upstream else {}),
        "severity": "error",
        "migration": {"entrypoints": mapping},
    }
