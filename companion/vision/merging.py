"""One deck in a photo: one card named twice in one place becomes one detection, and a name held twice
goes to the likelier holder (:func:`one_of_each`, photos only, where ``ONE_DECK`` says).

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

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from companion.boxes import box_area, inside_share
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


def drop_faint_twins(detections: list[Detection], threshold: float, iou_min: float,
                     inside_min: float = 0.9) -> list[Detection]:
    """``detections`` without each faint face (the detector scored it under ``threshold``) named as a surer face
    whose box it overlaps by ``iou_min`` or more (IoU), or lies in for ``inside_min`` of its own area or more:
    that card boxed again.  Dropped rather than merged: the surer box keeps its place.

    Why: on the real photos' tune half 7 of main's 20 false detections were such twins (session 84): a faint box
    over half a card, or over a card and its neighbour, named as the card the surer box had named, IoU 0.33-0.49
    with it, under :data:`MERGE_IOU`; merging at 0.3 would have averaged the boxes and moved the surer one off its
    card (session 37)."""
    if not 0.0 < iou_min <= 1.0:
        raise ValueError(f"iou_min must be in (0, 1], got {iou_min!r}")
    sure = [d for d in detections if d.card != "back" and d.detector_confidence >= threshold]
    out = []
    for d in detections:
        if d.card != "back" and d.detector_confidence < threshold:
            box = np.array(d.box, dtype=np.float64)
            twins = [s for s in sure if s.card == d.card]
            if twins and (box_iou(box, np.array([s.box for s in twins])) >= iou_min).any():
                continue
            if any(inside_share(d.box, s.box) >= inside_min for s in twins):
                continue
        out.append(d)
    return out


# A face lying at least this share inside a surer face's box named alike is read as what covers it (rule 210).
NAMESAKE_SHARE = 0.2


def renamed_namesakes(detections: list[Detection], discount: float, share: float = NAMESAKE_SHARE
                      ) -> list[Detection]:
    """``detections`` with each face whose box lies at least ``share`` inside the box of a surer face (higher
    confidence) named alike read again: that name's probability times ``discount``, the face takes its best name
    after that (its name or a runner-up).  A renamed face's confidence is its new name's, its runner-ups the rest,
    the old name among them discounted; a face whose name still leads, and every back, is left as it is.  Decided
    on the names as they come in (a face renamed here does not make another's namesake), best first out.

    Why: a card half under another is often read as the card over it, its corner window or whole-card view seeing
    the neighbour's index (session 119: of 60 covered Spanish faces named with another rank, 25 took the exact name
    of a card over them, 2.7 by chance).  Unlike :func:`one_of_each` this asks only about the card over it, and
    keeps the name where the reading is sure enough to hold it against ``discount`` (a second deck, a misread box
    above it).  Measured on Spanish photos (session 120, ``discount`` 0.2, ``share`` 0.2): every fresh seed up,
    +0.0023 to +0.0044 mAP50, mean +0.0034, under the +0.004 a change needs to ship (rules 210, 213); French photos
    gain nothing (rule 211): their faces named alike are merged from IoU 0.3 first.  An option
    (``CardDetector(namesake_discount=...)``, ``evaluate --namesake-discount``), off."""
    if not 0.0 < discount < 1.0:
        raise ValueError(f"discount must be in (0, 1), got {discount!r}")
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share must be in (0, 1], got {share!r}")
    out = []
    for d in detections:
        held = d.card != "back" and any(
            o is not d and o.card == d.card and o.confidence > d.confidence and inside_share(d.box, o.box) >= share
            for o in detections)
        if not held:
            out.append(d)
            continue
        options = sorted([(n, c * discount if n == d.card else c) for n, c in ((d.card, d.confidence),
                                                                              *d.alternatives)],
                         key=lambda option: -option[1])
        name, conf = options[0]
        if name == d.card:
            out.append(d)
            continue
        out.append(renamed(d, name, conf, tuple(options[1:])))
    out.sort(key=lambda d: -d.confidence)
    return out


def renamed(d: Detection, name: str, confidence: float, alternatives: tuple[tuple[str, float], ...]) -> Detection:
    """``d`` given another of its readings: ``name`` at ``confidence`` (detector score times the name's
    probability), the name's probability alone derived from it (at most 1), and ``alternatives`` as its runner-ups;
    the box and the detector's score stay.  What :func:`one_of_each` and :func:`renamed_namesakes` do to a face."""
    dc = d.detector_confidence
    return replace(d, card=name, confidence=confidence,
                   rank_confidence=min(1.0, confidence / dc) if dc > 0 else confidence, alternatives=alternatives)


# A weakly named face (``size_check``) is measured against the faces surer than it named at least this surely.
SIZE_REF_MIN = 0.3
# A weakly named face whose box is under this share of its reference's area, or over that many times it, is not a
# card of that photo: a pip, a letter, a card's corner (the real photos' small false boxes were 0.01-0.08 of a card);
# a loose box around two or three cards (3-6 times a card).  2, not 3 (rule 98, session 85): with faint boxes kept
# at every score (``faint_overlap_from`` 0), loose faint boxes 2-3 times a card were false on the real tune half
# (fr6613 0.6694 -> 0.6660 simulated, real tune 0.108 -> 0.095 false per photo at 252 cards).
SIZE_SMALL = 0.15
SIZE_LARGE = 2.0


