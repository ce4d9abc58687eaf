"""How long recording one event takes (commit, apply, settle) and how long resume takes.

    python bench/history_record.py [--db URL] [--games 10]

Uses simulated argentino games from the engine; the default database is a
fresh SQLite file in a temporary directory (WAL, synchronous=FULL).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from companion.engine.simulate import random_log
from companion.history.recorder import MatchRecorder
from companion.history.store import HistoryStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db")
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = HistoryStore(args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite'}")
        latencies: list[float] = []
        longest = None
        for seed in range(100, 100 + args.games):
            log = random_log("argentino", 4, seed)
            rec = MatchRecorder.start(store, log[0])
            for event in log[1:]:
                t = time.perf_counter()
                rec.record(event)
                latencies.append(time.perf_counter() - t)
            if longest is None or rec.last_seq > longest[1]:
                longest = (rec.match_id, rec.last_seq)
        latencies.sort()
        ms = [1000 * x for x in latencies]
        print(f"{store.url}: {len(ms)} events recorded; mean {statistics.mean(ms):.1f} ms, "
              f"median {ms[len(ms) // 2]:.1f} ms, p95 {ms[int(0.95 * len(ms))]:.1f} ms, max {ms[-1]:.1f} ms")
        assert longest is not None
        t = time.perf_counter()
        resumed = MatchRecorder.resume(store, longest[0])
        print(f"resume of a {resumed.last_seq}-event match: {1000 * (time.perf_counter() - t):.0f} ms")
        store.close()


if __name__ == "__main__":
    main()
