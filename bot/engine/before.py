"""The failures with the config before a change, found for a file when a scan asks about it (bot.engine.drift).

What a config change broke is what fails now and did not before: the check asks only about the files in which
something fails now, which after most changes are few or none. So the tree at the commit before the change is
exported, listed and read only when the first such file is asked about, and only that file's launches are
composed there (the script as it was, one added since laid over the old tree, as the whole check before
the change composed it): the same answer as composing every file of it, for the files that matter.

`begin` exports it at once instead, in a forked process (bot.engine.ahead) while the scan goes on: one tree for
the scan's process and every worker forked from it, each of which lists and reads it when a file fails there.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bot import scratch
from bot.errors import UserError

if TYPE_CHECKING:
    from bot.compose.checker import Key
    from bot.discover import SourceFile
    from bot.engine.ahead import Ahead
    from bot.engine.changed import Differences
    from bot.engine.checker import Setup


class FailingBefore:
    """The keys (path, key, value) of the overrides that failed with the config at `since`; `key in` it composes
    the path's launches in the tree at `since` the first time the path is asked about."""

    def __init__(self, root: Path, since: str, seconds: float | None, differences: Differences | None = None) -> None:
        self.root, self.since, self.seconds, self.differences = root, since, seconds, differences
        self._by_path: dict[str, frozenset[Key]] = {}
        self._made_in = os.getpid()
        self._own: tempfile.TemporaryDirectory[str] | None = None  # where this process exported it itself
        self._old: tuple[Setup, dict[str, SourceFile]] | None = None
        self._ahead: Ahead | None = None  # the tree being exported (begin), shared with the workers

    def begin(self) -> None:
        """The tree before the change exported from now on, in a forked process, for this process and every
        worker forked from it after this (asked or not: most of the export is git and the file system's work,
        done while the scan reads the files). Call it before forking the workers; `close` removes it."""
        from bot.engine.ahead import Ahead

        if self._ahead is not None:
            return
        root, since, differences = self.root, self.since, self.differences
        self._ahead = Ahead(lambda tree: export_before(root, since, tree, differences), "bot-drift-",
                            scratch.checkout_size(root))

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or not key or not isinstance(key[0], str):
            return False
        path = key[0]
        if path not in self._by_path:
            self._by_path[path] = self._failing(path)
        return key in self._by_path[path]

    @property
    def exported(self) -> bool:
        """Whether a file failing now had the tree before the change exported (and not yet removed)."""
        return self._old is not None

    @property
    def begun(self) -> bool:
        """Whether the tree is being exported ahead (begin), for every process that asks."""
        return self._ahead is not None

    @property
    def tree(self) -> Path | None:
        """The tree before the change this process reads failures from, kept for the scan: the one begun, or
        its own export (None: none asked yet, or a worker's own, removed once read)."""
        return self._old[0].context.root if self._old is not None else None

    def close(self) -> None:
        """The exported tree removed (it is removed at exit too); in a worker, nothing (the tree is its caller's)."""
        if os.getpid() != self._made_in:
            return
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None
        if self._own is not None:
            self._own.cleanup()
        self._own, self._old = None, None

    def _failing(self, path: str) -> frozenset[Key]:
        shared = self._ahead.wait() if self._ahead is not None else None
        if shared is None and os.getpid() != self._made_in:  # a forked worker: its own tree, removed once read
            with scratch.temporary_directory("bot-drift-", scratch.checkout_size(self.root)) as own:
                setup, listed = self._read(Path(own) / "tree")
                return _keys(setup, listed, path)
        if self._old is None:
            if shared is not None:  # made once for every process, read by each that asks
                self._old = self._listed(shared)
            else:
                self._own = scratch.temporary_directory("bot-drift-", scratch.checkout_size(self.root))
                self._old = self._read(Path(self._own.name) / "tree")
        setup, listed = self._old
        return _keys(setup, listed, path)

    def _read(self, old: Path) -> tuple[Setup, dict[str, SourceFile]]:
        """The tree at `since` exported at `old`, listed as compose-check lists it, and its scan setup."""
        export_before(self.root, self.since, old, self.differences)
        return self._listed(old)

    def _listed(self, old: Path) -> tuple[Setup, dict[str, SourceFile]]:
        """The exported tree at `old`, listed as compose-check lists it, and its scan setup."""
        from bot.compose.checker import ComposeOptions
        from bot.discover import sources
        from bot.engine.checker import Composing, Setup
        from bot.engine.context import scan_context
        from bot.engine.silence import default_baseline
        from bot.lang import shell_family

        packaging: list[str] = []
        listed = list(sources(old, [], shell_family(), packaging=packaging))
        context = scan_context(old, listed, packaging)
        setup = Setup(context, None, (), self.seconds, compose=Composing(ComposeOptions(), default_baseline(old)))
        return setup, {s.path: s for s in listed}


