"""Which parts of a file can hold anything for the rules, told by their bytes before any parse.

A text is worth reading when it holds one of the enabled rules' literal tokens. Shell without them
can still matter in one way only: it runs a script whose overrides read a value from the environment,
and hands that value over (`USE_X=False bash run_x.sh`). The callee then holds the rule's key (a rule
key is literal text in the override that sets it, or in the value the callee assigns). So such a
caller is read unless every script it names is one the repository lists and that holds no token
(its name shared with none that does); a name built from a variable, or one the listing does not
have (an ignored or generated script), gets it read. Everything else is quiet without a parse.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.lang.kinds import SHELL, SHELL_FAMILY

_DOT_SH = re.compile(rb"\.sh\b")
_PART_END = frozenset(b" \t\r\n\f\v/")  # where the last path part of a word starts
_NAME_END = _PART_END | frozenset(b"\\'\"`=(){}[]$;|&<>,:")  # where a written script name starts
_BUILT = frozenset(b"$})")  # an expansion ends here: `run_$s.sh`, `${name}.sh`, `$(f).sh`
_GLOB = frozenset(b"*?")


@dataclass(frozen=True)
class Focus:
    """The rules' literal tokens, and the stems of the listed scripts that hold none (None: not known yet)."""

    tokens: tuple[bytes, ...]
    quiet_scripts: frozenset[bytes] | None = None

    def holds(self, text: bytes) -> bool:
        """Whether the text holds a token: a callee's overrides can matter only then."""
        return any(token in text for token in self.tokens)

    def wanted(self, text: bytes) -> bool:
        """Whether shell text holds a token or may run a script that does (any script while unknown)."""
        if self.holds(text):
            return True
        if b".sh" not in text:
            return False
        return self.quiet_scripts is None or may_run_other_than(text, self.quiet_scripts)


def may_call_script(kind: str, data: bytes) -> bool:
    """Whether a file of `kind` can run a repository script (the test that needs other files)."""
    return kind in SHELL_FAMILY and b".sh" in data


def script_stem(path: str, kind: str) -> bytes | None:
    """The name a caller writes to run this script (`run_x` of `dir/run_x.sh`); None if it cannot be run."""
    name = posixpath.basename(path)
    if kind != SHELL or not name.endswith(".sh"):
        return None
    return name[: -len(".sh")].encode("utf-8", "surrogateescape")


def quiet_stems(scripts: Iterable[tuple[str, str, bool]]) -> frozenset[bytes]:
    """Stems of the (path, kind, holds a token) scripts that hold none, less those a script that does shares."""
    quiet: set[bytes] = set()
    hot: set[bytes] = set()
    for path, kind, holds in scripts:
        stem = script_stem(path, kind)
        if stem is not None:
            (hot if holds else quiet).add(stem)
    return frozenset(quiet - hot)


def script_names(data: bytes) -> set[bytes] | None:
    """The stems of the scripts shell text names (`run_x` of `bash dir/run_x.sh`); None when it builds a
    script's name from a variable (a `$`, `}` or `)` in the last path part of a word ending in `.sh`).

    A bare `.sh` names no script, and a glob (`run_*.sh`) is not expanded into one.
    """
    names: set[bytes] = set()
    for match in _DOT_SH.finditer(data):
        end = start = match.start()
        while start > 0 and data[start - 1] not in _PART_END:
            start -= 1
        part = data[start:end]
        if any(byte in _BUILT for byte in part):
            return None
        name_start = end
        while name_start > start and data[name_start - 1] not in _NAME_END:
            name_start -= 1
        name = data[name_start:end]
        if name and not any(byte in _GLOB for byte in name):
            names.add(name)
    return names


def may_run_other_than(data: bytes, quiet: frozenset[bytes]) -> bool:
    """Whether shell text names a script not among `quiet`, or builds a script's name from a variable."""
    names = script_names(data)
    return names is None or not names <= quiet


__all__ = ["Focus", "may_call_script", "may_run_other_than", "quiet_stems", "script_names", "script_stem"]
