"""The classifier's view of a card, shared by dataset building and inference."""

from __future__ import annotations

import cv2
import numpy as np

CROP = 96


def crop_card(image: np.ndarray, box: tuple[float, float, float, float], size: int = CROP,
              rng: np.random.Generator | None = None) -> np.ndarray | None:
    """The card's box (jittered when ``rng`` is given), padded 3 %, long side up, squashed to size x size.

    A box wider than tall holds a card lying closer to horizontal: turning it a
    quarter turn shows every card within 45 degrees of upright (or upside down,
    which a card's two index corners make equivalent), so the classifier has half
    the rotations to learn.  With ``rng`` (training) the quarter turn's direction
    and a half turn are random, as the table gives either.

    Training crops (with ``rng``, mimicking a detector's box error) and inference
    crops (without) go through this one function so they look alike.
    Returns None when the box is degenerate or outside the image.
    """
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    if w < 4 or h < 4:
        return None
    if rng is not None:
        jx = rng.uniform(-0.06, 0.06, 2) * w
        jy = rng.uniform(-0.06, 0.06, 2) * h
        x1, x2 = x1 + jx[0], x2 + jx[1]
        y1, y2 = y1 + jy[0], y2 + jy[1]
    pad = 0.03
    x1, x2 = x1 - pad * w, x2 + pad * w
    y1, y2 = y1 - pad * h, y2 + pad * h
    H, W = image.shape[:2]
    xi1, yi1 = int(max(0, np.floor(x1))), int(max(0, np.floor(y1)))
    xi2, yi2 = int(min(W, np.ceil(x2))), int(min(H, np.ceil(y2)))
    if xi2 - xi1 < 4 or yi2 - yi1 < 4:
        return None
    crop = image[yi1:yi2, xi1:xi2]
    if crop.shape[1] > crop.shape[0]:
        turn = cv2.ROTATE_90_COUNTERCLOCKWISE if rng is not None and rng.random() < 0.5 else cv2.ROTATE_90_CLOCKWISE
        crop = cv2.rotate(crop, turn)
    elif rng is not None and rng.random() < 0.5:
        crop = cv2.rotate(crop, cv2.ROTATE_180)
    interp = cv2.INTER_AREA if crop.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(crop, (size, size), interpolation=interp)


# The index corner: the share of a crop's width and height that holds a card's rank and suit
# when the card lies within about 30 degrees of upright (crop_card turns it long side up).
CORNER = 64
CORNER_SHARE = (0.55, 0.5)


def corner_views(crops_bgr: np.ndarray, size: int = CORNER) -> np.ndarray:
    """Both index corners of each crop, enlarged: (2N, size, size, 3), the N top-left corners then the N
    bottom-right corners turned a half turn (so each shows its rank and suit upright).

    Why a second look: the whole-card classifier learns the pictures and pip layouts of
    the designs it trained on, and on an unseen design (a huge single pip, cartoon
    figures) it reads what the picture resembles.  The index corner is what a player
    reads, and it differs far less between designs than the rest of the card; a
    classifier shown only the corners has nothing else to learn from.
    """
    n, h, w = crops_bgr.shape[:3]
    cw, ch = int(round(w * CORNER_SHARE[0])), int(round(h * CORNER_SHARE[1]))
    turned = crops_bgr[:, ::-1, ::-1]
    views = np.concatenate([crops_bgr[:, :ch, :cw], turned[:, :ch, :cw]])
    interp = cv2.INTER_AREA if ch > size else cv2.INTER_LINEAR
    return np.stack([cv2.resize(np.ascontiguousarray(v), (size, size), interpolation=interp) for v in views])
