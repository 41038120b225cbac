"""Replaying the report of a dry run whose inputs have not changed at all.

The per-file cache (bot.scan_cache) still lists, looks up and renders every file. When nothing
that a dry run reads has changed since an identical earlier one, even that is wasted: the same
inputs give the same report, so the stored text is printed again (as build tools replay a task
whose inputs hash the same).

The inputs are the repository as git records it and the bot's own:
- HEAD, the whole index, git's checkout settings, and the lstat data of every file discovery
  lists (see tree_state), taken before the scan and again after it: a report is stored only when
  nothing changed while it was made;
- the bytes of files the results read that discovery does not list (a called script or an
  included config git ignores), recorded with the report and compared before it is replayed;
- scan_cache.fingerprint: this bot's source, its parsers' versions and every rule as loaded;
- the options that shape the output (label, format, colour, one-line JSON).

Only plain dry runs of a local git work tree are replayed: not --write, --files, --compose,
publishing, or rules that consult the composed Hydra config (it reads files outside discovery and
the environment). A store that is missing, damaged or unwritable is a normal run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bot.sources.discover import MAX_BYTES, SHEBANG_BYTES

FORMAT = 1
RACY_NS = 2_000_000_000  # files changed this recently get their bytes checked (timestamps have coarse ticks)
KEEP = 4  # runs remembered per repository: a few output formats side by side


@dataclass(frozen=True)
class Replay:
    text: str  # the rendered report, secrets removed
    remaining: bool  # findings that are not fixed remain (for --check)
    # files the results read that discovery may not list (a called script git ignores): path -> digest
    reads: dict[str, str] = field(default_factory=dict)


def _git_outputs(root: str, commands: list[list[str]]) -> list[bytes | None]:
    """Run git commands side by side in `root`; each one's stdout, or None where it failed."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}  # status must not refresh the user's index
    procs: list[subprocess.Popen[bytes] | None] = []
    for command in commands:
        try:
            procs.append(subprocess.Popen(["git", "-C", root, *command], stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=env))
        except OSError:
            procs.append(None)
    outputs: list[bytes | None] = []
    for proc in procs:
        if proc is None:
            outputs.append(None)
            continue
        out, _ = proc.communicate()
        outputs.append(out if proc.returncode == 0 else None)
    return outputs


def _file_digest(path: str) -> bytes:
    """What a listed path holds now: a file's content, a symlink's target, or a marker.

    A file too large for the bot to read (discovery skips it, naming its size) counts by its size
    and first bytes, so an untracked checkpoint is not hashed on every run.
    """
    try:
        if os.path.islink(path):
            return b"link\0" + os.fsencode(os.readlink(path))
        if not os.path.isfile(path):
            return b"absent" if not os.path.exists(path) else b"not a file"
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_BYTES:
                return b"large %d\0" % size + handle.read(SHEBANG_BYTES)
            return b"file\0" + hashlib.sha256(handle.read()).digest()
    except OSError as exc:
        return f"unreadable {exc.errno}".encode()


@dataclass(frozen=True)
class TreeState:
    digest: str
    racy: list[str]  # files changed too recently for their stat data to vouch for their bytes


