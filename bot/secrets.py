"""Secrets the process holds, and their removal from anything it prints or sends."""

from __future__ import annotations

import re

_SECRETS: set[str] = set()
_MASK = "***"


def register(secret: str | None) -> None:
    """Remember a secret (a token, a private key) so that `redact` removes it everywhere."""
    if secret and len(secret) >= 4:
        _SECRETS.add(secret)
        for line in secret.splitlines():
            if len(line.strip()) >= 16:
                _SECRETS.add(line.strip())


def redact(text: str) -> str:
    for secret in sorted(_SECRETS, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, _MASK)
    # URLs with credentials never leave the process either
    return re.sub(r"(https?://)[^/\s:@]+(?::[^/\s@]*)?@", r"\1***@", text)