def _keys(setup: Setup, listed: dict[str, SourceFile], path: str) -> frozenset[Key]:
    """The failing overrides of one file of the old tree (none when it has no such file)."""
    from bot.engine.checker import compose_one

    source = listed.get(path)
    if source is None:
        return frozenset()
    result = compose_one(setup, source).result
    if result is None:
        return frozenset()
    return frozenset((f.path, f.key, f.value) for f in result.findings + result.silenced)


def export_before(root: Path, since: str, old: Path, differences: Differences | None = None) -> None:
    """The tree of commit `since` written at `old`, each script added since laid over it as it is now. With
    `differences` (what differs between `since` and the working tree), the files that do not differ are linked
    from the working tree, not written again."""
    from bot.discover import shell_sources

    if differences is None or not linked(root, differences, old):
        export(root, since, old)
    for source in shell_sources(root, []):
        target = old / source.path
        if target.exists() or target.is_symlink():
            continue  # the script as it was at SHA
        target.parent.mkdir(parents=True, exist_ok=True)
        if not _place(source.absolute, target):
            shutil.copyfile(source.absolute, target)  # what could not be copied says why


def export(root: Path, since: str, into: Path) -> None:
    """The files of commit `since` (a name git resolves, never an option) written under `into`."""
    import git

    repo = git.Repo(root)
    try:
        commit = repo.commit(since)
    except (git.BadName, ValueError):
        raise UserError(f"--since {since}: no such commit in {root}") from None
    into.mkdir(parents=True)
    archive = into.parent / "tree.tar"
    with archive.open("wb") as handle:
        repo.archive(handle, treeish=commit.hexsha, format="tar")
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter=_inside)
    archive.unlink()


def linked(root: Path, differences: Differences, into: Path) -> bool:
    """The files of commit `differences.commit` under `into`, as `export` writes them: those the working tree holds as
    they were linked from it (or copied, across file systems), the others written from git. False, with nothing
    written, when git's attributes may make the archive differ from the files (export-ignore, export-subst)."""
    import git

    repo = git.Repo(root)
    listing = repo.git.ls_tree("-r", "-z", "--full-tree", differences.commit)
    entries = [line.partition("\t") for line in listing.split("\0") if line]
    if any(path.rpartition("/")[2] == ".gitattributes" for _, _, path in entries) or \
            Path(repo.git_dir, "info", "attributes").exists() or _unwatched(repo):
        return False
    into.mkdir(parents=True)
    made: set[str] = {""}
    differ = differences.paths
    for head, _, path in entries:
        mode, kind, sha = head.split()
        directory = path.rpartition("/")[0]
        if directory not in made:
            (into / directory).mkdir(parents=True, exist_ok=True)
            made.add(directory)
        target = into / path
        if kind == "commit":  # a submodule: an empty directory, as in the archive
            target.mkdir(exist_ok=True)
        elif mode == "120000":
            text = os.readlink(root / path) if path not in differ else repo.odb.stream(bytes.fromhex(sha)).read()
            link = os.fsdecode(text)
            if _link_inside(path, link):
                os.symlink(link, target)
        elif path in differ or not _place(root / path, target):
            target.write_bytes(repo.odb.stream(bytes.fromhex(sha)).read())
    return True


def _unwatched(repo: object) -> bool:
    """Whether git is told to take some files of the working tree as they are in the index without looking
    (assume-unchanged, skip-worktree: a sparse checkout): then what differs is not all git says."""
    import git

    assert isinstance(repo, git.Repo)
    return any(line[:1].islower() or line[:2] == "S " for line in repo.git.ls_files("-v", "-z").split("\0"))


def _place(source: Path, target: Path) -> bool:
    """The file `source` (a link followed) at `target`: a hard link (a file not written again), else a copy;
    False when neither could be made."""
    try:
        os.link(source, target)
    except OSError:
        try:
            shutil.copyfile(source, target)
        except OSError:
            return False
    return True


def _link_inside(path: str, link: str) -> bool:
    """Whether a symbolic link at `path` leads inside the tree (as tarfile's `data` filter lets one through)."""
    if not link or os.path.isabs(link):
        return False
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), link))
    return resolved != ".." and not resolved.startswith("../")


def _inside(member: tarfile.TarInfo, into: str) -> tarfile.TarInfo | None:
    """tarfile's `data` filter (nothing written outside `into`, no device files), a member it refuses (a link
    to an absolute path or out of the tree) left out: the exported tree holds the commit's own files, and what
    its links lead to outside it is absent there, as in the working tree (bot.confined)."""
    try:
        return tarfile.data_filter(member, into)
    except tarfile.FilterError:
        return None
