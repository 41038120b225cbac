"""The command line's one error boundary around bot.commands (the parser and the dispatch).

Exit codes: 0 done; 1 findings remain (or a file could not be checked) and --check was given, or
a rule test failed; 2 usage or configuration error, printed as one line; 3 internal error, with a
crash log whose path is printed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bot.commands import dispatch
from bot.commands.output import EXIT_INTERNAL, crash_header
from bot.errors import UserError
from bot.secrets import redact


def _crash_log(exc: BaseException) -> str:
    import tempfile  # only when the bot itself fails
    import traceback

    from bot.safe_write import new_file

    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = redact(crash_header() + "\n") + redact(trace)
    return new_file(tempfile.gettempdir(), text.encode("utf-8", "surrogateescape"), "bot-crash-", ".log")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return dispatch(sys.argv[1:] if argv is None else list(argv))
    except UserError as exc:
        print(redact(f"bot: error: {exc}"), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("bot: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the one place that turns a crash into a log file
        path = _crash_log(exc)
        print(redact(f"bot: internal error: {type(exc).__name__}: {exc} (details in {path})"), file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
