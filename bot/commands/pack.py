"""`bot pack build --upstream U --from A --to B --output DIR`: the rules an upgrade would infer from each upstream
commit A..B, kept as a rule pack (bot.upstream.pack_build) that `bot upgrade --pack DIR` runs instead of inferring.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.commands.output import EXIT_OK


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from bot.commands import Parser

    pack = commands.add_parser("pack", help="build a rule pack: the migrations inferred over an upstream's history")
    pack_commands = pack.add_subparsers(dest="pack_command", required=True, parser_class=Parser)
    build = pack_commands.add_parser(
        "build", help="infer the rules of each upstream commit FROM..TO into DIR",
        description="Walk the upstream's first-parent commits FROM..TO that can matter, infer each one's rules as "
                    "an upgrade step would (high confidence only), and write them into DIR: pack.yaml and one file "
                    "per rule. A pack already in DIR keeps its entries; only commits outside its range are read.")
    build.add_argument("--upstream", required=True, metavar="NAME|PATH|URL",
                       help="the upstream, named as the downstreams that will use the pack name it")
    build.add_argument("--from", dest="start", required=True, metavar="REF", help="the commit the range starts after")
    build.add_argument("--to", dest="end", required=True, metavar="REF", help="the range's last commit")
    build.add_argument("--output", required=True, type=Path, metavar="DIR")
    build.add_argument("--packages", metavar="NAME[,NAME]",
                       help="the upstream's top-level packages (default: the one its name suggests)")
    build.add_argument("--keep-old-defaults", action="store_true",
                       help="as `bot upgrade --keep-old-defaults`: the pack is then for upgrades run with it")
    build.add_argument("--config", type=Path)
    build.add_argument("--quiet", action="store_true", help="do not print each upstream commit as it is read")


def main(args: argparse.Namespace) -> int:
    from bot.config import load_config
    from bot.upstream.downstream_watch import named_upstream, upstream_history
    from bot.upstream.pack_build import build_pack

    config = load_config(args.config)
    named = named_upstream(config, Path.cwd(), args.upstream)
    packages = tuple(p.strip() for p in (args.packages or "").split(",") if p.strip())
    progress = None if args.quiet else (lambda line: print(f"bot: pack: {line}", file=sys.stderr))
    with upstream_history(named) as history:
        built = build_pack(named, history, args.start, args.end, args.output, packages, args.keep_old_defaults,
                           progress)
    pack = built.pack
    print(f"bot: pack: {args.output}: {len(pack.entries)} rules from {len(pack.commits())} upstream commits of "
          f"{pack.start['commit'][:12]}..{pack.end['commit'][:12]} ({built.walked} commits walked, {built.read} read "
          f"now, {built.added} rules added; {built.seconds:.1f} s)")
    return EXIT_OK