def drop_misfit_sizes(detections: list[Detection], below: float, ref_min: float = SIZE_REF_MIN,
                      small: float = SIZE_SMALL, large: float = SIZE_LARGE,
                      spare: Sequence[bool] | None = None) -> list[Detection]:
    """``detections`` without each face named under ``below`` (``rank_confidence``) whose box is under ``small`` or
    over ``large`` times the median area of the faces surer than it (``confidence``) named ``ref_min`` or more.  A
    face with no such surer face is kept: nothing in the photo says how big a card is there; so is one ``spare``
    marks (one bool per detection; None: none).

    Why: a photo's cards are all about one size, and a box far off that size named weakly is clutter.  On the real
    photos' tune half with faces kept from 0.1 (session 85), 39 false detections: 11 boxes of a pip, a letter or a
    corner (0.01-0.08 of a card's area; the detector scored them up to 0.72, so its score does not tell them), and
    loose boxes around a card and its neighbours (3-6 times a card).  The surer faces, not the detector's sure
    boxes, make the reference: a photo of a few cards often has no box the detector is sure of.

    Why the spared: a card half under another is boxed for the part of it in view, small beside the cards in full
    view, and named weakly; this check was the last step to drop 19 of the 600 covered faces (index in view) of
    fr6613's first 300 scenes (``bench/misnamed_cards.py``).  French photos spare them (``size_spares_covered``: the
    detector marks the faces :func:`companion.vision.detector.overlapped_boxes` finds covered;
    rule 134, session 101: mAP50 up on four fresh seeds, the real photos' false detections 0.128 -> 0.132)."""
    if not 0.0 < small < 1.0 < large:
        raise ValueError(f"need 0 < small < 1 < large, got small={small!r}, large={large!r}")

    faces = [d for d in detections if d.card != "back"]
    out = []
    for k, d in enumerate(detections):
        if d.card != "back" and d.rank_confidence < below and not (spare is not None and spare[k]):
            ref = [box_area(s.box) for s in faces
                   if s is not d and s.confidence > d.confidence and s.rank_confidence >= ref_min]
            if ref and not small <= box_area(d.box) / float(np.median(ref)) <= large:
                continue
        out.append(d)
    return out


# A face keeps a name that the likeliest reading of the frame gives another detection only where that costs
# less than this (nats, on top of its own best): where its free runner-ups are all under e^-3 (5 %) of its best
# reading, the table or the user weighs two cards named alike (a second deck, a misread) rather than a guess.
DUPLICATE_COST = 3.0


def one_of_each(detections: list[Detection], duplicate_cost: float = DUPLICATE_COST) -> list[Detection]:
    """``detections`` named as one deck most likely is: each face takes its name or one of its runner-ups so
    that no name is held twice and the names' joint probability is highest (an assignment,
    ``scipy.optimize.linear_sum_assignment`` on -log confidence); a face may keep a name another holds at
    ``duplicate_cost`` more where its box is surely a card, at less the less sure the detector is that it
    is one (without this a stray box, read surely as some card, would take that card's name from the card
    itself: each face takes one name, so the detector's score alone would not count).  A renamed face's
    confidence is its new name's, its old name its first runner-up.  Backs are left as they are.  Surest
    first, as :meth:`CardDetector.detect` sorts.

    Why: a deck holds each card once, and :func:`merge_same_cards` only makes one of boxes named alike that
    overlap.  A card half under another is sometimes named as a card in view nearby (a fifth of the covered
    cards' misreadings on synthetic scenes), its own name among its runner-ups; the card in view, read
    surely, keeps the name at little cost.  An assignment rather than surest-first: a covered card misread
    surely must not take the name from the card that shows it whole (whose runner-ups are all unlikely).
    Off by default (``ONE_DECK``): the gain measured was small."""
    faces = [d for d in detections if d.card != "back"]
    if len({d.card for d in faces}) == len(faces):
        return sorted(detections, key=lambda d: -d.confidence)
    options = [{d.card: d.confidence, **{n: c for n, c in d.alternatives if n != "back" and n != d.card}}
               for d in faces]
    names = sorted({n for o in options for n in o})
    column = {n: j for j, n in enumerate(names)}
    cost = np.full((len(faces), len(names) + len(faces)), 1e9)
    for i, (d, o) in enumerate(zip(faces, options)):
        for n, c in o.items():
            cost[i, column[n]] = -np.log(max(c, 1e-12))
        # a duplicate costs only as far as the box is a card at all (a stray box's name harms nobody)
        sure = min(max(d.detector_confidence, 0.0), 1.0)
        cost[i, len(names) + i] = (-np.log(max(d.confidence, 1e-12))
                                   - np.log((1.0 - sure) + sure * np.exp(-duplicate_cost)))
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    out = [d for d in detections if d.card == "back"]
    for i, j in zip(rows, cols):
        d = faces[i]
        if j < len(names) and names[j] != d.card:
            name = names[j]
            d = renamed(d, name, options[i][name],
                        ((d.card, d.confidence), *(a for a in d.alternatives if a[0] != name)))
        out.append(d)
    out.sort(key=lambda d: -d.confidence)
    return out
