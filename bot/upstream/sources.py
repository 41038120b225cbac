"""The files of a commit that infer reads, bounded in size as the scan bounds its own (bot.discover).

libcst holds some 300 bytes of memory per byte it parses, and the stdlib's tree a good part of
that: a 7.8 MB file of asserts took a minute and 2.2 GB, a 13 MB dict 7 GB. A file over the
bound is not read (its size, from git's object header, says so before any byte is), and the reason
is said where infer reports what it did not understand.
"""

from __future__ import annotations

from typing import Any

MAX_BYTES = 1024 * 1024  # Python and YAML read whole by infer; verl's largest source file is 100 KB


def too_large(blob: Any) -> str | None:
    """Why the blob is not read (it is over the bound), or None."""
    size = int(blob.size)
    if size > MAX_BYTES:
        return f"larger than {MAX_BYTES // (1024 * 1024)} MB ({size} bytes): not read"
    return None


def text_of(blob: Any) -> str:
    """A blob's text (not valid UTF-8: replaced), for a blob `too_large` let through."""
    return bytes(blob.data_stream.read()).decode("utf-8", "replace")
