"""What a photo rescorer gains on a reading, read on seeds it was not fitted on, and at which output floor.

Why: a rescorer (:mod:`companion.vision.rescoring`) is fitted on the reading it ranks, so every change to the photo
settings it follows needs a fit of its own, and a fit read on its own seeds flatters it.  Reading each scene once
per setting is what costs (4-6 min for 600 scenes); fitting and scoring are seconds.  So this dumps a reading once
(rescorer off: each detection's box, name, confidence, feature row and mAP label) and then fits on some dumps and
reads others as often as asked: the mAP as read, every right box first (the ceiling of any rescoring), and rescored
with each output floor (``rescored_min``); for the real photos, the right cards and false detections per photo.
Session 115's rules 185 and 186 were tuned with it (``bench/evaluation-history.md``).

    python bench/rescorer_study.py dump DATA OUT.pkl [--family F] [--limit N] [--set KEY=VALUE ...]
    python bench/rescorer_study.py dump-real tune|test|all OUT.pkl [--set KEY=VALUE ...]     # French real photos
    python bench/rescorer_study.py crossfit FIT.pkl [FIT.pkl ...] --read READ.pkl [READ.pkl ...] [--c C]

``--set`` overrides a ``photo_settings`` value for the dump (JSON values: ``--set merge_iou=0 --set faint_max=32``).
A dump is a pickle of plain lists and numpy arrays, read by this script only.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from companion.paths import shared_dir
from companion.training.rescorer import LEFT_OUT, RIGHT, feature_rows, labels
from companion.vision.detector import FAMILIES, CardDetector
from companion.vision.evaluate import HALVES, _real_scores, map_scores, read_image, real_labels, val_scenes
from companion.vision.rescoring import fit
from companion.vision.settings import photo_settings

FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2)


def overrides(pairs: list[str]) -> dict:
    """``KEY=VALUE`` pairs as photo_settings keyword arguments (each value read as JSON)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"error: --set takes KEY=VALUE, got {pair!r}")
        out[key] = json.loads(value)
    return out


def reading(detector: CardDetector, image: np.ndarray) -> tuple[list[dict], np.ndarray, list]:
    """One image's detections (rescorer off) as dicts, their feature rows, and the Detections themselves."""
    found = detector.detect(image)
    dets = [{"card": d.card, "box": [float(v) for v in d.box], "confidence": float(d.confidence)} for d in found]
    return dets, feature_rows(detector, found), found


def dump_synthetic(detector: CardDetector, data: Path, limit: int | None) -> list[dict]:
    scenes = []
    for rec in tqdm(val_scenes(data, detector.family, limit), desc=data.name, unit="scene"):
        dets, rows, found = reading(detector, read_image(data / rec["image"]))
        truths = [c for c in rec["cards"] if c["labelled"]]
        ignored = [c for c in rec["cards"] if not c["labelled"]]
        scenes.append({"gts": [{"card": c["card"], "box": c["box"]} for c in truths],
                       "ignored": [{"card": c["card"], "box": c["box"]} for c in ignored],
                       "dets": dets, "rows": rows, "labels": labels(found, truths, ignored) if found else np.zeros(0)})
    return scenes


def dump_real(detector: CardDetector, folder: Path, half: str) -> list[dict]:
    scenes = []
    for name, truths in tqdm(sorted(real_labels(folder, None if half == "all" else half).items()),
                             desc=f"real {half}", unit="photo"):
        dets, rows, found = reading(detector, read_image(folder / name))
        scenes.append({"name": name, "gts": truths, "dets": dets, "rows": rows, "found": found})
    return scenes


def synthetic_scores(scenes: list[dict], confidences: list[np.ndarray], floor: float = 0.0) -> str:
    """mAP50 (mAP50-95) with each detection's confidence replaced, those under ``floor`` dropped."""
    images = [(s["gts"], s["ignored"], [dict(d, confidence=float(c)) for d, c in zip(s["dets"], conf) if c >= floor])
              for s, conf in zip(scenes, confidences)]
    m = map_scores(images)
    return f"{m['mAP50']:.4f} ({m['mAP50-95']:.4f})"


