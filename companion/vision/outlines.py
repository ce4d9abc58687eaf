"""Card-shaped bright outlines: boxes the detector may have missed, found with plain OpenCV.

Why: the detector learned from synthetic scenes, and on real photos it boxes
only about two cards in three (a lone white card on a carpet is missed as
often as a card in a fan).  A card face is a bright rectangle of a known
shape; where it lies apart on a darker surface its outline is easy to find
without any learning.  Each outline becomes one more box for the classifier to
name (it reads backs, so a back or a pale object of a card's shape is named
as such or weakly).

How: two masks of the image shrunk to at most ``SIDE`` pixels: brighter than
the Otsu threshold of its lightness, and its edges (Canny, dilated); each
contour whose minimum-area rectangle has a card's aspect ratio, fills that
rectangle (``FILL``), covers a sensible share of the image and is clearly
lighter than a ring around it (``CONTRAST`` levels of L) is a candidate.
Fans and cards touching each other make one contour of no card's shape, and
are left to the detector.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.crops import CARD_ASPECT, PAPER_CHROMA, PAPER_LIGHT, box_iou

SIDE = 640  # the image is searched shrunk to at most this many pixels a side
MIN_AREA = 0.004  # a candidate covers at least this share of the image ...
MAX_AREA = 0.6  # ... and at most this share
FILL = 0.85  # the contour's convex hull over its rectangle (a card's corners are rounded, a fan is not a card)
CONTRAST = 15.0  # the rectangle's mean lightness (Lab L, 0-255) above that of a ring 25 % wider around it
RING = 1.25
# ... and at least this share of the rectangle is paper (light and nearly grey, crops.PAPER_LIGHT and
# PAPER_CHROMA): a card's face has its margins and a back its border.  Why: the pink squares of a chequered
# cloth are bright card-shaped rectangles too (paper share 0.03-0.04), named 1E at p 0.33 in every frame of
# a rendered session, and one went in as a play.  The real photos' outlines that lie on a card: 0.26 or more
# in 95 % of them (0.47 median); the rendered table's cards 0.2-0.46.
PAPER_SHARE = 0.12
MIN_SIDE = 16  # pixels of the shrunk image's short side below which no outline is looked for


def outline_boxes(image_bgr: np.ndarray) -> np.ndarray:
    """Axis-aligned boxes (N x 4, x1 y1 x2 y2 in the image's pixels) of bright card-shaped outlines."""
    H, W = image_bgr.shape[:2]
    f = min(1.0, SIDE / max(H, W))
    if min(H, W) * f < MIN_SIDE:  # a sliver of an image holds no card's outline (and resizes to nothing)
        return np.zeros((0, 4))
    small = cv2.resize(image_bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1.0 else image_bgr
    h, w = small.shape[:2]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    light = cv2.GaussianBlur(lab[:, :, 0], (5, 5), 0)
    _, bright = cv2.threshold(light, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    edges = cv2.dilate(cv2.Canny(light, 40, 120), np.ones((3, 3), np.uint8))
    boxes: list[list[float]] = []
    for mask, mode in ((bright, cv2.RETR_EXTERNAL), (edges, cv2.RETR_LIST)):
        contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            box = _card_box(contour, light, lab, w, h)
            if box is None:
                continue
            box = [max(0.0, box[0] / f), max(0.0, box[1] / f), min(float(W), box[2] / f), min(float(H), box[3] / f)]
            if not boxes or not (box_iou(np.array(box), np.array(boxes)) > 0.6).any():
                boxes.append(box)
    return np.array(boxes, dtype=np.float64).reshape(-1, 4)


def _card_box(contour: np.ndarray, light: np.ndarray, lab: np.ndarray, w: int, h: int) -> list[float] | None:
    area = cv2.contourArea(contour)
    if not MIN_AREA * w * h <= area <= MAX_AREA * w * h:
        return None
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    if min(rw, rh) < 10:
        return None
    if not CARD_ASPECT[0] <= min(rw, rh) / max(rw, rh) <= CARD_ASPECT[1]:
        return None
    # the convex hull fills the rectangle: a big pip reaching the card's edge bites into the paper's
    # own outline (a one-pip deck's 3S filled 57 % of its rectangle), not into its hull
    if cv2.contourArea(cv2.convexHull(contour)) < FILL * rw * rh:
        return None
    corners = cv2.boxPoints(((cx, cy), (rw, rh), angle))
    around = cv2.boxPoints(((cx, cy), (rw * RING, rh * RING), angle))
    # masks on the ring's own bounding box only (a frame holds dozens of contours)
    ox, oy = np.floor(around.min(axis=0)).astype(int)
    ex, ey = np.ceil(around.max(axis=0)).astype(int)
    ox, oy, ex, ey = max(ox, 0), max(oy, 0), min(ex, w), min(ey, h)
    if ex - ox < 3 or ey - oy < 3:
        return None
    patch = light[oy:ey, ox:ex]
    inner = np.zeros(patch.shape, np.uint8)
    cv2.fillConvexPoly(inner, (corners - (ox, oy)).astype(np.int32), 1)
    ring = np.zeros(patch.shape, np.uint8)
    cv2.fillConvexPoly(ring, (around - (ox, oy)).astype(np.int32), 1)
    ring &= 1 - inner
    if ring.sum() < 10 or inner.sum() < 10:
        return None
    if float(patch[inner > 0].mean()) < float(patch[ring > 0].mean()) + CONTRAST:
        return None
    inside = patch[inner > 0]
    ab = lab[oy:ey, ox:ex, 1:][inner > 0].astype(np.float32) - 128.0  # chroma only where a card may be
    paper = (inside > PAPER_LIGHT * np.percentile(inside, 95)) & (np.hypot(ab[:, 0], ab[:, 1]) < PAPER_CHROMA)
    if paper.mean() < PAPER_SHARE:
        return None
    x1, y1 = np.round(corners.min(axis=0))
    x2, y2 = np.round(corners.max(axis=0))
    return [float(x1), float(y1), float(x2), float(y2)]
