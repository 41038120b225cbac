"""The entry point: the `bot` console script and `python -m bot`.

Its first step takes the repositories the command line names off the import path (bot.isolate_path);
only then is the rest of the bot imported. Like bot.isolate_path, it imports nothing Python has not
loaded before it runs (no `from __future__`).
"""

import sys

from bot.isolate_path import isolate


def main() -> int:
    isolate(sys.argv[1:])
    from bot.cli import main as run

    return run()


if __name__ == "__main__":
    sys.exit(main())
