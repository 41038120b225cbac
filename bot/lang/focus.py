"""Which parts of a file can hold anything for the rules, told by their bytes before any parse.

A text is worth reading when it holds one of the enabled rules' literal tokens. Shell without them
can still matter in one way only: it runs a repository script whose overrides read a value from the
environment, and hands that value over (`USE_X=False bash run_x.sh`). The callee then holds the rule's
key (a rule key is literal text in the override that sets it, or in the value the callee assigns).
The shell runs a repository script only through a word ending in `.sh`, resolved against the
repository root or the caller's directory (bot.lang.shell.calls.resolve). So such a caller is read
unless every such word it writes is a plain path to a listed script that holds no token: a word
built from an expansion, quoted in a way this scan does not follow, or naming a script the listing
lacks (an ignored or generated one) gets it read. Everything else is quiet without a parse.

A token written `TOKEN=LITERAL`, ending the shell word there, counts as absent when the rules say that
value is fine for every key it can end (`Settle`, from bot.rules.settled): after a migration most
occurrences read so, and a file holding only such occurrences can be no finding.
"""

from __future__ import annotations

import glob
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from bot.lang.kinds import SHELL_FAMILY

# `.sh` ending a word, its letters possibly quoted or escaped one by one (`."sh"`, `.s\h`)
_DOT_SH = re.compile(rb"\.[\"'\\]*s[\"'\\]*h[\"']*(?![\w.\-])")
_WORD_START = frozenset(b" \t\r\n;|&<>(`=")
_EXPANDED = frozenset(b"$`}){*?[")  # expansions, globs: the name is made at run time
_QUOTES = b"\"'\\"
_GLOB = frozenset(b"*?[")
# what may follow a literal value so that the word ends with it: a blank or operator, a line continuation
# before a blank, or a quote closing the string followed by one of those (or the end of the text)
_WORD_END = rb"(?:[ \t\n;|&)]|\\\n[ \t]|\Z)"
_LITERAL = rb"=([A-Za-z0-9_.\-]+)(?=[\"']?" + _WORD_END + rb")"


class Settle(Protocol):
    """Which `TOKEN=LITERAL` texts no enabled rule can report (bot.rules.settled.SettledLiterals)."""

    tokens: frozenset[bytes]

    def settled(self, token: bytes, literal: str) -> bool: ...


@dataclass(frozen=True)
class Scripts:
    """The listed `.sh` scripts, and those of them that hold a token (or could not be read).

    `root`: the repository's directory, where a script the listing lacks (an ignored one) is looked
    for; None: any such script may exist.
    """

    listed: frozenset[str]
    hot: frozenset[str]
    root: str | None = None
    inputs: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False, compare=False)

    def may_be_hot(self, path: str, caller: bytes | None = None) -> bool:
        """Whether the repository path may name a script that holds a token (for the `caller` text: one
        whose overrides read a variable the caller names; the shell analysis takes a caller's values
        only from assignments it writes)."""
        if path in self.hot:
            told = self.inputs.get(path)
            return caller is None or told is None or any(name.encode() in caller for name in told)
        if path in self.listed or path.startswith("../") or path == "..":
            return False
        return self.root is None or os.path.isfile(os.path.join(self.root, *path.split("/")))

    def may_name_hot(self, word: bytes) -> bool:
        """Whether a word built at run time (`$DIR/train.sh`) may name a script that holds a token: only
        when its file name is built too, or is the name of one (or of no listed script: an ignored one)."""
        name = word.rpartition(b"/")[2]
        if any(byte in _EXPANDED for byte in name):
            return True
        text = name.translate(None, _QUOTES).decode("utf-8", "surrogateescape")
        return text in self._names(self.hot) or text not in self._names(self.listed)

    def matches(self, pattern: str) -> list[str]:
        """The repository paths a glob matches (in its directory on disk, as the shell expands it)."""
        assert self.root is not None
        if pattern.startswith("../") or pattern == "..":
            return []
        found = glob.glob(pattern, root_dir=self.root)
        return [posixpath.normpath(path.replace(os.sep, "/")) for path in found]

    @staticmethod
    @lru_cache(maxsize=8)
    def _names(paths: frozenset[str]) -> frozenset[str]:
        return frozenset(posixpath.basename(path) for path in paths)


