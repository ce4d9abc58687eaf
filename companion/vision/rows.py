"""A box around a row of overlapping cards, split into the cards it holds.

Why: in a photo of cards laid in a row, each card covering most of the one
before it (a hand put down, a run of tricks), the detector often draws one
loose box around the whole row.  That box matches none of the cards, and the
cards under the top one are missed: 41 of the 107 real French cards missed in
session 17 lay inside such a box (``../shared/real-photos/french-dev``, whose
labels box each covered card's visible strip).  Or the detector boxes the top
card alone, and the one under it shows only a strip with no box.

How: a box at least ``MIN_ROW`` card widths wide (a card's width taken as
``ROW_ASPECT`` times the box's height: upright cards side by side) is tried as
a row with the top card at either end.  The top card is the end of the box one
card wide, read whole; the rest is cut into 1 to ``MAX_STRIPS`` equal strips,
each the visible edge of a card that reaches on under its neighbour, read by its
one visible index corner alone (the top-left corner of a card reaching right,
the bottom-right one of a card reaching left).  A way of cutting is kept only
when every part is read surely (``END_MIN_PROB``, ``STRIP_MIN_PROB``) and no
two parts are read as the same card (one deck holds each card once: a single
card in a wide box, cut into strips, reads as itself again); the surest of
those wins.  Boxes that no cutting reads surely stay as they are.

A lone card's box gets the same look on its two sides (``beside``): a card
half under it, that the detector did not box at all, shows a strip there
(``BESIDE_SHARES`` of a card's width; the strip mostly paper, ``STRIP_PAPER``,
and clear of every other box), read by its one index corner the same way; a
side's surest reading other than the lone card's own name is kept at
``STRIP_MIN_PROB`` when no other box in the picture names that card.

This module holds the geometry and the choice; the reading is
:meth:`companion.vision.detector.CardDetector.split_rows`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.crops import box_iou

ROW_ASPECT = 0.65  # a card's width over the row box's height (chosen on the real photos' tune half, 0.6-0.75)
MIN_ROW = 1.3  # a box at least this many card widths wide may be a row
MAX_STRIPS = 3  # cards under the top one, at most
MIN_STRIP = 0.12  # a strip at least this share of a card's width (narrower ones show no index)
END_MIN_PROB = 0.6  # the top card read at least this surely ...
STRIP_MIN_PROB = 0.8  # ... and each strip's index corner at least this surely

BESIDE_SHARES = (0.2, 0.3, 0.4, 0.5)  # a strip beside a lone card: these shares of its width are tried
LONE_ASPECT = (0.55, 0.85)  # a lone upright card's box: its width over its height within these
STRIP_PAPER = 0.3  # a strip beside a lone card is at least this share paper (crops.paper_share)
CLEAR = 0.2  # ... and overlaps no other box more than this (IoU), nor lies across one's middle

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Cutting:
    """One way to cut a row box: the top card at one end (``end``), the rest in ``strips``.

    ``reaching``: the box each strip's card would have if it lay whole, reaching on under its
    neighbour (its index corner is where a whole card's is); ``corner``: which index corner of that
    box the strip shows, 0 top-left (the top card on the right), 1 bottom-right (on the left).
    """

    end: Box
    strips: tuple[Box, ...]
    reaching: tuple[Box, ...]
    corner: int


def cuttings(box: Box, image_width: float, aspect: float | None = None) -> list[Cutting]:
    """Every way to cut ``box`` as a row of upright cards (each ``aspect`` times the box's height wide,
    default ``ROW_ASPECT``), or none when it is too narrow to hold two."""
    aspect = ROW_ASPECT if aspect is None else aspect
    x1, y1, x2, y2 = box
    width = aspect * (y2 - y1)
    if width <= 0 or x2 - x1 < MIN_ROW * width:
        return []
    out = []
    for corner in (0, 1):
        end = (x2 - width, y1, x2, y2) if corner == 0 else (x1, y1, x1 + width, y2)
        left, right = (x1, x2 - width) if corner == 0 else (x1 + width, x2)
        for k in range(1, MAX_STRIPS + 1):
            step = (right - left) / k
            if step < MIN_STRIP * width:
                break
            strips = tuple((left + i * step, y1, left + (i + 1) * step, y2) for i in range(k))
            if corner == 0:
                reaching = tuple((s[0], y1, min(image_width, s[0] + width), y2) for s in strips)
            else:
                reaching = tuple((max(0.0, s[2] - width), y1, s[2], y2) for s in strips)
            out.append(Cutting(end, strips, reaching, corner))
    return out


def strips_sure(reads: list[tuple[str, float]]) -> bool:
    """Whether a cutting's strips (each's best face reading) can be cards of one row: each read
    surely, none twice.  Checked before the top card is read, which costs far more."""
    names = [n for n, _ in reads]
    return all(p >= STRIP_MIN_PROB for _, p in reads) and len(set(names)) == len(names)


def choose(cuts: list[Cutting], end_reads: dict[Box, tuple[str, float]],
           strip_reads: list[list[tuple[str, float]]]) -> int | None:
    """The index of the cutting to keep, or None.

    ``end_reads``: each end box's best reading (name, probability); ``strip_reads[i]``: cutting i's
    strips' best face readings.  Kept: every part sure enough, the top card a face, no card twice;
    among those the surest on average, the one with fewer strips on a tie.
    """
    best, best_key = None, None
    for i, (cut, strips) in enumerate(zip(cuts, strip_reads)):
        name, prob = end_reads[cut.end]
        if name == "back" or prob < END_MIN_PROB or not strips_sure(strips) or any(n == name for n, _ in strips):
            continue
        key = (sum(p for _, p in strips) + prob) / (len(strips) + 1), -len(strips)
        if best_key is None or key > best_key:
            best, best_key = i, key
    return best


@dataclass(frozen=True)
class Beside:
    """A strip beside a lone card's box where a card under it may show: ``strip``, the box the card
    would have if it lay whole (``reaching``, under the top card) and the index ``corner`` the strip
    shows (0 top-left: the strip on the left; 1 bottom-right: on the right)."""

    strip: Box
    reaching: Box
    corner: int


def lone_card(box: Box) -> bool:
    """Whether ``box`` has the shape of one upright card's (``LONE_ASPECT``)."""
    w, h = box[2] - box[0], box[3] - box[1]
    return h > 0 and LONE_ASPECT[0] <= w / h <= LONE_ASPECT[1]


