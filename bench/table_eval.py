"""Table pipeline: hands logged exactly / scored right, card latency, replay speed.

    python bench/table_eval.py                      # 60 hands: noise (default and hard) and video figures
    python bench/table_eval.py --hands 20 --quick   # noise mode, default faults only
    python bench/table_eval.py --seed 1 --out /tmp/fresh-eval   # other sessions than the tuned-on ones

A thin driver around ``python -m companion.table.evaluate`` (see its
docstring for what each mode measures) that runs the figures reported in the
project notes in one go, into one output folder, and prints them side by
side.  Rendered sessions are reused between runs in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from companion.table import evaluate

ROWS = [
    ("noise, default faults", ["--mode", "noise"]),
    ("noise, hard faults", ["--mode", "noise", "--noise", "hard"]),
    ("noise, no calibration", ["--mode", "noise", "--no-calibration"]),
    ("video (trained detector)", ["--mode", "video"]),
    # the same, with a table that answers each card question 1 s after it is asked (from the truth)
    ("video, table answers in 1 s", ["--mode", "video", "--answer", "1.0"]),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "companion-table-eval"))
    parser.add_argument("--seed", type=int, default=0,
                        help="which sessions (seed 0: the hands the tracker was tuned on; 1: fresh ones)")
    parser.add_argument("--quick", action="store_true", help="only the first row")
    args = parser.parse_args(argv)
    rows = ROWS[:1] if args.quick else ROWS
    out = Path(args.out)
    table = []
    for label, extra in rows:
        evaluate.main(["--hands", str(args.hands), "--seed", str(args.seed), "--out", str(out), *extra])
        report = json.loads((out / "report.json").read_text())
        mode = extra[1]
        if mode not in report:
            table.append((label, None))
            continue
        table.append((label, report[mode]))
    print(f"\n{'':28} {'hands':>5} {'exact':>6} {'scored':>6} {'latency':>8} {'speed':>7} {'answers/hand':>12}")
    for label, r in table:
        if r is None:
            print(f"{label:28} (not run: see the message above)")
            continue
        lat = r.get("latency_median_s")
        print(f"{label:28} {r['hands']:>5} {r['exact_share']:>6.1%} {r['scored_share']:>6.1%} "
              f"{(f'{lat:.2f} s' if lat is not None else '-'):>8} {r['speed_x_realtime']:>6.1f}x "
              f"{r.get('answers_per_hand', '-'):>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
