"""``companion board``: the scoreboard page for the match being recorded, and the history pages."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any


def add_board_options(parser: argparse.ArgumentParser, *, flag: bool = False) -> None:
    """The board's network options; with ``flag`` also ``--board`` (for run/replay)."""
    if flag:
        parser.add_argument("--board", action="store_true", help="serve the live scoreboard page")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default localhost; any other needs the token)")
    parser.add_argument("--port", type=int, default=8765, help="port (0 = any free port)")
    parser.add_argument("--token", help="access token (default: random when --host is not localhost)")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "board", help="serve the live scoreboard and history pages",
        description="Serve the scoreboard of the live match in the history (it follows a match "
                    "that `companion run` records in another process) and the history pages.")
    parser.add_argument("--db", metavar="URL", help="SQLAlchemy URL or SQLite file (default: the user's history)")
    parser.add_argument("--match", type=int, help="show this match id (default: the newest live match)")
    parser.add_argument("--poll", type=float, default=0.5, help="seconds between looks for new events")
    parser.add_argument("--read-only", action="store_true",
                        help="ignore the page's buttons (the match is only shown, never changed from here)")
    parser.add_argument("--speak", choices=("pt", "es"), help="say what was applied through espeak-ng")
    add_board_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.board.hub import BoardHub
    from companion.board.live import follow_match
    from companion.board.server import start_board
    from companion.history.store import HistoryStore

    store = HistoryStore(args.db)
    hub = BoardHub()
    hub.history_store = store
    speaker = None
    if args.speak:
        from companion.feedback import Speaker, SpeechUnavailable

        try:
            speaker = Speaker(args.speak)
        except SpeechUnavailable as err:
            print(f"companion board: {err}", file=sys.stderr)
            return 1
    try:
        url = start_board(hub, args.host, args.port, args.token)
    except OSError as err:
        print(f"cannot serve the board on {args.host}:{args.port}: {err}", file=sys.stderr)
        return 1
    print(f"scoreboard: {url}", flush=True)
    if "token=" in url:
        print("the token is required on this address: share the whole URL with the table", flush=True)
    stop = threading.Event()
    try:
        follow_match(store, hub, match_id=args.match, poll=args.poll, stop=stop, read_only=args.read_only,
                     on_outcomes=speaker.announce if speaker else None)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        hub.server.stop()  # type: ignore[attr-defined]
    return 0
