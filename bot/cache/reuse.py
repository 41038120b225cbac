"""Which files of a scan can take their result from the cache, and recording the ones checked now.

See bot.cache.store for what a result depends on. A cached result with a change is used only
when the caller allows it (dry runs): a scan that writes or publishes checks those files again,
so nothing is ever written from cached edits.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from bot.cache.content_ids import ContentIds, blob_id, indexed_ids
from bot.cache.store import Entry, ResultCache, changed, decode_outcome, encode_outcome
from bot.discover import SourceFile, is_git_worktree
from bot.lang.kinds import PYTHON, YAML
from bot.model import Outcome

LAYOUT = "\0config-layout"  # a YAML result depends on every YAML and Python file (Hydra packages)


class ScanReuse:
    def __init__(self, cache: ResultCache, root: Path, files: list[SourceFile], *, reuse_changes: bool,
                 layout_extra: list[str] | None = None, layout_files: list[SourceFile] | None = None) -> None:
        """`layout_files`: every file of the repository (the YAML packages come from all of them), when
        `files` is a part; `layout_extra`: config files they were read from that git ignores."""
        self.cache = cache
        self.layout_extra = layout_extra or []
        self.layout_files = files if layout_files is None else layout_files
        self.ids = ContentIds(root, indexed_ids(root) if is_git_worktree(root) else {})
        self.files = files
        self.reuse_changes = reuse_changes
        self._layout: str | None = None
        self._hits: dict[str, Outcome] = {}

    def dep_id(self, path: str) -> str:
        return self.layout() if path == LAYOUT else self.ids.of(path)

    def layout(self) -> str:
        if self._layout is None:
            digest = hashlib.sha256()
            for source in self.layout_files:
                if source.kind in (YAML, PYTHON):
                    digest.update(f"{source.path}\0{self.ids.of(source.path)}\0".encode("utf-8", "surrogateescape"))
            for path in self.layout_extra:
                digest.update(f"extra\0{path}\0{self.ids.of(path)}\0".encode("utf-8", "surrogateescape"))
            self._layout = digest.hexdigest()
        return self._layout

    def to_check(self) -> list[SourceFile]:
        """The files without a usable cached result, in order; the others are held for `hit`."""
        todo = []
        for source in self.files:
            outcome = self._cached(source)
            if outcome is None:
                todo.append(source)
            else:
                self._hits[source.path] = outcome
        return todo

    def _cached(self, source: SourceFile) -> Outcome | None:
        content = self.ids.of(source.path)
        entry = self.cache.lookup(source.path, content, source.size, self.dep_id) if content else None
        if entry is None:
            return None
        data = entry.outcome
        current = None
        try:
            if changed(data):
                if not self.reuse_changes:
                    return None
                current = self.ids.read(source.path)
                if current is None or blob_id(current) != content:
                    return None  # edits are replayed only on the very bytes they were made for
            outcome = decode_outcome(source.path, data, current)
        except (KeyError, TypeError, ValueError):
            return None  # an entry this version cannot read is checked again
        if outcome.result is not None:
            outcome.result.reads = tuple(sorted(path for path in entry.deps if path != LAYOUT))
        return outcome

    def hit(self, path: str) -> Outcome | None:
        return self._hits.get(path)

    @property
    def reused(self) -> int:
        return len(self._hits)

    def record(self, source: SourceFile, outcome: Outcome) -> None:
        content = self.ids.of(source.path)
        if not content or outcome.error is not None:  # a failure is tried again next time
            return
        deps: dict[str, str] = {}
        if outcome.result is not None:
            for path in outcome.result.reads:
                deps[path] = self.ids.of(path)
            if source.kind == YAML:
                deps[LAYOUT] = self.layout()
        encoded = encode_outcome(outcome, with_patch=self.reuse_changes)
        self.cache.put(source.path, Entry(content, source.size, encoded, deps))

    def finish(self, *, complete: bool) -> None:
        """Save the store; after a scan of every file, forget files that are gone."""
        if complete:
            self.cache.keep_only({s.path for s in self.files})
        self.cache.save()
