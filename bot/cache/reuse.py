"""Earlier results as the scan's memo: which files need checking now, and recording the ones checked.

The scan knows nothing of this store; it is handed a memo (bot.engine.scan.Memo). What a result
depends on is what its front end declares: the file's own bytes, the other files its reading
named (Reading.reads) and, for kinds registered with whole-repository inputs (bot.lang), every
file of those kinds. A cached result with a change is used only when the caller allows it (dry
runs): a scan that writes or publishes checks those files again, so nothing is ever written from
cached edits.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from bot.cache.content_ids import ContentIds, blob_id, indexed_ids
from bot.cache.store import Entry, ResultCache, changed, decode_outcome, encode_outcome
from bot.discover import SourceFile
from bot.gitfiles import is_git_worktree
from bot.lang import callee_kinds, composed_inputs, whole_repository_inputs
from bot.lang.focus import GLOB
from bot.model import CacheStats, Outcome

COMPOSED = composed_inputs()  # a result Hydra judged reads every config, and the apps naming them
# whether a file without a rule's token was parsed rests on which scripts hold one (bot.lang.focus)
CALLEES = callee_kinds()
_LAYOUT = "\0layout:"  # a dependency on every file of some kinds: "\0layout:python,yaml"
_CONSOLES = "\0consoles"  # of every result: which commands are launches rests on the console scripts


class CachedResults:
    """One scan's use of a ResultCache; `plan` first, then `hit`/`record` per file, then `finish`."""

    def __init__(self, cache: ResultCache, *, reuse_changes: bool) -> None:
        self.cache = cache
        self.reuse_changes = reuse_changes
        self.files: list[SourceFile] = []
        self._listed: list[SourceFile] = []
        self._extra: list[str] = []
        self._ids: ContentIds | None = None
        self._layouts: dict[str, str] = {}
        self._hits: dict[str, Outcome] = {}
        self._consoles = ""

    def plan(self, root: Path, files: list[SourceFile], listed: list[SourceFile],
             extra_reads: list[str], consoles: str = "") -> list[SourceFile]:
        """The files of `files` without a usable cached result, in order; the others are held for `hit`.

        `listed`: every file of the repository (whole-repository inputs come from all of them);
        `extra_reads`: files the layout was read from that git does not list (ignored configs);
        `consoles`: a digest of the repository's console scripts, which decide what is a launch.
        """
        self.files, self._listed, self._extra = files, listed, extra_reads
        self._consoles = consoles
        self._ids = ContentIds(root, indexed_ids(root) if is_git_worktree(root) else {})
        todo = []
        for source in files:
            outcome = self._cached(source)
            if outcome is None:
                todo.append(source)
            else:
                self._hits[source.path] = outcome
        return todo

    def hit(self, path: str) -> Outcome | None:
        return self._hits.get(path)

    def record(self, source: SourceFile, outcome: Outcome) -> None:
        content = self._id(source.path)
        if not content or outcome.error is not None or GLOB in outcome.looked_up:  # tried again next time:
            return  # a failure, and a file read or not by what a glob matched on disk
        deps: dict[str, str] = {path: self._id(path) for path in outcome.looked_up}  # scripts absent or ignored
        deps[_CONSOLES] = self._consoles
        kinds = CALLEES if outcome.by_callees else frozenset()
        if outcome.result is not None:
            for path in outcome.result.reads:
                deps[path] = self._id(path)
            kinds |= whole_repository_inputs(source.kind) | (COMPOSED if outcome.result.composed else frozenset())
        if kinds:
            key = _LAYOUT + ",".join(sorted(kinds))
            deps[key] = self._dep_id(key)
        encoded = encode_outcome(outcome, with_patch=self.reuse_changes)
        self.cache.put(source.path, Entry(content, source.size, encoded, deps))

    def finish(self, *, complete: bool) -> CacheStats:
        """Save the store (after a scan of every file, without the files that are gone)."""
        if complete:
            self.cache.keep_only({s.path for s in self.files})
        self.cache.save()
        return CacheStats(len(self._hits), len(self.files) - len(self._hits))

    def _id(self, path: str) -> str:
        assert self._ids is not None, "plan() comes first"
        return self._ids.of(path)

    def _dep_id(self, dep: str) -> str:
        if dep == _CONSOLES:
            return self._consoles
        if not dep.startswith(_LAYOUT):
            return self._id(dep)
        if dep not in self._layouts:
            kinds = set(dep[len(_LAYOUT):].split(","))
            digest = hashlib.sha256()
            for source in self._listed:
                if source.kind in kinds:
                    digest.update(f"{source.path}\0{self._id(source.path)}\0".encode("utf-8", "surrogateescape"))
            for path in self._extra:
                digest.update(f"extra\0{path}\0{self._id(path)}\0".encode("utf-8", "surrogateescape"))
            self._layouts[dep] = digest.hexdigest()
        return self._layouts[dep]

    def _cached(self, source: SourceFile) -> Outcome | None:
        content = self._id(source.path)
        entry = self.cache.lookup(source.path, content, source.size, self._dep_id) if content else None
        if entry is None:
            return None
        data = entry.outcome
        current = None
        try:
            if changed(data):
                if not self.reuse_changes:
                    return None
                assert self._ids is not None
                current = self._ids.read(source.path)
                if current is None or blob_id(current) != content:
                    return None  # edits are replayed only on the very bytes they were made for
            outcome = decode_outcome(source.path, data, current)
        except (KeyError, TypeError, ValueError):
            return None  # an entry this version cannot read is checked again
        if outcome.result is not None:
            outcome.result.reads = tuple(sorted(path for path in entry.deps if not path.startswith("\0")))
        return outcome
