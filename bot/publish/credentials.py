"""Where the GitHub credentials come from: a token, or a GitHub App installation.

Read at call time, never at import: BOT_GITHUB_TOKEN, then GITHUB_TOKEN; or BOT_GITHUB_APP_ID with
BOT_GITHUB_APP_PRIVATE_KEY (PEM text) or BOT_GITHUB_APP_PRIVATE_KEY_FILE. Every secret is registered
with bot.secrets so that no output shows it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.errors import UserError
from bot.secrets import register

DEFAULT_API = "https://api.github.com"


@dataclass(frozen=True)
class Credentials:
    kind: str  # token | app
    token: str | None = None
    token_source: str = ""
    app_id: str | None = None
    private_key: str | None = None

    def __repr__(self) -> str:  # never show the secret, even in a traceback's locals
        return f"Credentials(kind={self.kind!r}, source={self.token_source or self.app_id!r})"

    @property
    def is_actions_token(self) -> bool:
        return self.token_source == "GITHUB_TOKEN" and bool(os.environ.get("GITHUB_ACTIONS"))


def api_url(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    return (env.get("GITHUB_API_URL") or DEFAULT_API).rstrip("/")


def from_environment(env: Mapping[str, str] | None = None) -> Credentials | None:
    env = os.environ if env is None else env
    app_id = env.get("BOT_GITHUB_APP_ID")
    if app_id:
        key = env.get("BOT_GITHUB_APP_PRIVATE_KEY")
        key_file = env.get("BOT_GITHUB_APP_PRIVATE_KEY_FILE")
        if not key and key_file:
            try:
                key = Path(key_file).read_text(encoding="utf-8")
            except OSError as exc:
                raise UserError(f"BOT_GITHUB_APP_PRIVATE_KEY_FILE {key_file}: cannot read: {exc.strerror}") from None
        if not key:
            raise UserError("BOT_GITHUB_APP_ID is set: expected BOT_GITHUB_APP_PRIVATE_KEY or "
                            "BOT_GITHUB_APP_PRIVATE_KEY_FILE as well")
        register(key)
        return Credentials(kind="app", app_id=app_id, private_key=key)
    for name in ("BOT_GITHUB_TOKEN", "GITHUB_TOKEN"):
        token = env.get(name)
        if token:
            register(token)
            return Credentials(kind="token", token=token, token_source=name)
    return None


def warn_actions_token() -> None:
    credentials = from_environment()
    if credentials is not None and credentials.is_actions_token:
        print("bot: warning: the token is the Actions GITHUB_TOKEN: pull requests it opens do not trigger the "
              "repository's own checks; use a GitHub App or a personal token (BOT_GITHUB_TOKEN)", file=sys.stderr)
