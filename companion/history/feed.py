"""Feed a table log into the history one event at a time, as a live table would.

    python -m companion.history.feed LOG.jsonl [--db URL] [--delay 0.01] [--resume]

Each event goes through ``MatchRecorder.record`` (committed, then applied) and
a line ``applied SEQ`` or ``rejected SEQ`` is printed and flushed *after* that,
so whoever watches stdout knows which events the process treated as done.
With ``--resume`` the latest unfinished match is reloaded and the log continues
after the events already stored (which must be a prefix of the log).  This is
the driver of the crash test (SIGKILL mid-way, then ``--resume``) and a handy
way to watch a recorded match on the board at table speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from companion.history.models import dump_event
from companion.history.recorder import MatchRecorder, illegal_event_class
from companion.history.store import HistoryStore


def read_log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def feed(store: HistoryStore, events: list[dict], *, delay: float = 0.0, resume: bool = False,
         source: str = "replay", venue: str | None = None, out=sys.stdout) -> MatchRecorder:
    illegal = illegal_event_class()
    if resume:
        rec = MatchRecorder.resume(store)
        stored = [e.payload for e in store.events(rec.match_id)]
        expected = [dump_event(e) for e in events[: len(stored)]]
        if stored != expected:
            raise SystemExit(f"match {rec.match_id} is not a prefix of this log: cannot resume from it")
        print(f"resumed match {rec.match_id} at seq {rec.last_seq} "
              f"({rec.report.applied} applied, {rec.report.reapplied_pending} pending settled)",
              file=out, flush=True)
        start = len(stored)
    else:
        rec = MatchRecorder.start(store, events[0], venue=venue, source=source)
        print(f"match {rec.match_id}", file=out, flush=True)
        start = 1
    for event in events[start:]:
        try:
            rec.record(event, source=source)
            print(f"applied {rec.last_seq}", file=out, flush=True)
        except illegal as err:
            print(f"rejected {rec.last_seq}: {err}", file=out, flush=True)
        if delay:
            time.sleep(delay)
    print("done", file=out, flush=True)
    return rec


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.history.feed", description=__doc__.split("\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--db", help="SQLAlchemy URL or SQLite file (default: the user's history)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait after each event")
    parser.add_argument("--resume", action="store_true", help="continue the latest unfinished match")
    parser.add_argument("--venue")
    args = parser.parse_args(argv)
    store = HistoryStore(args.db)
    feed(store, read_log(args.log), delay=args.delay, resume=args.resume, venue=args.venue)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
