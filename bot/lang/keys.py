"""Dotted override keys as the writers compare them when they choose where a new override goes."""

from __future__ import annotations


def shared_segments(key: str, other: str) -> int:
    """How many leading dotted segments two keys have in common (`a.b.c`, `a.b.d`: 2)."""
    common = 0
    for a, b in zip(key.split("."), other.split(".")):
        if a != b:
            break
        common += 1
    return common