def real_scores(scenes: list[dict], probabilities: list[np.ndarray], floor: float) -> str:
    """Right ranks found and false detections per photo, counted as ``evaluate real`` counts them
    (:func:`companion.vision.evaluate._real_scores`), keeping the faces rescored ``floor`` or more."""
    seen = [(s["gts"], [d for d, q in zip(s["found"], p) if q >= floor and d.card != "back"])
            for s, p in zip(scenes, probabilities)]
    r = _real_scores(seen, 0.0, 0.5, 0.0)
    return f"{r['found_right_rank']} of {r['labelled_cards']} at {r['false_detections_per_image']:.3f} false per photo"


def crossfit(fits: list[Path], reads: list[Path], c: float) -> None:
    dumps = [pickle.load(open(f, "rb")) for f in fits]
    rows = np.concatenate([s["rows"] for d in dumps for s in d["scenes"] if s["dets"]])
    right = np.concatenate([s["labels"] for d in dumps for s in d["scenes"] if s["dets"]])
    kept = right != LEFT_OUT
    model = fit(rows[kept], right[kept] == RIGHT, c)
    print(f"fitted on {', '.join(f.name for f in fits)}: {int(kept.sum())} detections, {int((right == RIGHT).sum())} right")
    for path in reads:
        d = pickle.load(open(path, "rb"))
        scenes = d["scenes"]
        p = [model.probabilities(s["rows"]) if s["dets"] else np.zeros(0) for s in scenes]
        if d["kind"] == "real":
            for floor in FLOORS:
                print(f"{path.name}, rescored, floor {floor:g}: {real_scores(scenes, p, floor)}")
            continue
        as_read = [np.array([x["confidence"] for x in s["dets"]]) for s in scenes]
        ceiling = [a + (s["labels"] == RIGHT) for a, s in zip(as_read, scenes)]
        print(f"{path.name}: as read {synthetic_scores(scenes, as_read)}, every right box first "
              f"{synthetic_scores(scenes, ceiling)}")
        print("  rescored, by output floor: " + ", ".join(f"{floor:g} {synthetic_scores(scenes, p, floor)}"
                                                         for floor in FLOORS))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="dump a validation folder's photo reading")
    d.add_argument("data", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--family", choices=FAMILIES, default="french")
    d.add_argument("--limit", type=int, default=None)
    d.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    r = sub.add_parser("dump-real", help="dump the French real photos' reading (a half or all)")
    r.add_argument("half", choices=(*HALVES, "all"))
    r.add_argument("out", type=Path)
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    f = sub.add_parser("crossfit", help="fit on some dumps, read others")
    f.add_argument("fit", type=Path, nargs="+")
    f.add_argument("--read", type=Path, nargs="+", required=True)
    f.add_argument("--c", type=float, default=1.0)
    args = p.parse_args(argv)
    if args.command == "crossfit":
        crossfit(args.fit, args.read, args.c)
        return 0
    family = args.family if args.command == "dump" else "french"
    settings = overrides(args.set)
    detector = CardDetector(family, **photo_settings(family=family, **{"rescorer": False, **settings}))
    start = time.time()
    if args.command == "dump":
        scenes = dump_synthetic(detector, args.data, args.limit)
    else:
        shared = shared_dir()
        if shared is None:
            print("error: no ../shared folder here (the real photos are read from it)", file=sys.stderr)
            return 2
        scenes = dump_real(detector, shared / "real-photos" / "french-dev", args.half)
    with open(args.out, "wb") as out:
        pickle.dump({"kind": "synthetic" if args.command == "dump" else "real", "family": family,
                     "settings": settings, "scenes": scenes}, out)
    print(f"{args.out}: {len(scenes)} images, {sum(len(s['dets']) for s in scenes)} detections, "
          f"{time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
