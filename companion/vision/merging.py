"""One card named twice in one place becomes one detection (photos only).

The detector has no class-aware suppression: its end-to-end head and the photo
settings' extra views (shrunk view, faint boxes, outlines, row strips) often box
one card two or three times, loosely and tightly, each box named alike.  A deck
holds each card once, so boxes named alike that overlap are one card.  They are
merged into one detection that keeps the surest box's name, confidence and
runners-up, and takes the boxes' mean weighted by confidence (as weighted box
fusion does): the surest box is often the loose one, and the mean of a loose and
a tight box lies nearer the card than either alone.

Measured (session 37, ``python -m companion.vision.evaluate synthetic|real``
with ``--merge-iou 0`` for none): synthetic mAP50 0.5706 -> 0.5886, mAP50-95
0.380 -> 0.388; real photos 482 = 482 of 527 at 0.098 -> 0.085 false detections
per photo.  Keeping the surest box instead of the mean lost one real card (a
single card boxed three times, the tight box the least sure); the union of the
boxes (``supervision.Detections.with_nmm``) lost two and gave 0.568.  Not at the
table: its tracker already tells a card boxed twice as it is put down from two
cards, over many frames (``TableTracker``'s ``twin_box``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from companion.vision.crops import box_iou

if TYPE_CHECKING:  # the detector imports this module
    from companion.vision.detector import Detection

# Boxes named alike overlapping their group's surest box at least this much (IoU) are one card.  Chosen on
# the synthetic validation and all the real photos, keeping every real card (0.3: synthetic 0.5916, real
# 480 of 527; 0.1: 0.5911, 480).
MERGE_IOU = 0.5


def merge_same_cards(detections: list[Detection], iou_min: float = MERGE_IOU) -> list[Detection]:
    """``detections`` with each group of faces named alike whose boxes overlap the group's surest by
    ``iou_min`` or more made one (surest first, as :meth:`CardDetector.detect` sorts them).  Backs are
    left as they are: a deck's backs are all alike, two backs named alike are two cards."""
    if not 0.0 < iou_min <= 1.0:
        raise ValueError(f"iou_min must be in (0, 1], got {iou_min!r}")
    groups: list[list[Detection]] = []
    for d in sorted(detections, key=lambda d: -d.confidence):
        if d.card != "back":
            home = next((g for g in groups if g[0].card == d.card
                         and box_iou(np.array(d.box), np.array([g[0].box]))[0] >= iou_min), None)
            if home is not None:
                home.append(d)
                continue
        groups.append([d])
    out = []
    for g in groups:
        if len(g) == 1:
            out.append(g[0])
            continue
        boxes = np.array([d.box for d in g], dtype=np.float64)
        weights = np.array([d.confidence for d in g], dtype=np.float64)
        if weights.sum() <= 0.0:
            weights = np.ones(len(g))
        mean = (boxes * weights[:, None]).sum(axis=0) / weights.sum()
        out.append(replace(g[0], box=tuple(float(v) for v in mean)))
    return out