def tree_state(root: Path) -> TreeState | None:
    """A digest of everything in `root`'s git work tree a scan can read; None outside git.

    HEAD, the index (paths, modes, blob ids, stages, assume-unchanged and skip-worktree tags),
    git's checkout settings, and the lstat data (size, mtime, ctime, inode, mode) of every file
    discovery lists. Stat data rather than `git status`: git may call a rewritten file clean
    (core.checkStat, core.trustctime, an end-of-line filter that maps new bytes to the same blob),
    while any write changes a file's ctime. A file changed less than RACY_NS before now could
    change again within the same timestamp tick without a new stamp: those are returned, for their
    bytes to be recorded with the report and compared before it is replayed (as git does with
    "racily clean" index entries).
    """
    location = str(root)
    started = time.time_ns()
    head, index, listing, settings = _git_outputs(location, [
        ["rev-parse", "-q", "--verify", "HEAD"],
        ["ls-files", "-s", "-v", "-z"],
        ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        ["config", "-z", "--get-regexp", r"^(core\.(autocrlf|eol|safecrlf)|filter\..*)$"],
    ])
    if index is None or listing is None:
        return None
    digest = hashlib.sha256(f"state {FORMAT}\0{os.path.realpath(root)}\0".encode("utf-8", "surrogateescape"))
    digest.update((head or b"no commit\n") + hashlib.sha256(index).digest() + (settings or b"") + b"\0")
    base = os.fsencode(location) + b"/"
    recent = started - RACY_NS
    racy: list[str] = []
    for raw in listing.split(b"\0"):
        if not raw:
            continue
        try:
            info = os.lstat(base + raw)
        except OSError:
            digest.update(raw + b"\0absent\0")
            continue
        digest.update(b"%s\0%d %d %d %d %d\0" % (raw, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino,
                                                  info.st_mode))
        if info.st_mtime_ns >= recent or info.st_ctime_ns >= recent:
            racy.append(os.fsdecode(raw))
    return TreeState(digest.hexdigest(), racy)


def read_digests(root: Path, paths: set[str]) -> dict[str, str]:
    """What each of these repository files holds now, as recorded beside a report."""
    return {path: hashlib.sha256(_file_digest(os.path.join(root, path))).hexdigest() for path in sorted(paths)}


def run_key(state: str, fingerprint: str, options: dict[str, object]) -> str:
    text = json.dumps({"state": state, "fingerprint": fingerprint, "options": options}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


class RunMemo:
    """The last few dry-run reports of one repository: one file per run key, the newest kept.

    A file is a JSON header line ({"format", "key", "remaining"}) and then the report text as is,
    so a replay reads one file and decodes nothing else.
    """

    def __init__(self, directory: Path, root: Path) -> None:
        scope = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:24]
        self.directory = directory / f"runs-{scope}"
        self.root = root

    def _path(self, key: str) -> Path:
        return self.directory / f"{key[:40]}.report"

    def get(self, key: str) -> Replay | None:
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        head, newline, body = data.partition(b"\n")
        try:
            header = json.loads(head)
            text = body.decode("utf-8", "surrogateescape")
        except ValueError:
            return None
        if (not newline or not isinstance(header, dict) or header.get("format") != FORMAT
                or header.get("key") != key or not isinstance(header.get("remaining"), bool)
                or not isinstance(header.get("reads"), dict)):
            return None  # damaged, or another version's: run again
        reads = header["reads"]
        if reads and read_digests(self.root, set(reads)) != reads:
            return None  # a file outside the git state it was keyed on has changed
        with contextlib.suppress(OSError):
            os.utime(self._path(key))  # recently replayed runs are the ones kept
        return Replay(text, header["remaining"], reads)

    def put(self, key: str, replay: Replay) -> None:
        """Remember a run; a store that cannot be written only makes the next run slower."""
        header = json.dumps({"format": FORMAT, "key": key, "remaining": replay.remaining, "reads": replay.reads})
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=".run-", dir=self.directory)
        except OSError:
            return
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(header.encode() + b"\n" + replay.text.encode("utf-8", "surrogateescape"))
            os.replace(temp, self._path(key))
        except OSError:
            Path(temp).unlink(missing_ok=True)
            return
        self._prune()

    def runs(self) -> list[Path]:
        """The stored runs, newest first."""
        try:
            found = [(p.stat().st_mtime_ns, p) for p in self.directory.glob("*.report")]
        except OSError:
            return []
        return [p for _, p in sorted(found, reverse=True)]

    def _prune(self) -> None:
        for stale in self.runs()[KEEP:]:
            stale.unlink(missing_ok=True)
