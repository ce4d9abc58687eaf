"""How much does the detectors' rotation augmentation grow their box labels?  Needs the training install
(`pip install -e ".[train]"`, ultralytics and torch).

Why: session 95 found the detectors box a card about 3.5 % of its size too wide on every side (every view, cards in
full view too); the Spanish photo settings first drew their sure boxes in (`box_shrink`), then the Spanish photo
detector was trained on outline labels (`companion dataset build --outline-labels`, D5) and boxes tightly itself.  The detector stages of
`companion.training.train` augment with ``degrees=10``; given box labels only, ultralytics' RandomPerspective turns the
box's four corners and boxes them, so a card lying at an angle (its box already larger than the card) gets a label
larger than the turned card's own box.  Given the card's outline as a segment, it boxes the turned outline instead.
This draws a card-shaped rectangle at a random angle, applies the same augmentation to its box label and to its
outline, and compares each label with the box of the card's own pixels after the same warp.

    python bench/rotated_box_labels.py [--draws 200] [--degrees 10]
"""

from __future__ import annotations

import argparse
import random

import cv2
import numpy as np


def label_growth(draws: int, degrees: float) -> tuple[list[float], list[float]]:
    """(box labels' area over the turned card's own box area, the same with the outline as a segment), per draw."""
    from ultralytics.data.augment import RandomPerspective
    from ultralytics.utils.instance import Instances
    from ultralytics.utils.ops import resample_segments

    boxes, outlines = [], []
    for k in range(draws):
        img = np.zeros((640, 640, 3), np.uint8)
        quad = cv2.boxPoints(((320, 320), (140, 210), float(np.random.default_rng(k).uniform(0, 90))))
        cv2.fillConvexPoly(img, quad.astype(np.int32), (255, 255, 255))
        ys, xs = np.nonzero(img[:, :, 0] > 127)
        box = np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], dtype=np.float32)
        for as_segment, out in ((False, boxes), (True, outlines)):
            np.random.seed(k)  # the same warp for both labels
            random.seed(k)
            segments = (np.stack(resample_segments([quad.astype(np.float32)], n=1000)) if as_segment
                        else np.zeros((0, 1000, 2), np.float32))
            inst = Instances(box.copy(), segments=segments, bbox_format="xyxy", normalized=False)
            warp = RandomPerspective(degrees=degrees, translate=0.0, scale=0.0, shear=0.0, perspective=0.0)
            res = warp({"img": img.copy(), "cls": np.zeros((1, 1)), "instances": inst, "resized_shape": (640, 640)})
            b = res["instances"].bboxes[0]
            ys, xs = np.nonzero(res["img"][:, :, 0] > 127)
            own = (xs.max() + 1 - xs.min()) * (ys.max() + 1 - ys.min())
            out.append(float((b[2] - b[0]) * (b[3] - b[1]) / own))
    return boxes, outlines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--draws", type=int, default=200)
    p.add_argument("--degrees", type=float, default=10.0, help="as companion.training.train's detector stages")
    args = p.parse_args(argv)
    boxes, outlines = label_growth(args.draws, args.degrees)
    print(f"label area / the turned card's own box area, degrees={args.degrees:g}, {args.draws} draws: "
          f"box labels mean {np.mean(boxes):.3f} (max {np.max(boxes):.3f}); "
          f"outline (segment) labels mean {np.mean(outlines):.3f} (max {np.max(outlines):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
