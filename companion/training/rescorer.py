"""Fit a family's photo rescorer (:mod:`companion.vision.rescoring`) on validation scenes read by the photo settings.

    python -m companion.training.rescorer --family french DATA [DATA ...] [--out FILE] [--c C] [--limit N]

Each DATA is a ``companion dataset build --split val`` folder.  Every scene is read by the family's photo settings
with the rescorer off (the models folder's other files as shipped); each detection is labelled right where the
mAP rule at IoU 0.5 matches it to a labelled card of its name, wrong where it matches none, and left out where it
lies on an unlabelled card (as the mAP leaves it out); then the logistic model is fitted and written as JSON (by
default into the models folder as ``card-rescorer-<family>-photo.json``), with the folders, counts and command.

Why here and not in the detector: fitting reads labelled scenes, the detector reads none.  It needs numpy and scipy
only (no torch), and takes about 4 minutes for 600 French scenes on 2 cores.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from companion.paths import models_dir
from companion.vision.detector import FAMILIES, CardDetector
from companion.vision.evaluate import read_image, val_scenes, verdicts
from companion.vision.rescoring import FEATURES, Rescorer, detection_features, fit, rescorer_file
from companion.vision.settings import photo_settings

RIGHT, WRONG, LEFT_OUT = 1, 0, -1


def labels(found: list, truths: list[dict], ignored: list[dict]) -> np.ndarray:
    """For each of ``found`` (Detections), the mAP's verdict at IoU 0.5 (:func:`companion.vision.evaluate.verdicts`):
    :data:`RIGHT` where it claims a labelled card of its name, :data:`LEFT_OUT` where it lies on an unlabelled card
    instead (the mAP drops it), else :data:`WRONG`."""
    out = np.full(len(found), WRONG)
    dets = [{"card": d.card, "box": list(d.box), "confidence": d.confidence, "i": i} for i, d in enumerate(found)]
    for name in {d["card"] for d in dets}:
        mine = [t for t in truths if t["card"] == name]
        for d, right in verdicts(mine, ignored, [d for d in dets if d["card"] == name], 0.5):
            out[d["i"]] = LEFT_OUT if right is None else RIGHT if right else WRONG
    return out


def feature_rows(detector: CardDetector, found: list) -> np.ndarray:
    """The rescorer's feature rows of one image's ``found`` (Detections), with the detector's own covered and faint
    flags, as its rescoring step computes them (:meth:`CardDetector.read_stages`)."""
    return detection_features(found, detector.covered(found) if found else [], [detector.faint(d) for d in found])


def read_folder(detector: CardDetector, data: Path, limit: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels of every detection of ``data``'s validation scenes."""
    rows, right = [], []
    for rec in tqdm(val_scenes(data, detector.family, limit), desc=data.name, unit="scene"):
        found = detector.detect(read_image(data / rec["image"]))
        if not found:
            continue
        rows.append(feature_rows(detector, found))
        right.append(labels(found, [c for c in rec["cards"] if c["labelled"]],
                            [c for c in rec["cards"] if not c["labelled"]]))
    if not rows:
        return np.zeros((0, len(FEATURES))), np.zeros(0)
    return np.concatenate(rows), np.concatenate(right)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, nargs="+", help="validation folders (companion dataset build --split val)")
    p.add_argument("--family", choices=FAMILIES, default="french")
    p.add_argument("--models", type=Path, default=None, help="models folder read (default: the shipped one)")
    p.add_argument("--out", type=Path, default=None,
                   help="where to write the rescorer (default: MODELS/card-rescorer-<family>-photo.json)")
    p.add_argument("--c", type=float, default=1.0, help="inverse L2 strength of the logistic fit")
    p.add_argument("--limit", type=int, default=None, help="at most this many scenes of each folder")
    args = p.parse_args(argv)
    if args.c <= 0:
        p.error("--c must be positive")
    folder = args.models or models_dir()
    detector = CardDetector(args.family, models_dir=folder, **photo_settings(family=args.family, rescorer=False))
    start = time.time()
    parts = []
    for data in args.data:
        try:
            parts.append(read_folder(detector, data, args.limit))
        except FileNotFoundError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    rows = np.concatenate([r for r, _ in parts])
    right = np.concatenate([y for _, y in parts])
    kept = right != LEFT_OUT
    meta = {"family": args.family, "data": [d.name for d in args.data], "limit": args.limit, "c": args.c,
            "detections": int(kept.sum()), "right": int((right == RIGHT).sum()),
            "left_out_on_unlabelled_cards": int((~kept).sum()),
            "command": "python -m companion.training.rescorer " + shlex.join(argv if argv is not None else sys.argv[1:]),
            "fitted": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    try:
        model = fit(rows[kept], right[kept] == RIGHT, args.c, meta)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = args.out or folder / rescorer_file(args.family)
    model.save(out)
    print(f"{meta['detections']} detections ({meta['right']} right) of {len(args.data)} folders in "
          f"{time.time() - start:.0f} s -> {out}")
    for name, w in sorted(zip(FEATURES, model.weights), key=lambda t: -abs(t[1])):
        print(f"  {name:16s} {w:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
