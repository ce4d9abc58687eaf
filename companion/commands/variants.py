"""``companion variants [NAME] [--json]``: list the presets and every option."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields

from companion.engine.variants import PRESETS, VariantOptions, describe_presets


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("variants", help="list rule presets and options",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", choices=list(PRESETS), help="show one preset only")
    parser.add_argument("--json", action="store_true", help="print presets as JSON")
    parser.set_defaults(func=run)


def _fmt(value: object) -> str:
    if isinstance(value, tuple):
        return "-".join(map(str, value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def run(args: argparse.Namespace) -> int:
    presets = describe_presets()
    names = [args.name] if args.name else list(presets)
    if args.json:
        print(json.dumps({n: presets[n].to_dict() for n in names}, ensure_ascii=False, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title="Presets (override any option in the match line's `options`)")
    table.add_column("option", style="bold")
    for n in names:
        table.add_column(n)
    for f in fields(VariantOptions):
        table.add_row(f.name, *[_fmt(getattr(presets[n], f.name)) for n in names])
    console.print(table)
    meanings = Table(title="Options")
    meanings.add_column("option", style="bold", no_wrap=True)
    meanings.add_column("meaning")
    for f in fields(VariantOptions):
        doc = f.metadata.get("doc", "")
        choices = f.metadata.get("choices")
        if choices:
            doc += f" [{' | '.join(map(str, choices))}]"
        meanings.add_row(f.name, doc)
    console.print(meanings)
    return 0
