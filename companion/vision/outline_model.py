"""Every card's whole outline, covered cards too, from a small oriented-box model (``card-outlines.onnx``).

Why (session 54): each card is also read turned upright by its outline
(``rectify="blend"``), and an outline under 0.7 IoU with the card's true
rectangle turns it wrong.  The finders of :func:`companion.vision.crops.card_quad`
see only the pixels of one box: two touching cards' paper runs together, and a
card under another shows no straight sides to find.  Every card's true outline in
their place was worth 0.10 mAP50 on a tuning seed; a YOLO26n OBB model taught the
whole rotated rectangle of every card of the rendered scenes (``companion dataset
outlines``, ``python -m companion.training.train outlines``) gives back part of it.

How: one pass over the frame letterboxed to 320 (as the detector reads it),
the model's end-to-end head (its one-to-one branch: no NMS) giving up to 300
rotated rectangles ``(cx, cy, w, h, score, class, angle in radians)``; those at
``conf`` or more are kept, as OpenCV rotated rectangles in the image's pixels.
Each detector box then takes the outline whose own upright box holds at least
``OUTLINE_MIN_COVER`` of it, is at most ``OUTLINE_MAX_GROWTH`` times its area, and
matches it best (:func:`match_outline`); a box none fits is left to the finders.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from companion.vision.onnx_runtime import ModelError, letterbox, session

OUTLINE_MODEL_FILE = "card-outlines.onnx"
OUTLINE_SIZE = 320  # the model's long side when its file does not say (its training size)
OUTLINE_STRIDE = 32
OUTLINE_CONF = 0.1  # the prototype's threshold (session 54)
OUTLINE_MIN_COVER = 0.6  # a box takes an outline whose upright box holds at least this share of it ...
# ... and is at most this many times its area.  Why: on the real photos' tune half (session 55) 15 of the 16
# false detections the outline model added were small boxes (a pip, a corner) that took their whole card's
# outline, 3.2-55 times their area: turned upright by it, the crop shows a whole card and is named one.  On the
# tuning seed's scenes (val108) a box that is a labelled card takes an outline 1.01 (median), 2.23 (99 %) times
# its area.
OUTLINE_MAX_GROWTH = 3.0
# Which boxes read the model's outline (CardDetector's outline_model_for): every box, the boxes another box
# overlaps, the boxes the finders find no outline for, or the boxes the detector is sure of (not its faint
# boxes, which photos keep only when they read as a card: turned upright by a whole card's outline, a faint box
# on part of that card reads as it).
OUTLINE_MODEL_FOR = ("all", "overlapped", "unfound", "sure")

RotatedRect = tuple[tuple[float, float], tuple[float, float], float]  # OpenCV's: centre, size, angle (degrees)


class OutlineModel:
    """The outline model, loaded once; :meth:`rects` per frame, remembered for the last frame asked about
    (the reading asks once per box list, and a frame's boxes may be read in more than one list).

    Raises :class:`ModelError` when the file is missing, corrupt, or not an end-to-end oriented-box export.
    """

    def __init__(self, path: str | Path, threads: int = 2, conf: float = OUTLINE_CONF) -> None:
        if not 0.0 < conf < 1.0:
            raise ValueError(f"conf must be in (0, 1), got {conf!r}")
        self.path = Path(path)
        self.conf = conf
        self.session = session(self.path, threads)
        meta = self.session.get_modelmeta().custom_metadata_map
        if meta.get("task") != "obb" or meta.get("end2end") != "True":
            raise ModelError(f"{self.path} is not an end-to-end oriented-box model (task {meta.get('task')!r}, "
                             f"end2end {meta.get('end2end')!r}); export it with "
                             f"`python -m companion.training.train export`")
        self.input = self.session.get_inputs()[0].name
        shape = self.session.get_inputs()[0].shape
        self.size = int(shape[2]) if isinstance(shape[2], int) else trained_size(meta)
        self.stride = None if isinstance(shape[2], int) else OUTLINE_STRIDE
        self._last: tuple[np.ndarray, list[tuple[RotatedRect, float]]] | None = None

    def rects(self, image_bgr: np.ndarray) -> list[RotatedRect]:
        """The cards' outlines in ``image_bgr`` (BGR), surest first, as OpenCV rotated rectangles."""
        return [rect for rect, _score in self.scored_rects(image_bgr)]

    def scored_rects(self, image_bgr: np.ndarray) -> list[tuple[RotatedRect, float]]:
        """:meth:`rects` each with its score, surest first (the model read once a frame)."""
        if self._last is not None and self._last[0] is image_bgr:
            return self._last[1]
        img, r, (pad_x, pad_y) = letterbox(image_bgr, self.size, self.stride)
        blob = np.ascontiguousarray(img[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255.0
        out = self.session.run(None, {self.input: blob})[0]
        found = decode(out, r, (pad_x, pad_y), self.conf)
        self._last = (image_bgr, found)
        return found


def trained_size(meta: dict[str, str], default: int = OUTLINE_SIZE) -> int:
    """The long side a dynamic-input export was trained at, from its ``imgsz`` metadata (ultralytics writes
    ``"[320, 320]"``), else ``default``.  Why: read at another size than its training one, the model
    outlines worse (rule 84: the 320 model read at 480 or 640 gained nothing), so a model trained at a larger
    input must be read at that size, and its file is what knows it."""
    digits = [int(part) for part in meta.get("imgsz", "").strip("[]() ").split(",") if part.strip().isdigit()]
    return max(digits) if digits else default


def decode(out: np.ndarray, r: float, pad: tuple[float, float], conf: float) -> list[tuple[RotatedRect, float]]:
    """The end-to-end head's rows ``(cx, cy, w, h, score, class, angle in radians)`` in the letterboxed view
    (shrunk by ``r``, shifted by ``pad``) as OpenCV rotated rectangles in the image's pixels (angle in degrees)
    with their scores, those scored ``conf`` or more, surest first.  Raises :class:`ModelError` for any other
    shape."""
    pred = out[0] if out.ndim == 3 else out
    if pred.ndim != 2 or pred.shape[-1] != 7:
        raise ModelError(f"unexpected outline model output shape {out.shape}; expected (1, N, 7)")
    pred = pred[pred[:, 4] >= conf]
    pred = pred[np.argsort(-pred[:, 4], kind="stable")]
    return [((((float(x) - pad[0]) / r, (float(y) - pad[1]) / r), (float(w) / r, float(h) / r), math.degrees(a)),
             float(score)) for x, y, w, h, score, _cls, a in pred]


def _fits(rects: list[RotatedRect], box: tuple[float, float, float, float], min_cover: float,
          max_growth: float) -> list[tuple[float, int]]:
    """(IoU of the upright boxes, index) of each outline in ``rects`` that may be ``box``'s card."""
    x1, y1, x2, y2 = box
    area = max(1e-6, (x2 - x1) * (y2 - y1))
    out = []
    for j, rect in enumerate(rects):
        pts = cv2.boxPoints(rect)
        a1, b1 = pts.min(axis=0)
        a2, b2 = pts.max(axis=0)
        inter = max(0.0, min(x2, a2) - max(x1, a1)) * max(0.0, min(y2, b2) - max(y1, b1))
        iou = inter / (area + (a2 - a1) * (b2 - b1) - inter)
        if inter / area >= min_cover and (a2 - a1) * (b2 - b1) <= max_growth * area:
            out.append((float(iou), j))
    return out


def outline_fits(rects: list[RotatedRect], box: tuple[float, float, float, float]) -> list[tuple[float, int]]:
    """(IoU, index) of each outline in ``rects`` that may be ``box``'s card, by :func:`match_outline`'s test."""
    return _fits(rects, box, OUTLINE_MIN_COVER, OUTLINE_MAX_GROWTH)


def match_outline(rects: list[RotatedRect], box: tuple[float, float, float, float],
                  min_cover: float = OUTLINE_MIN_COVER, max_growth: float = OUTLINE_MAX_GROWTH) -> RotatedRect | None:
    """The outline in ``rects`` whose own upright bounding box holds at least ``min_cover`` of the detector's
    ``box`` (x1, y1, x2, y2), is at most ``max_growth`` times its area, and overlaps it best (IoU of the two
    upright boxes); None when none does.

    Why not the best IoU alone: a card under another is boxed by the detector only where it shows, and
    its whole outline's upright box is bigger than that box; holding most of the box, the outline is the
    same card's (session 54's prototype: 0.6)."""
    return _best(rects, _fits(rects, box, min_cover, max_growth))


def _best(rects: list[RotatedRect], fits: list[tuple[float, int]]) -> RotatedRect | None:
    """The outline of ``fits`` with the best IoU, the surer one (``rects`` come surest first) of a tie."""
    return rects[max(fits, key=lambda f: (f[0], -f[1]))[1]] if fits else None


def match_outlines(rects: list[RotatedRect], boxes: list[tuple[float, float, float, float]],
                   min_cover: float = OUTLINE_MIN_COVER, max_growth: float = OUTLINE_MAX_GROWTH,
                   exclusive: bool = True) -> list[RotatedRect | None]:
    """:func:`match_outline` for each of ``boxes``; ``exclusive``: each outline goes to one box only, the one
    it fits best (pairs taken by IoU, best first), and a box whose outlines all went to others gets None.

    Why: one outline is one card.  Two boxes given the same outline are read, turned upright by it, as the
    same whole card, and one of them is a false detection (a pip's or a corner's box inside a card, a second
    box on a card half under another)."""
    fits = [_fits(rects, tuple(b), min_cover, max_growth) for b in boxes]
    if not exclusive:
        return [_best(rects, f) for f in fits]
    # best IoU first; of a tie, the first box and the surer outline
    pairs = sorted(((iou, -i, -j) for i, f in enumerate(fits) for iou, j in f), reverse=True)
    out: list[RotatedRect | None] = [None] * len(boxes)
    taken: set[int] = set()
    for _iou, neg_i, neg_j in pairs:
        if out[-neg_i] is None and -neg_j not in taken:
            out[-neg_i] = rects[-neg_j]
            taken.add(-neg_j)
    return out
