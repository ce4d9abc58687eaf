"""How many lines `companion detect` lists per synthetic scene at each confidence floor, and how many labelled cards
a listed detection names right (by the mAP rule at IoU 0.5: ``companion.training.rescorer.labels``).

Why: since rule 186 (session 115) Spanish photos keep every candidate for the mAP, which ranks them all, while a
person reading `detect`'s listing wants the cards and few lines more; this measured the listing's default floor
(``companion.commands.detect.LISTED_RESCORED_MIN``).

    python bench/detect_listing.py VAL_DIR [--family spanish] [--limit 100] [--floors 0 0.02 0.05 0.1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from companion.training.rescorer import RIGHT, labels
from companion.vision.detector import FAMILIES, CardDetector
from companion.vision.evaluate import read_image, val_scenes
from companion.vision.settings import photo_settings


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, help="a `companion dataset build --split val` folder")
    p.add_argument("--family", choices=FAMILIES, default="spanish")
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--floors", type=float, nargs="+", default=[0.0, 0.02, 0.05, 0.1])
    args = p.parse_args(argv)
    detector = CardDetector(args.family, **photo_settings(family=args.family))
    lines = dict.fromkeys(args.floors, 0)
    right = dict.fromkeys(args.floors, 0)
    cards = scenes = 0
    for rec in tqdm(val_scenes(args.data, args.family, args.limit), desc=args.data.name, unit="scene"):
        found = detector.detect(read_image(args.data / rec["image"]))
        truths = [c for c in rec["cards"] if c["labelled"]]
        ignored = [c for c in rec["cards"] if not c["labelled"]]
        cards += len(truths)
        scenes += 1
        for floor in args.floors:
            listed = [d for d in found if d.confidence >= floor]
            lines[floor] += len(listed)
            right[floor] += int((labels(listed, truths, ignored) == RIGHT).sum())
    for floor in args.floors:
        print(f"floor {floor:g}: {lines[floor] / max(scenes, 1):.1f} lines a scene, {right[floor]} of {cards} "
              f"labelled cards named right")
    return 0


if __name__ == "__main__":
    sys.exit(main())
