"""``companion score LOG.jsonl [--variant NAME] [--json]``: score a table log.

With ``--json`` prints exactly the object described in TABLE-LOG.md; without
it a readable summary (``rich`` tables).  Exit status 0 when every line was
applied, 1 when any line was rejected (or the file could not be read).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.tablelog import score_log


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("score", help="score a table log (JSON Lines)",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("log", help="table log file (JSON Lines); - for standard input")
    parser.add_argument("--variant", help="use this preset instead of the match line's variant")
    parser.add_argument("--json", action="store_true", help="print the score object as JSON")
    parser.set_defaults(func=run)


def _read(path: str) -> list[str]:
    if path == "-":
        return sys.stdin.read().splitlines()
    return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()


def run(args: argparse.Namespace) -> int:
    try:
        lines = _read(args.log)
    except OSError as exc:
        result: dict[str, Any] = {"variant": args.variant, "score": [0, 0], "winner": None, "hands": [],
                                  "errors": [{"line": 0, "message": f"cannot read {args.log}: {exc.strerror}"}]}
    else:
        result = score_log(lines, variant=args.variant)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print_summary(result)
    return 1 if result["errors"] else 0


def print_summary(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    winner = result.get("winner")
    title = f"{result.get('variant') or '?'}: {result['score'][0]} - {result['score'][1]}"
    if winner is not None:
        title += f"  (team {winner} wins)"
    table = Table(title=title)
    for col in ("#", "dealer", "stake", "end", "winner", "points", "tricks"):
        table.add_column(col)
    for i, hand in enumerate(result["hands"], start=1):
        tricks = " | ".join(
            ("-" if t["winner"] is None else str(t["winner"])) + ": " +
            " ".join(f"{s}:{c or '##'}" for s, c in t["cards"]) for t in hand["tricks"])
        extra = []
        if hand.get("envido"):
            extra.append("envido")
        if hand.get("flor"):
            extra.append("flor")
        table.add_row(str(hand.get("number", i)), str(hand["dealer"]), str(hand["stake"]),
                      str(hand["end"]) + (f" +{','.join(extra)}" if extra else ""),
                      "-" if hand["winner"] is None else str(hand["winner"]),
                      f"{hand['points'][0]}-{hand['points'][1]}", tricks)
    console.print(table)
    if result["errors"]:
        errors = Table(title="rejected lines", style="red")
        errors.add_column("line")
        errors.add_column("message")
        for err in result["errors"]:
            errors.add_row(str(err["line"]), err["message"])
        console.print(errors)
