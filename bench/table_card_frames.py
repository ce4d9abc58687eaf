"""How often the card detector names the table's face-up cards right, frame by frame, by design.

    python -m companion.table.evaluate --hands 60 --mode video --seed 2 --out /tmp/eval --detections /tmp/eval/det
    python bench/table_card_frames.py --out /tmp/eval --detections /tmp/eval/det --design tango_nuevo [--confusions 10]

The table evaluation scores hands and logged cards; a change to the models or
to how a card is read moves those by a few cards out of hundreds.  This reads
every ``--step``-th frame of the rendered videos again, names the recorded
detection boxes that match a true face-up card (IoU >= 0.5, the vira
included) with the detector as the table builds it (the models folder in
``COMPANION_MODELS``, else the shipped one), and reports the share named right,
split by whether the card's outline was found (``CardDetector.card_outline``: the finders', or the outline
model's with ``--outline-model``; the card is
turned upright before its corners are read) and whether the card lay fully in
view.  Needs the rendered sessions (``--out`` of the evaluation, with the same
``--seed``) and the streams recorded there (``--detections``).
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from companion.boxes import iou
from companion.engine.variants import resolve
from companion.table.session import table_detector
from companion.vision.crops import quad_methods


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="the table evaluation's --out (rendered sessions)")
    parser.add_argument("--detections", required=True, help="the streams a video run recorded (--detections)")
    parser.add_argument("--design", default="", help="only sessions whose deck design contains this")
    parser.add_argument("--step", type=int, default=10, help="every n-th frame")
    parser.add_argument("--quad", metavar="NAMES", default=None,
                        help="how a card's outline is found, in order (default: crops.QUAD_METHODS)")
    parser.add_argument("--outline-model", action=argparse.BooleanOptionalAction, default=None,
                        help="the outline model's outline first (card-outlines.onnx), then the finders, or not "
                             "(default: as the table does, TABLE_OUTLINE_MODEL)")
    parser.add_argument("--confusions", type=int, default=0, metavar="N",
                        help="also print the N commonest misreadings (true card -> name read), with how often "
                             "the true card was read in all")
    args = parser.parse_args(argv)
    methods = None
    if args.quad:
        try:
            methods = quad_methods(args.quad)
        except ValueError as err:
            parser.error(str(err))
    sessions = Path(args.out) / "sessions"
    if not sessions.is_dir():
        print(f"error: no rendered sessions in {args.out}", file=sys.stderr)
        return 1
    tally: Counter = Counter()
    misread: Counter = Counter()
    seen: Counter = Counter()
    for folder in sorted(p for p in sessions.iterdir() if p.is_dir()):
        meta = json.loads((folder / "session.json").read_text())
        if meta["family"] != "french" or args.design not in meta["design"]:
            continue
        stream = Path(args.detections) / f"{folder.name}.jsonl"
        if not stream.exists():
            print(f"error: no recorded stream {stream}", file=sys.stderr)
            return 1
        rows = {r["frame"]: r for r in (json.loads(line) for line in stream.read_text().splitlines()[1:])}
        detector = table_detector("french", tuple(resolve(meta["variant"]).deck_cards), quad_methods=methods,
                                  outline_model=args.outline_model)
        states = meta["states"]
        times = [s["t"] for s in states]
        cap = cv2.VideoCapture(str(folder / "video.mp4"))
        index = 0
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            if index % args.step == 0 and index in rows:
                state = states[max(0, bisect.bisect_right(times, rows[index]["t"]) - 1)]
                for det in rows[index]["detections"]:
                    if det["label"] == "back":
                        continue
                    true = max(state["cards"], key=lambda c: iou(tuple(c["box"]), tuple(det["box"])), default=None)
                    if true is None or true["card"] == "back" or iou(tuple(true["box"]), tuple(det["box"])) < 0.5:
                        continue
                    found = detector.card_outline(frame, tuple(det["box"])) is not None
                    reading = detector.readings(frame, np.array([det["box"]], np.float32), 1)[0]
                    key = (meta["design"], "outline found" if found else "no outline",
                           "in view" if true.get("visible", 1.0) > 0.95 else "partly covered")
                    tally[key + ("n",)] += 1
                    tally[key + ("right",)] += bool(reading) and reading[0][0] == true["card"]
                    seen[true["card"]] += 1
                    if not reading or reading[0][0] != true["card"]:
                        misread[(true["card"], reading[0][0] if reading else "nothing")] += 1
            index += 1
        cap.release()
    if not tally:
        print("error: no face-up French card matched a recorded box", file=sys.stderr)
        return 1
    for key in sorted({k[:3] for k in tally}):
        n = tally[key + ("n",)]
        print(f"{key[0]:32s} {key[1]:14s} {key[2]:15s} {n:5d} frames  {tally[key + ('right',)] / n:.3f} right")
    for (true_card, read), count in misread.most_common(args.confusions):
        print(f"{true_card:>4s} read {read:7s} {count:5d} of its {seen[true_card]} frames")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