def beside(box: Box, image_width: float, others: list[Box]) -> list[Beside]:
    """The strips worth reading beside ``box`` (a lone upright card's, else none): each share of
    ``BESIDE_SHARES`` on each side, inside the image and clear of the ``others`` boxes."""
    if not lone_card(box):
        return []
    x1, y1, x2, y2 = box
    w = x2 - x1
    out = []
    for corner in (0, 1):
        for share in BESIDE_SHARES:
            strip = (x1 - share * w, y1, x1, y2) if corner == 0 else (x2, y1, x2 + share * w, y2)
            if strip[0] < 0 or strip[2] > image_width or not _clear(strip, others):
                continue
            reaching = (strip[0], y1, strip[0] + w, y2) if corner == 0 else (strip[2] - w, y1, strip[2], y2)
            out.append(Beside(strip, reaching, corner))
    return out


def _clear(strip: Box, others: list[Box]) -> bool:
    """Whether ``strip`` overlaps none of ``others`` more than ``CLEAR`` and lies across none's middle
    (its centre inside one): a card boxed there already."""
    if not others:
        return True
    cx, cy = (strip[0] + strip[2]) / 2, (strip[1] + strip[3]) / 2
    boxes = np.asarray(others, dtype=float).reshape(-1, 4)
    across = (boxes[:, 0] <= cx) & (cx <= boxes[:, 2]) & (boxes[:, 1] <= cy) & (cy <= boxes[:, 3])
    return not ((box_iou(np.asarray(strip, dtype=float), boxes) > CLEAR) | across).any()
