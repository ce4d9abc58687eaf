"""Fusing readings of the same view: the image as it is, mirrored left to right, turned a half turn.

Why a module of its own: the detector reads a view once; a second reading of the mirrored image (the detectors were
trained with left-right flips) sees each card again from another set of anchors, as a reading of the image turned a
half turn would (``turn_boxes``; French photos read it since session 113, rule 177).  Where both readings box a card,
the mean of their scores ranks it, and their boxes averaged (weighted by score) place it; a box one reading alone
found is kept at a share of its score (``single``: 0.5 is weighted box fusion's, 1.0 keeps it as found).
"""

from __future__ import annotations

import numpy as np

from companion.vision.crops import box_iou

Boxes = tuple[np.ndarray, np.ndarray, np.ndarray]  # boxes N x 4 (x1 y1 x2 y2), scores N, classes N

FLIP_MATCH_IOU = 0.55  # two readings' boxes of one class overlapping this much are one card
PAIRINGS = ("mean", "lift", "top")  # how a pair of boxes is fused: see fuse_readings


def mirror_boxes(boxes: np.ndarray, width: int) -> np.ndarray:
    """Boxes read on an image mirrored left to right, as boxes of the image itself (``width`` its width)."""
    out = boxes.astype(np.float64, copy=True).reshape(-1, 4)
    out[:, [0, 2]] = width - boxes.reshape(-1, 4)[:, [2, 0]]
    return out


def turn_boxes(boxes: np.ndarray, width: int, height: int) -> np.ndarray:
    """Boxes read on an image turned a half turn, as boxes of the image itself (``width`` x ``height`` its size)."""
    out = mirror_boxes(boxes, width)  # a half turn is the mirror left to right, then top to bottom
    out[:, [1, 3]] = height - out[:, [3, 1]]
    return out


def fuse_readings(first: Boxes, second: Boxes, single: float, floor: float,
                  match_iou: float = FLIP_MATCH_IOU, first_single: float | None = None, pair: str = "mean") -> Boxes:
    """One view's boxes from two readings of it: each box of ``first`` (surest first) paired with the unpaired box of
    ``second`` of its class it overlaps most, at IoU ``match_iou`` or more; a pair is one box (coordinates averaged
    weighted by score, the mean score), an unpaired box keeps ``single`` times its score (an unpaired box of
    ``first``: ``first_single`` times, where given; a third reading fused onto two may so add boxes at a share
    without lowering the ones it missed).  ``pair`` "lift": a pair keeps the box of ``first`` as it is and the higher
    of the two scores instead (a confirming reading can raise a card, never lower it or move its box); "top": the
    boxes averaged as with "mean", the higher score.  Boxes scored under ``floor`` after that are dropped (the
    readings were read down to it).  Returned surest first."""
    if pair not in PAIRINGS:
        raise ValueError(f"pair must be one of {PAIRINGS}, got {pair!r}")
    kept = single if first_single is None else first_single
    b1, s1, c1 = first
    b2, s2, c2 = second
    b1, b2 = b1.reshape(-1, 4), b2.reshape(-1, 4)
    taken = np.zeros(len(b2), dtype=bool)
    boxes, scores, classes = [], [], []
    for i in np.argsort(-s1, kind="stable"):
        j = -1
        if len(b2):
            iou = box_iou(b1[i], b2)
            iou[taken | (c2 != c1[i])] = -1.0
            best = int(np.argmax(iou))
            if iou[best] >= match_iou:
                j = best
        if j < 0:
            boxes.append(b1[i])
            scores.append(s1[i] * kept)
        else:
            taken[j] = True
            w1, w2 = s1[i], s2[j]
            boxes.append(b1[i] if pair == "lift" else (b1[i] * w1 + b2[j] * w2) / max(w1 + w2, 1e-12))
            scores.append((w1 + w2) / 2.0 if pair == "mean" else max(w1, w2))
        classes.append(c1[i])
    for j in np.flatnonzero(~taken):
        boxes.append(b2[j])
        scores.append(s2[j] * single)
        classes.append(c2[j])
    b = np.array(boxes, dtype=np.float64).reshape(-1, 4)
    s = np.array(scores, dtype=np.float64)
    c = np.array(classes, dtype=int)
    keep = s >= floor
    b, s, c = b[keep], s[keep], c[keep]
    order = np.argsort(-s, kind="stable")
    return b[order], s[order], c[order]
