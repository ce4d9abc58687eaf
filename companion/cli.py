"""Command-line entry point.

Each subcommand lives in its own module under ``companion.commands`` and
exposes ``register(subparsers)``; the module's parser sets ``func`` to a
callable taking the parsed namespace and returning an exit status.  Keeping
one module per command lets each part of the program own its command line
without touching the others.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from companion import __version__

# Modules that provide subcommands, in the order they are listed in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "companion.commands.demo",
    "companion.commands.score",
    "companion.commands.variants",
    "companion.commands.detect",
    "companion.commands.dataset",
    "companion.commands.listen",
    "companion.commands.models",
    "companion.commands.run",
    "companion.commands.replay",
    "companion.commands.calibrate",
    "companion.commands.history",
    "companion.commands.board",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Truco table companion: keeps the game from a camera and a microphone.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        # A command whose module is not part of this build is simply absent;
        # a module that exists but fails to import is a bug and must surface.
        if importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