@dataclass(frozen=True)
class Focus:
    """The rules' literal tokens, and the listed scripts (None: not known yet)."""

    tokens: tuple[bytes, ...]
    scripts: Scripts | None = None
    settle: Settle | None = None

    def holds(self, text: bytes) -> bool:
        """Whether the text holds a token (not settled): a callee's overrides can matter only then."""
        return any(self._holds(token, text) for token in self.tokens)

    def mentions(self, text: bytes) -> bool:
        """Whether the text holds a token, settled or not."""
        return any(token in text for token in self.tokens)

    def unsure(self, shell: bytes) -> bool:
        """Whether shell text whose tokens are all settled is read all the same: where it does not parse,
        what ends a word is not sure (and it is reported partly parsed, as any text with a token)."""
        from bot.lang.shell.parse import parse_tree

        return self.mentions(shell) and parse_tree(shell).root_node.has_error

    def _holds(self, token: bytes, text: bytes) -> bool:
        at = text.find(token)
        if at < 0:
            return False
        if self.settle is None or token not in self.settle.tokens:
            return True
        pattern = _settled_form(token)
        while at >= 0:
            match = pattern.match(text, at)
            if match is None or not self.settle.settled(token, match.group(1).decode("ascii")):
                return True
            at = text.find(token, at + 1)
        return False

    def wanted(self, text: bytes, path: str) -> bool:
        """Whether shell text of the file `path` holds a token or may run a script that does (any
        script while they are not known)."""
        if self.holds(text) or self.unsure(text):
            return True
        if not may_call(text):
            return False
        return self.scripts is None or may_run_hot(text, path, self.scripts)


@lru_cache(maxsize=64)
def _settled_form(token: bytes) -> re.Pattern[bytes]:
    return re.compile(re.escape(token) + _LITERAL)


def may_call(data: bytes) -> bool:
    """Whether shell text can run a repository script at all (the test that needs other files)."""
    return _DOT_SH.search(data) is not None


def may_call_script(kind: str, data: bytes) -> bool:
    """Whether a file of `kind` can run a repository script."""
    return kind in SHELL_FAMILY and may_call(data)


def may_run_hot(data: bytes, caller: str, scripts: Scripts, whole: bool = False) -> bool:
    """Whether shell text of the file `caller` may run a script that holds a token, or one it cannot tell.

    `whole`: the text is the caller's whole file (every value it can hand over is written in it), so a
    script it runs matters only when the caller names a variable the script reads.
    """
    for match in _DOT_SH.finditer(data):
        start = match.start()
        while start > 0 and data[start - 1] not in _WORD_START:
            start -= 1
        word = data[start : match.end()]
        if any(word.count(bytes([quote])) % 2 for quote in b"\"'"):
            return True  # a quote opened before a blank: the word began earlier than this scan sees
        run_time = {byte for byte in word if byte in _EXPANDED}
        if ord("[") in run_time and b"]" not in word[word.index(b"[") :]:
            run_time.discard(ord("["))  # `[` without its `]` is a letter (a doc's `[run.sh](...)`)
        written = word.translate(None, _QUOTES).decode("utf-8", "surrogateescape")
        if run_time - _GLOB:
            if scripts.may_name_hot(word):
                return True
            continue
        if posixpath.basename(written) == ".sh":
            if _stripped_suffix(data, start):
                continue
            return True  # a bare suffix (`EXT=.sh`): a name is put together with it somewhere
        if written.startswith(("/", "~")):
            continue  # a machine's path, never a repository script (resolve() takes none)
        beside = posixpath.join(posixpath.dirname(caller), written)
        paths = {posixpath.normpath(written), posixpath.normpath(beside)}
        if run_time:  # a glob: the scripts it matches where the shell looks
            if scripts.root is None:
                return True
            paths = {hit for path in paths for hit in scripts.matches(path)} or paths
        if any(scripts.may_be_hot(path, data if whole else None) for path in paths):
            return True
    return False


def _stripped_suffix(data: bytes, start: int) -> bool:
    """Whether the word at `start` is the suffix `basename` strips (`$(basename "$0" .sh)`): it names nothing."""
    before = data[data.rfind(b"\n", 0, start) + 1 : start]
    return re.match(rb"\s*basename\s", re.split(rb"[;|&(`]", before)[-1]) is not None


__all__ = ["Focus", "Scripts", "Settle", "may_call", "may_call_script", "may_run_hot"]
