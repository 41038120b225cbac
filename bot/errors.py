"""The one error type whose message is meant for the user: printed as one line, exit code 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or configuration. The message names the file, the place and what was expected."""

    exit_code = 2

    def __str__(self) -> str:
        return " ".join(str(self.args[0]).split()) if self.args else "error"
