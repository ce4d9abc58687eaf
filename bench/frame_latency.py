"""One 1280x720 frame's latency, read as the live table reads it and as a photo is read with one view, in turn.

Why both: ``companion run`` reads the camera's frames with the table's detector (``table_detector``: one window per
index corner, no photo models), while ``companion detect`` and the issue's one-view figure
(``python -m companion.vision.evaluate latency --scales 1``) read with the photo settings, which add the photo
models and four corner windows.  The two paths cost very different amounts, and a figure for "the companion's
frame rate" must say which it is.  Runs alternate (table, photo, table, photo...) so a machine slowing down mid-run
weighs on both alike.  The frames are ``evaluate latency``'s four French scenes (``synthetic_frame``) whatever
``--family`` says: it picks the models, so a Spanish figure times Spanish models on French cards.

    python bench/frame_latency.py [--family french] [--frames 50] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

from companion.table.session import table_detector
from companion.vision.detector import FAMILIES, CardDetector
from companion.vision.evaluate import measure_latency
from companion.vision.settings import photo_settings


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--family", choices=FAMILIES, default="french")
    p.add_argument("--frames", type=int, default=50, help="frames timed per round (after 4 warm-up frames)")
    p.add_argument("--rounds", type=int, default=2, help="rounds of each path, alternated")
    args = p.parse_args(argv)
    paths = {"table": table_detector(args.family),
             "photo, one view": CardDetector(args.family, **photo_settings(scales=[1.0], family=args.family))}
    medians: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(args.rounds):
        for name, detector in paths.items():
            got = measure_latency(detector, args.frames)
            medians[name].append(got["median_ms"])
            print(json.dumps({"path": name, **got}))
    for name, values in medians.items():
        med = statistics.median(values)
        print(f"{name}: median of {len(values)} rounds' medians {med:.1f} ms ({1000 / med:.1f} frames a second)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
