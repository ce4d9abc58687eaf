"""Find cards in a camera frame: which lie face up (rank and suit), which face down.

Two to four ONNX models run under onnxruntime (no torch at run time):

1. ``card-detector.onnx``: YOLO26n, 2 classes (0 face-up card, 1 back),
   whole-card boxes, family-agnostic, input 320x320 letterboxed;
   ``card-detector-<family>.onnx`` (optional) takes its place for that family's cards, and
   ``card-detector-<family>-photo.onnx`` (optional) in the photo settings (see :func:`shipped_detector`);
2. ``card-classifier-<family>.onnx``: YOLO26n-cls on the card's box squashed to
   96x96 (see :func:`companion.vision.crops.crop_card`), one class per card in
   TABLE-LOG notation;
3. ``card-corners-<family>.onnx`` (optional; both families ship one, Spanish since session 61): the same classes
   read from the crop's two index corners at 64x64 (see
   :func:`companion.vision.crops.corner_views`), mixed into the whole card's reading;
   ``card-corners-<family>-photo.onnx`` (optional) takes its place in the photo settings.
4. ``card-bands-<family>-photo.onnx`` (optional, photos only): the corner model's classes read from
   the crop's top and bottom bands (:func:`companion.vision.crops.band_views`), where a deck prints
   rank and suit side by side.

How much each reading counts, and every other tuned number, lives in :mod:`companion.vision.settings`
with the measurement that chose it; :func:`companion.vision.settings.photo_settings` gives the photos'.

Detect-then-classify was chosen because a from-scratch detector with 53
classes learns far too slowly on 2 CPU cores; a 2-class detector plus a small
crop classifier learns in hours (see models/README.md).

    det = CardDetector("french")
    for d in det.detect(frame_bgr):
        print(d.card, d.confidence, d.box)
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from companion.boxes import box_area, inside_share, scaled_box
from companion.paths import models_dir as default_models_dir
from companion.vision.crops import (BAND, CORNER, CROP, HIDDEN, band_views, box_iou, card_quad, corner_views,
                                    crop_card, edge_grown_frame, paper_box, paper_reach, paper_share, rectified_crop,
                                    side_views, top_left_views)
from companion.vision.crops import quad_methods as quad_methods_of  # (its own name: the argument is quad_methods)
from companion.vision.fusion import PAIRINGS, fuse_readings, mirror_boxes, turn_boxes
from companion.vision.merging import (NAMESAKE_SHARE, SIZE_LARGE, SIZE_REF_MIN, SIZE_SMALL, drop_faint_twins,
                                      drop_misfit_sizes, merge_same_cards, one_of_each, renamed_namesakes)
from companion.vision.rescoring import Rescorer, rescorer_file, with_confidences
# (ModelError and letterbox are imported from here too)
from companion.vision.onnx_runtime import ModelError, letterbox, session as _session
from companion.vision.outline_model import (OUTLINE_MODEL_FILE, OUTLINE_MODEL_FOR, OutlineModel, RotatedRect,
                                           match_outlines, outline_fits, trained_size)
from companion.vision.outlines import outline_boxes
from companion.vision.rows import STRIP_MIN_PROB, STRIP_PAPER, Cutting, beside, choose, cuttings, lone_card, strips_sure
from companion.vision.settings import (BACK_CLASS, BACK_WEIGHT, CARD_SHORT_OVER_LONG, CORNER_SHIFTS, CORNER_WEIGHT,
                                       DETECTOR_MIN_SIDE, DETECTOR_SIZE, DETECTOR_STRIDE, FAINT_CLASS, FAINT_HOLDER,
                                       FAINTEST_MIN_PROB,
                                       FAINT_HOLDS_AREA, FAINT_HOLDS_INSIDE, FAINT_MAX, FAINT_MIN_PROB, FAMILY_VIEWS,
                                       FOUND_BY_DETECTOR, FOUND_BY_OUTLINE, HIDDEN_MODE, HIDDEN_MODES,
                                       ONE_WINDOW, OUTLINE_CLASS, OUTLINE_MIN_PROB, OUTLINE_SCORE, OUTLINED_SCORE,
                                       OVERLAP_MIN, PAPER_ROWS, RANK_FLOOR, RANK_WEIGHT, RECTIFY, RECTIFY_MODES,
                                       ROW_REACH, SUIT_CORNER_WEIGHT, TABLE_CONF, VIEW_OVERLAP, WHOLE_RANK_SURE,
                                       ZOOM_SMALL)

DETECTOR_FILE = "card-detector.onnx"
FAMILIES = ("french", "spanish")
# which cards turned upright the whole-card classifier also reads so (``CardDetector(whole_upright=...)``)
WHOLE_UPRIGHT = ("none", "overlapped", "all")


def detector_file(family: str, photo: bool = False) -> str:
    """A family's own detector file: the shared detector continued on that family's scenes alone; ``photo``: the
    one the photo settings read."""
    return f"card-detector-{family}-photo.onnx" if photo else f"card-detector-{family}.onnx"


def shipped_detector(models: Path, family: str, photo: bool = False) -> Path:
    """The detector ``family``'s cards are boxed with: with ``photo``, ``family``'s photo detector where one is
    shipped in ``models``; else ``family``'s own detector where one is; else the shared ``DETECTOR_FILE``.

    Why: the shared detector saw 700 Spanish scenes of its 4,300 and boxes Spanish cards less often than French
    ones. Session 65's Spanish detector, the shared one continued on Spanish scenes alone, boxed more of the
    synthetic Spanish photos' cards (mAP50 +0.04 to +0.07 on three fresh seeds) but lost a table hand, so it is
    shipped for photos only, as the photo corner models and classifier are; a ``models`` folder without such
    files reads as before."""
    own = shipped_file(models, detector_file, family, photo)
    return own if own.is_file() else models / DETECTOR_FILE


def classifier_file(family: str, photo: bool = False) -> str:
    """The whole-card classifier's file; ``photo``: the one the photo settings read, when shipped."""
    return f"card-classifier-{family}-photo.onnx" if photo else f"card-classifier-{family}.onnx"


def corner_file(family: str, photo: bool = False) -> str:
    """The corner classifier's file; ``photo``: the one the photo settings read, when shipped."""
    return f"card-corners-{family}-photo.onnx" if photo else f"card-corners-{family}.onnx"


def small_detector_file(family: str) -> str:
    """The detector the photo settings read an image's views with where its cards are small (``small_cards``)."""
    return f"card-detector-{family}-photo-small.onnx"


def band_file(family: str) -> str:
    """The band model's file (photos only; see ``BAND_WEIGHT``)."""
    return f"card-bands-{family}-photo.onnx"


def gate_file(family: str) -> str:
    """The photo gate's file: a two-class classifier (``card``, ``other``) of the whole-card crop (``gate_max``)."""
    return f"card-gate-{family}-photo.onnx"


def outline_file(family: str, photo: bool = False) -> str:
    """The outline model's file: the table's (``OUTLINE_MODEL_FILE``, one for both families); ``photo``: the one a
    family's photo settings read, when shipped.  Why a family's own: the table's learned French scenes alone, and
    most Spanish covered cards misread in photos were turned upright by an outline far from the card's (session 81)."""
    return f"card-outlines-{family}-photo.onnx" if photo else OUTLINE_MODEL_FILE


def shipped_file(models: Path, name_for: Callable[..., str], family: str, photo: bool) -> Path:
    """``name_for(family, photo=True)`` in ``models`` when ``photo`` and that file is shipped, else the table's
    ``name_for(family)``: the photo settings read their own corner model and classifier where they exist."""
    path = models / name_for(family, photo=True)
    return path if photo and path.is_file() else models / name_for(family)


class ImageError(RuntimeError):
    """An input image is missing or cannot be decoded."""


@dataclass(frozen=True)
class Detection:
    """One card found in a frame.

    ``card``: TABLE-LOG notation ("QH", "10D", "7E") or "back";
    ``confidence``: detector score times classifier probability, in [0, 1];
    ``box``: (x1, y1, x2, y2) pixels of the whole card in the input image (of the strip that shows, for a
    card under another in a row: :meth:`CardDetector.split_rows`);
    ``rank_confidence``: classifier probability alone (1.0 for backs);
    ``detector_confidence``: the detector's score alone (a card is there, whatever it is);
    ``alternatives``: the classifier's next readings of the same card, as (card, confidence), best first
    (for a back: its likeliest faces, for where the rules forbid a face-down card);
    ``outline``: the outline model's score of the surest card outline that fits this box (0.0: none fits;
    None: the model was not read, as for photos).  Why: a patterned cloth's square can look like a card's
    back to the detector and the classifier alike, but the outline model outlines no card there (session 67:
    a chequered cloth's phantom backs had no outline in 391 of 423 sampled detections, a normal session's
    backs one in 50, and 43 at 0.5 or more), so the table can tell a back from the cloth
    (:mod:`companion.table.tracker`).
    ``found_by``: "detector", or "outline" for a card outline no detector box covered (the outline finders',
    or the outline model's: :meth:`CardDetector.find_boxes`), and for the cards a row cut from such a box: the
    table drops such a face where the outline model outlines no card (a checked cloth's squares, session 70).
    """

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    rank_confidence: float = 1.0
    detector_confidence: float = 1.0
    alternatives: tuple[tuple[str, float], ...] = ()
    outline: float | None = None
    found_by: str = FOUND_BY_DETECTOR

    def to_dict(self) -> dict:
        return {"card": self.card, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box]}


def _view_model(path: Path, threads: int, cls_names: dict[int, str], cls_path: Path, size: int
                ) -> tuple[object, int | None, str, int, int | None]:
    """A model that names a card from a view of part of it (the index corners, the index bands): its session,
    its ``HIDDEN`` class (None without one), its input's name, its view size (``size`` for a dynamic input) and
    its fixed batch (None: any).  Its classes must be the whole-card classifier's (``cls_names``, read from
    ``cls_path``), with ``HIDDEN`` last or not at all: the readings are mixed class by class.  Raises
    :class:`ModelError` otherwise."""
    session = _session(path, threads)
    names = _names(session)
    hidden = None
    if names == {**cls_names, len(cls_names): HIDDEN}:
        hidden = len(cls_names)
    elif names != cls_names:
        raise ModelError(f"{path.name} names other classes than {cls_path.name}")
    shape = session.get_inputs()[0].shape
    return (session, hidden, session.get_inputs()[0].name, int(shape[2]) if isinstance(shape[2], int) else size,
            shape[0] if isinstance(shape[0], int) else None)


def _names(session) -> dict[int, str]:
    meta = session.get_modelmeta().custom_metadata_map
    if "names" not in meta:
        raise ModelError("model has no class names in its metadata (not an ultralytics export?)")
    try:
        return {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}
    except (ValueError, SyntaxError) as exc:
        raise ModelError(f"unreadable class names in model metadata: {exc}") from None


def mix_readings(whole: np.ndarray, corners: np.ndarray, weight: float) -> np.ndarray:
    """The whole card's and the corners' probabilities mixed as a weighted geometric mean, renormalised.

    Why geometric: where the two agree the mixed reading stays as sure as
    either, where they disagree it drops; an arithmetic mean halves every
    confident reading the other model doubts less sharply, so more cards fall
    under the table's "apply at once" thresholds and wait (measured on 951
    held-back crops, weight 0.5: arithmetic puts 26 % of the crops at p >= 0.8,
    geometric 44 %, both then right 99-100 % of the time).
    """
    if weight <= 0.0:
        return whole
    logp = (1.0 - weight) * np.log(np.maximum(whole, 1e-9)) + weight * np.log(np.maximum(corners, 1e-9))
    logp -= logp.max(axis=1, keepdims=True)
    mixed = np.exp(logp)
    return mixed / mixed.sum(axis=1, keepdims=True)


def _leaning(probs: np.ndarray, log_factor: np.ndarray) -> np.ndarray:
    """``probs`` (N x classes) times ``exp(log_factor)`` (N x classes), renormalised: a reading leaning on
    another look at the card (its side corners' rank or suit, spread over the classes and raised to a weight)."""
    logp = np.log(np.maximum(probs, 1e-12)) + log_factor
    logp -= logp.max(axis=1, keepdims=True)
    out = np.exp(logp)
    return out / out.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class CardParts:
    """Which rank and which suit each class is: ``ranks`` (classes x ranks) and ``suits`` (classes x suits)
    one-hot matrices, ``back`` the back class's index or None.  Built once per classifier from its names
    (TABLE-LOG notation: the suit is the last letter)."""

    ranks: np.ndarray
    suits: np.ndarray
    back: int | None

    @classmethod
    def from_names(cls, names: dict[int, str]) -> "CardParts":
        n = len(names)
        faces = [i for i in range(n) if names[i] != "back"]
        rank_names = sorted({names[i][:-1] for i in faces})
        suit_names = sorted({names[i][-1] for i in faces})
        ranks, suits = np.zeros((n, len(rank_names))), np.zeros((n, len(suit_names)))
        for i in faces:
            ranks[i, rank_names.index(names[i][:-1])] = 1.0
            suits[i, suit_names.index(names[i][-1])] = 1.0
        back = next((i for i in range(n) if names[i] == "back"), None)
        return cls(ranks, suits, back)


def _faces_only(p: np.ndarray, parts: CardParts) -> np.ndarray:
    """Readings ``p`` given that the cards are faces: the back's share dropped, the rest renormalised."""
    q = p.copy()
    if parts.back is not None:
        q[:, parts.back] = 0.0
    return q / np.maximum(q.sum(axis=1, keepdims=True), 1e-12)


def _softmax_faces(logf: np.ndarray, parts: CardParts) -> np.ndarray:
    """Log-readings of N cards as probabilities over the faces (the back's class at 0)."""
    logf = logf.copy()
    if parts.back is not None:
        logf[:, parts.back] = -np.inf
    logf -= logf.max(axis=1, keepdims=True)
    faces = np.exp(logf)
    return faces / faces.sum(axis=1, keepdims=True)


def split_faces(p: np.ndarray, parts: CardParts) -> tuple[np.ndarray, np.ndarray]:
    """The rank and the suit distributions (N x ranks, N x suits) of readings ``p`` given that the cards are
    faces (the back's share dropped, the rest renormalised)."""
    q = _faces_only(p, parts)
    return q @ parts.ranks, q @ parts.suits


def mix_by_parts(whole: np.ndarray, corners: np.ndarray, parts: CardParts, weight: float,
                 rank_weight: float, back_weight: float | None = None, rank_floor: float = 0.0,
                 whole_rank_sure: float = 0.0, joint_weight: float = 0.0) -> np.ndarray:
    """Like :func:`mix_readings`, but the rank, the suit and face-or-back are mixed apart: the corners
    count ``rank_weight`` in the rank, ``weight`` in the suit, ``back_weight`` (default ``weight``)
    in whether the card is a back.  ``rank_floor`` (0..1) mixes each model's rank distribution with that
    share of a uniform one first, so that neither model's near-zero can veto a rank the other reads surely.
    ``whole_rank_sure``: a card whose whole-card rank reading is below this at its likeliest rank takes its
    rank from the corners alone (see ``WHOLE_RANK_SURE``).  ``joint_weight`` (0..1): the share of the two
    readings' faces mixed whole (rank and suit together, floored like the rank) in a weighted geometric mean
    with the parts' product, so that a card neither reading holds likely (a covered card's suit with the rank
    of the index beside it) is not made up of the parts alone.  A mean, not an added term: an added term made
    every reading surer.  0 (the default): the product only.

    Each reading's faces are split into a rank and a suit distribution (their
    sums over the classes of that rank, of that suit), each part is mixed as a
    weighted geometric mean, and a face's probability is its rank's times its
    suit's.  Why: what each model reads well differs.  The index letter is the
    same on every design, so the corner model's rank holds on an unseen deck;
    the whole card sees the big pips, so its suit does.  Measured on the held-back
    ``tango_nuevo`` (one index, suit sign top right, one huge pip): whole-card rank
    21 %, suit 94 %; corners rank 97 %, suit 75 % (cards at the table, turned
    upright).  One mix of whole cards lets the whole card's wrong rank pull the
    corners' right one down (72 % of its cards right in ``evaluate designs``, 94 % mixed
    by parts).
    """
    eps = 1e-9

    def log_mean(a: np.ndarray, b: np.ndarray, w: float | np.ndarray) -> np.ndarray:
        """log of the weighted geometric mean of the whole card's ``a`` and the corners' ``b``."""
        return (1 - w) * np.log(a + eps) + w * np.log(b + eps)

    rank_w, suit_w = split_faces(whole, parts)
    rank_c, suit_c = split_faces(corners, parts)
    # the corners alone name the rank where the whole card is unsure of it
    rank_share = np.where(rank_w.max(axis=1, keepdims=True) >= whole_rank_sure, rank_weight, 1.0)
    if rank_floor > 0.0:
        uniform = rank_floor / parts.ranks.shape[1]
        rank_w = (1.0 - rank_floor) * rank_w + uniform
        rank_c = (1.0 - rank_floor) * rank_c + uniform
    log_rank = log_mean(rank_w, rank_c, rank_share)
    log_suit = log_mean(suit_w, suit_c, weight)
    logf = log_rank @ parts.ranks.T + log_suit @ parts.suits.T
    if joint_weight > 0.0:
        n_faces = parts.ranks.sum()
        joint_w, joint_c = (_faces_only(p, parts) * (1.0 - rank_floor) + rank_floor / n_faces
                            for p in (whole, corners))
        logf = (1.0 - joint_weight) * logf + joint_weight * log_mean(joint_w, joint_c, rank_share)
    faces = _softmax_faces(logf, parts)
    if parts.back is None:
        return faces
    b = parts.back
    bw = weight if back_weight is None else back_weight
    log_back = log_mean(whole[:, b], corners[:, b], bw)
    log_face = log_mean(1 - whole[:, b], 1 - corners[:, b], bw)
    p_back = 1.0 / (1.0 + np.exp(log_face - log_back))
    out = faces * (1.0 - p_back)[:, None]
    out[:, b] = p_back
    return out


def corners_for_faces(first: np.ndarray, second: np.ndarray, back: int | None,
                      seen: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The two index corners' readings of N cards as one.

    A back only as far as *both* corners look like one (the smaller p(back)); the
    faces share the rest, each corner counting as much as it looks like a face's
    index (1 - its p(back)).

    Why: an index corner cannot tell a back from a face whose corner is bare.
    A minimalist deck (the held-back ``tango_nuevo``) prints its index in one
    corner only and fills the card with one huge pip; the other corner, a blank
    with a coloured blob, was read as a back at p 0.7-0.99, and averaged with
    the corner that shows the rank it drowned it.  A real back shows its
    pattern in both corners.  On a deck with two indices both corners look like
    faces and count alike, as the plain average did.

    ``seen``: for a corner model with a ``HIDDEN`` class, how far each corner is
    *not* read as hidden under another card (N each; ``first`` and ``second`` then
    the readings without that class, renormalised, :func:`without_hidden`).  A
    corner counts in the faces only as far as it is seen, and says nothing about
    the back where it is hidden (the other corner's reading stands in for it):
    what a window shows over a covered index is the card above.  All ones is the
    function without ``seen``.  ``back`` None (a model without a back class): the
    corners averaged, each as far as it is seen.
    """
    n = len(first)
    b1, b2 = (np.zeros((n, 1)), np.zeros((n, 1))) if back is None else (first[:, back:back + 1],
                                                                        second[:, back:back + 1])
    # (a floor: with both corners hidden they count alike, as without ``seen``)
    v1, v2 = (np.ones_like(b1), np.ones_like(b2)) if seen is None else (
        np.maximum(seen[0], 1e-3)[:, None], np.maximum(seen[1], 1e-3)[:, None])
    w1 = v1 * (1.0 - b1)
    w2 = v2 * (1.0 - b2)
    faces = (w1 * first + w2 * second) / np.maximum(w1 + w2, 1e-6)
    if back is None:
        return faces
    faces[:, back] = 0.0
    faces /= np.maximum(faces.sum(axis=1, keepdims=True), 1e-12)
    is_back = np.minimum(v1 * b1 + (1.0 - v1) * b2, v2 * b2 + (1.0 - v2) * b1)
    faces *= 1.0 - is_back
    faces[:, back] = is_back[:, 0]
    return faces


def without_hidden(p: np.ndarray, hidden: int | None, renormalise: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A corner model's readings (N x its classes) as readings of the card classes alone, and how far each is
    not ``HIDDEN`` (N; ones for a model without the class, ``hidden`` None).  The hidden share is the last
    class (the corner model's names are the card classifier's, then ``HIDDEN``); ``renormalise`` False leaves
    the rest as it was, so that a window read as hidden reads weakly as every card."""
    if hidden is None:
        return p, np.ones(len(p))
    rest = np.delete(p, hidden, axis=1)
    seen = np.clip(1.0 - p[:, hidden], 0.0, 1.0)
    if renormalise:
        rest = rest / np.maximum(rest.sum(axis=1, keepdims=True), 1e-12)
    return rest, seen


def _run_batch(session, name: str, fixed: int | None, images_bgr: np.ndarray) -> np.ndarray:
    """A classifier's probabilities for BGR images (N x classes); one call, or one per image for a fixed-batch export."""
    blob = np.ascontiguousarray(images_bgr[:, :, :, ::-1].transpose(0, 3, 1, 2)).astype(np.float32) / 255.0
    if fixed is not None:
        return np.concatenate([session.run(None, {name: blob[i:i + 1]})[0] for i in range(len(blob))])
    return session.run(None, {name: blob})[0]


def _box_crops(image_bgr: np.ndarray, boxes, size: int) -> tuple[list[int], np.ndarray | None]:
    """Which of ``boxes`` :func:`crop_card` can cut a crop of (at ``size``), and those crops stacked (None: none)."""
    crops = [crop_card(image_bgr, tuple(b), size) for b in boxes]
    ok = [i for i, c in enumerate(crops) if c is not None]
    return ok, np.stack([crops[i] for i in ok]) if ok else None


def _one_run(read: Callable[[np.ndarray], np.ndarray], views: dict[str, list[np.ndarray]]
             ) -> dict[str, list[np.ndarray]]:
    """``read`` (one model's run over a batch of views, as :meth:`CardDetector.window_readings`) of every set of
    views in ``views`` at once: the sets concatenated in order, read in one run, and the output split back, each
    name's list of readings matching its list of view sets (a name with no set gets none).

    Why: a frame's crops are read by one model several ways (the corner model reads the box crops' windows, the
    upright crops', the side windows), each run costs its own overhead on top of the views' (one run of N views
    about 1 ms under two of N / 2, session 116), and a view's reading does not depend on the views batched with it:
    the readings are the same to the bit as read set by set."""
    sets = [v for vs in views.values() for v in vs]
    if not sets:
        return {name: [] for name in views}
    out = iter(np.split(read(sets[0] if len(sets) == 1 else np.concatenate(sets)),
                        np.cumsum([len(v) for v in sets])[:-1]))
    return {name: [next(out) for _ in vs] for name, vs in views.items()}


def _readable_size(size: int, dynamic: bool) -> bool:
    """Whether a detector can be read at input long side ``size``: only one with a dynamic input, at a multiple of
    its largest stride in [128, 1280] (``det_size`` and ``also_size``)."""
    return dynamic and size % DETECTOR_STRIDE == 0 and 128 <= size <= 1280


def _reading_size(session, asked: int | None, what: str, path: Path) -> tuple[int, bool]:
    """The input long side a detector ``session`` (from ``path``) is read at, and whether its input is dynamic: a
    dynamic input at ``asked`` where given (else the size its file says it was trained at), a fixed one at its one
    size.  ``asked`` it cannot take is a ValueError naming the option ``what``."""
    shape = session.get_inputs()[0].shape
    dynamic = not isinstance(shape[2], int)
    if asked is not None and not _readable_size(asked, dynamic):
        raise ValueError(f"{what} must be a multiple of {DETECTOR_STRIDE} in [128, 1280] for a detector with a "
                         f"dynamic input, got {asked!r} for {path.name}")
    if not dynamic:
        return int(shape[2]), False
    return asked or trained_size(session.get_modelmeta().custom_metadata_map, DETECTOR_SIZE), True


def _tighter(box: np.ndarray, outlines: np.ndarray) -> np.ndarray:
    """``box``, or the one outline lying inside it when the box is loose around it (the outline fills
    30-70 % of the box).

    Why: on real photos the detector often boxed a card with a margin of the table around it (a book,
    a plate), and such a box misses the card by the usual IoU >= 0.5; the crop it gives holds the card
    small.  Two outlines inside one box (a fan, a pile) leave the box as it is."""
    if not len(outlines):
        return box
    area = max((box[2] - box[0]) * (box[3] - box[1]), 1e-9)
    inside = [o for o in outlines
              if inside_share(o, box) >= 0.9 and 0.3 <= (o[2] - o[0]) * (o[3] - o[1]) / area <= 0.7]
    return np.asarray(inside[0], dtype=box.dtype) if len(inside) == 1 else box


class CardDetector:
    """Detector + per-family classifier, loaded once, called per frame.

    ``family``: "french" or "spanish" (which classifier names the cards);
    ``models_dir``: folder with the ONNX files (default: the shipped ``models/``);
    ``conf``: minimum detector score; ``threads``: onnxruntime intra-op threads;
    ``tta``: also classify each card upside down and average (see :meth:`classify_crops`);
    ``square``: letterbox every view to the detector's square even when its input is dynamic (by default
    such a detector reads a view padded only to a multiple of its stride: 320x192 for a 720p frame);
    ``deck``: the cards of the variant being played.  Cards outside it (the 8s,
    9s and 10s a Truco deck leaves out) get ``off_deck_prior`` times their
    probability: at a table they are rare, so a reading must be that much surer
    to name one (it still can, and the tracker then flags it as not in the deck).
    ``scales``: the detector also looks at the image shrunk by each factor below 1
    (padded with grey), keeping only the big cards it finds there: the detector
    learned from tables and close-ups where a card rarely fills more than a third
    of the frame, and measured on real photos it missed most cards that fill half
    of it.  ``companion detect`` uses (1.0, 0.65); the table, where cards are small,
    only 1.0 (each extra scale costs one more detector pass).
    ``outlines``: also name the bright card-shaped outlines no detector box covers
    (:mod:`companion.vision.outlines`), kept when named a face at ``outline_min_prob`` or more
    (``companion detect`` and the table both look for them, the table with a lower bar).
    ``corners``: also read the two index corners with ``card-corners-<family>.onnx``
    when the models folder has one, and mix its reading into the whole card's with
    weight ``corner_weight`` (see :func:`companion.vision.crops.corner_views`).
    ``rank_weight``, ``back_weight``: the corners' share in the card's rank and in face-or-back, each
    mixed apart from the suit's ``corner_weight`` (:func:`mix_by_parts`); ``rank_weight`` None mixes
    whole readings with ``corner_weight`` alone (:func:`mix_readings`).  ``whole_rank_sure``: below this
    the whole card's rank reading is left out (``WHOLE_RANK_SURE``; 0 always mixes it).
    ``corner_crop``: cut the corners from a crop of this size instead of the whole
    card's (a big card keeps more of its index letter; None: the same crop).
    ``rectify``: whether the corners are also read from the card turned upright (``RECTIFY``).
    ``quad_methods``: how that card's outline is found, the finders in the order tried
    (:func:`companion.vision.crops.card_quad`; photos: ``PHOTO_QUAD_METHODS``, its sides first; None: the
    module's ``QUAD_METHODS``, the table's).
    ``outline_model``: take that outline from the outline model (``card-outlines.onnx``, when the models
    folder has one and the corners are read turned upright; :mod:`companion.vision.outline_model`), the finders
    only for a box it gives no outline for; ``outline_model_for`` "overlapped": only for the boxes another box
    overlaps (``overlap_min``; the covered cards, whose hidden part no finder sees), the rest by the finders;
    "unfound": only for the boxes the finders find no outline for; "sure": not for the detector's faint boxes
    (``faint_conf``).  ``outline_exclusive``: each of the
    model's outlines goes to one box only, the one it fits best (:func:`match_outlines`).
    ``whole_upright``: also read the whole card from the card turned upright (averaged with the box crop's
    reading) for the boxes another box overlaps ("overlapped") or every box turned upright ("all"); "none": the
    box crop alone, as before session 102.
    ``outline_model_boxes``: also name the outline model's outlines scored this much or more that no box covers
    (:func:`uncovered_outlines`), kept as the finders' outlines are (``outline_min_prob``); None: not (photos).
    ``corner_shifts``: the windows the corners are read from, averaged (``CORNER_SHIFTS``;
    ``ONE_WINDOW`` reads one, as before session 13).
    ``rows``: split a face's box around a row of overlapping cards into the cards it holds
    (:meth:`split_rows`; ``companion detect`` does, the table does not).  ``paper_rows``: a row box is
    also cut shrunk to its rows and columns that are at least this share card paper (``PAPER_ROWS``;
    None: as the detector drew it only).  ``row_reach``: ... and grown over the card paper past its sides, at
    most this many times its width out (``ROW_REACH``; None: not).  ``face_min_prob``: faces named under this
    probability are left out of :meth:`detect` (photos: ``PHOTO_FACE_MIN_PROB``; the table: 0, every reading kept).
    ``merge_iou``: faces named alike whose boxes overlap this much are one card, made one detection
    (:func:`companion.vision.merging.merge_same_cards`; photos: ``MERGE_IOU``; the table: None, not).
    ``one_deck``: no face name held twice where a runner-up can take its place, the frame named as one deck
    most likely is (:func:`companion.vision.merging.one_of_each`; photos: ``ONE_DECK``; the table: not, its
    tracker knows which cards were played).  ``overlap_min``: with ``hidden`` "overlap", a card's box is
    overlapped (its corners weighed by how far each is not hidden) when another box covers this share of it.
    ``photo_corners``: read the corners with ``card-corners-<family>-photo.onnx`` when the models folder has
    one (else the table's file).  Why two: session 37's corner classifier, trained on partly covered cards'
    corners, reads photos better but lost table hands, whose small blurred corners the table's model was
    chosen on (models/README.md); the photo settings take it, the table keeps its own.
    ``photo_classifier``: likewise, read the whole card with ``card-classifier-<family>-photo.onnx`` when the
    models folder has one (else the table's file).  Why: a classifier taught to name a card under another
    (``companion dataset recrop --covered``) reads photos' piles and fans better, but lost real photos or table
    hands where it replaced the table's (sessions 35-37); the photo settings can take it alone.
    ``photo_detector``: likewise, box the cards with ``card-detector-<family>-photo.onnx`` when the models
    folder has one (:func:`shipped_detector`).  Why: session 65's Spanish detector boxed more of the Spanish
    photos' cards and lost a table hand.
    ``photo_outlines``: likewise, take the outlines from ``card-outlines-<family>-photo.onnx`` when the models
    folder has one (:func:`outline_file`; else ``card-outlines.onnx``).  Why: the table's outline model learned
    French scenes alone (session 81).
    ``family_views``: which views that detector reads (``FAMILY_VIEWS``): "all" in place of the shared one; "zoom" the
    zoomed view alone; "added" the image once more after the shared detector's views, adding the boxes no earlier
    box overlaps by more than ``view_overlap`` (see :data:`companion.vision.settings.PHOTO_FAMILY`).
    ``zoom``: also read the image through the detector's input this many times larger (None or 0: not; a
    dynamic input only, a fixed one reads without it), keeping from that view only the boxes with a side under
    ``zoom_small`` of the image's that no other view's box overlaps by more than ``zoom_overlap`` (photos:
    ``PHOTO_ZOOM``; the table: None, not; see :data:`companion.vision.settings.PHOTO_ZOOM`).
    ``view_overlap``: a shrunk view's box overlapping a box of an earlier view by more than this (IoU) is that
    card again and dropped; ``zoom_overlap`` the same for the zoomed view (None: ``view_overlap``), and
    ``faint_overlap`` for a faint box against the surer boxes that can hold it, when the detector scored it at least
    ``faint_overlap_from`` (under it: ``VIEW_OVERLAP`` at most); ``faint_holds``: a faint box that overlaps a surer
    box by more than that and holds most of it is dropped (a box around two cards); ``faint_max``: at most this many
    faint boxes are read, the best scored (``FAINT_MAX``; see :data:`companion.vision.settings.PHOTO_FAMILY`).
    ``edge_crops``: a box the frame cuts is read grown past the frame's edge to a card's shape
    (``CARD_SHORT_OVER_LONG``), the image padded with grey (:func:`companion.vision.crops.edge_grown_frame`), so
    its crop is not a part of a card squashed square; its detection keeps its box.  Off everywhere: the shipped
    classifiers learned cut cards from squashed crops, and read grown ones no better (rule 86, session 82).
    ``outlined_min_prob``: a face named under its floor (``faint_min_prob`` for a faint box, ``face_min_prob`` for
    any) is kept all the same when named this surely or more and the outline model outlines a card that fits its box
    at ``outlined_score`` or more (:meth:`outlined`; None: not, and the outline model is not read for it).  Why: on
    the real photos the weakly named boxes on no card are clutter the outline model outlines no card around, while
    a covered or unseen design's card that the classifier names weakly still has its outline (session 84).
    ``faint_twin_iou``: a faint face named as a surer face whose box it overlaps this much (IoU) or lies in is that
    card boxed again, and dropped (:func:`companion.vision.merging.drop_faint_twins`, after ``merge_iou``; None: not).
    ``size_check``: a face named under this whose box is far smaller or larger than the faces surer than it is
    clutter, and dropped (:func:`companion.vision.merging.drop_misfit_sizes` with ``size_ref_min``, ``size_small``
    and ``size_large``, after ``faint_twin_iou``; None: not); with ``size_spares_covered``, not a face another box
    covers ``overlap_min`` of (a covered card's box holds the part in view: small).
    ``faintest_below``: a faint box the detector scored under this is kept only where the classifier names it a face
    at ``faintest_min_prob`` or more, an outline or not (:meth:`faintest`; None: no such floor).  Why: on the real
    photos the faint boxes scored 0.02-0.04 lay mostly on clutter, while a covered card's faint box is scored
    higher (session 85).
    ``outlined_faint_from``: a faint face named under its floor is kept by an outline (``outlined_min_prob``) only
    when the detector scored it this or more (:meth:`too_faint_to_outline`; None: at any score).  Why: with 16
    faint boxes read, 3 of the real tune half's new false detections were faint boxes scored 0.05-0.06 on clutter
    that an outline backed, named 0.14-0.21.  Off everywhere: rule 100 (session 86) read French photos with it, 16
    faint boxes and ``faintest_min_prob`` 0.8, and gained too little on one of its two fresh seeds to ship.
    ``faint_corner_windows``: a faint box's index corners are read from the first this many windows of
    ``corner_shifts`` (:meth:`box_corner_readings`; None: all of them, as a sure box's).  Spanish photos read one
    (rule 102, session 86), which let them read 32 faint boxes for about the time 12 took.
    ``upright_corner_windows``: a crop turned upright (``rectify`` "blend") has its index corners read from the first
    this many windows of ``corner_shifts`` (None: all of them, as the box crop's).  Why it may cost little: turned
    upright, the index sits square in its corner view, which the shifted windows hedge against in a box crop; and
    the upright crops' windows are half the corner model's work (rule 199, session 118).
    ``faint_tta``: with ``tta``, a faint box's whole card is read upside down too (False: one way up, as it lies;
    :meth:`whole_readings`).  Why: the faint boxes are many and mostly clutter or slivers of covered cards, for
    which the second view costs a classifier pass and adds little; French photos read them one way up, which let
    them read 16 faint boxes at about the time 12 took (rule 105, session 88).
    ``band_weight``: read each card's index bands with ``card-bands-<family>-photo.onnx`` when the models folder
    has one (and a corner model is read), averaged into the corners' reading with this weight (``BAND_WEIGHT``;
    0: not loaded).
    ``det_size``: the long side a detector with a dynamic input reads the full view at (the shrunk view likewise, the
    zoomed one ``zoom`` times it); None: the size its file says it was trained at (``imgsz`` in its metadata; else
    ``DETECTOR_SIZE``).  Why: a detector trained at a larger size must be read at it, and its file says which; read
    larger, the photo detectors trained at 320 box cards more tightly (session 106, rules 146-149: mAP50-95 up on
    every fresh seed, mAP50 too little to ship), so the size stays an option to measure.
    ``also_size``: read the whole image once more at this long side (a dynamic input only; None: not), its sure
    boxes only adding cards no earlier view's box overlaps by more than ``view_overlap``.  Why: F150, trained and
    read at 416, boxes more cards than at 320 but leaves unboxed a few the photo's edge cuts, which it boxes read at
    320 (session 107); one view at each size may keep both.  ``also_faint``: that view's boxes are read down to
    ``faint_conf`` as the full view's are, its faint boxes joining theirs (False: its sure boxes only).  Why: the
    edge card F150 boxes at 320 and not at 416 is a faint box there (session 108, rule 155).
    ``small_cards``: where the full view's sure boxes have a median long side under this share of the image's
    long side, every view is read again by the small cards' detector (``card-detector-<family>-photo-small.onnx``,
    when the models folder has one, at the size its file was trained at) in place of this one's (None: never).
    Why: a detector trained and read larger boxes more of the small cards of the synthetic scenes and fewer of the
    large cards of the real photos (sessions 106-108, rules 146-157); the cards' own size, seen in a first view,
    says which of the two an image wants.  ``small_size``: the long side that detector reads the full view at (a
    dynamic input only; None: the size its file was trained at), the shrunk and zoomed views as ``det_size``'s.
    ``small_first``: the small cards' detector reads the full view first, and where its own sure boxes' median long
    side is under this share of the image's the first detector is never read; otherwise the image is routed by the
    first detector's full view as above (None: the first detector always reads first).  Why: a frame of small cards
    was read twice (session 110).  Routing by the small cards' detector's boxes alone (at 0.2) moved images near the
    bar to the other detector and lost 0.0042 mAP50 on a fresh seed (rule 162); deciding alone only under 0.14
    (rule 164) held the synthetic figure and saved 10-16 ms a frame but lost one real card (506 of 527): neither is
    shipped.  ``small_square``: the small cards' detector's views letterboxed to its square
    (True) or padded to its stride only (False; None: as ``square``).
    ``flip``: the full view (whichever detector reads it) read a second time mirrored left to right, its boxes mapped
    back and fused with the first reading's (:func:`companion.vision.fusion.fuse_readings`: a pair the mean score and
    the score-weighted box, a box one reading alone found kept at ``flip`` times its score; None: read once).  Why:
    the detectors were trained with left-right flips, and a second look at every card from other anchors ranks and
    places its box better (session 110, rule 163).
    ``turn``: the full view read once more with the image turned a half turn, its boxes mapped back and fused with
    the readings before it as the mirrored one's are (a box it alone found, or only they found, kept at ``turn`` times
    its score; None: not read).  Why: the mirror keeps a card's top at the top; turned, every card shows the detector
    its other index corner where its first one was (session 112, rule 173).
    ``turn_missed``: the share of its score kept by a box the readings before the turned one found and it did not
    (None: ``turn``, the fusion symmetric).  Why: at ``turn`` 1.0 the turned reading added cards on looser boxes,
    and below 1.0 it also lowered the sure boxes it happened to miss (session 113, rule 177).
    ``turn_pair``: how a box the turned reading found again is fused with it: "mean" (the mean score, the boxes
    averaged, as the mirrored reading's), "lift" (the box before kept, the higher score; rule 179) or "top" (the
    boxes averaged, the higher score; rule 180).
    ``score_power``: a detection's confidence (the detector's score times the classifier's probability) ranks the
    cards, and every step that drops one reads the two apart; with ``score_power`` a, the last step multiplies it by
    the detector's score to the power a - 1, so a < 1 leans the ranking on the naming (None: as found; rule 181).
    ``rescorer``: the last step replaces each confidence by the probability that the box is right, from the family's
    fitted rescorer (``card-rescorer-<family>-photo.json`` in the models folder, where it is shipped;
    :mod:`companion.vision.rescoring`).  Why: the photo pipeline's wrong boxes come at the same detector scores and
    names' probabilities as its right ones, and what tells them apart is spread over several things known of each
    (rule 182, session 114).  No box is added or dropped, but for those rescored under ``rescored_min`` (None: none).
    ``faint_backs``: a faint box the classifier names a back with this probability or more is kept as a back (None:
    a faint box named back is dropped).  Why: a French photo's worst class is the back, and most backs no detector
    box finds sure are faint boxes named back (rule 190, session 116); kept, they need the gate (``gate_max``) against
    pictures the classifier names a back.
    ``gate_max``: before the rescoring, drop each detection whose whole-card crop the family's photo gate
    (``card-gate-<family>-photo.onnx``, where it is shipped) reads as ``other``, not a card, with this probability or
    more (None: no gate).  Why a model of its own: the whole-card classifier must name every crop one of the cards,
    so a picture, a book's cover or a printed page boxed like a card comes out as some card; the gate was trained on
    such boxes (rule 196, session 117).
    ``namesake_discount``: before the rescoring, a face whose box lies ``namesake_share`` or more inside the box of
    a surer face named alike has that name's probability multiplied by this and takes its best name after that
    (None: not; :func:`companion.vision.merging.renamed_namesakes`).  Why: a covered card is often read as the card
    over it (rules 210 and 213, session 120: Spanish mAP50 +0.0034 on four fresh seeds, under the bar; off).
    Raises :class:`ModelError` when a weights file is missing or corrupt.
    """

    def __init__(self, family: str = "french", models_dir: str | Path | None = None, conf: float = TABLE_CONF,
                 threads: int = 2, iou: float = 0.7, tta: bool = True, deck: Iterable[str] | None = None,
                 off_deck_prior: float = 0.05, scales: tuple[float, ...] = (1.0,), corners: bool = True,
                 corner_weight: float = CORNER_WEIGHT, corner_crop: int | None = None,
                 rectify: str = RECTIFY, rank_weight: float | None = RANK_WEIGHT,
                 back_weight: float = BACK_WEIGHT, rank_floor: float = RANK_FLOOR,
                 whole_rank_sure: float = WHOLE_RANK_SURE, outlines: bool = False,
                 outline_min_prob: float = OUTLINE_MIN_PROB,
                 corner_shifts: tuple[tuple[float, float], ...] = CORNER_SHIFTS,
                 suit_corner_weight: float = SUIT_CORNER_WEIGHT, faint_conf: float | None = None,
                 faint_min_prob: float = FAINT_MIN_PROB, rows: bool = False,
                 paper_rows: float | None = PAPER_ROWS, row_reach: float | None = ROW_REACH,
                 face_min_prob: float = 0.0, merge_iou: float | None = None, photo_corners: bool = False,
                 hidden: str = HIDDEN_MODE, one_deck: bool = False, joint_weight: float = 0.0,
                 overlap_min: float = OVERLAP_MIN, square: bool = False, side_rank_weight: float = 0.0,
                 side_rank_clear: bool = False, photo_classifier: bool = False, band_weight: float = 0.0,
                 quad_methods: str | tuple[str, ...] | None = None, outline_model: bool = False,
                 outline_model_for: str = "all", outline_exclusive: bool = True,
                 outline_model_boxes: float | None = None, photo_detector: bool = False,
                 photo_outlines: bool = False,
                 zoom: float | None = None, zoom_small: float = ZOOM_SMALL, view_overlap: float = VIEW_OVERLAP,
                 zoom_overlap: float | None = None, faint_overlap: float = VIEW_OVERLAP,
                 faint_overlap_from: float = 0.0, faint_holds: bool = False, faint_max: int = FAINT_MAX,
                 family_views: str = "all", edge_crops: bool = False, outlined_min_prob: float | None = None,
                 outlined_score: float = OUTLINED_SCORE, faint_twin_iou: float | None = None,
                 size_check: float | None = None, size_ref_min: float = SIZE_REF_MIN, size_small: float = SIZE_SMALL,
                 size_large: float = SIZE_LARGE, size_spares_covered: bool = False, whole_upright: str = "none",
                 faintest_below: float | None = None,
                 faintest_min_prob: float = FAINTEST_MIN_PROB, outlined_faint_from: float | None = None,
                 faint_corner_windows: int | None = None, upright_corner_windows: int | None = None,
                 faint_tta: bool = True,
                 box_shrink: float | None = None, covered_box_shrink: float | None = None,
                 det_size: int | None = None, also_size: int | None = None, also_faint: bool = False,
                 small_cards: float | None = None, small_size: int | None = None, small_first: float | None = None,
                 small_square: bool | None = None, flip: float | None = None,
                 turn: float | None = None, turn_missed: float | None = None, turn_pair: str = "mean",
                 score_power: float | None = None, rescorer: bool = False,
                 rescored_min: float | None = None, gate_max: float | None = None,
                 faint_backs: float | None = None, namesake_discount: float | None = None,
                 namesake_share: float = NAMESAKE_SHARE) -> None:
        if family not in FAMILIES:
            raise ValueError(f"unknown family {family!r}; expected one of {FAMILIES}")
        self.family = family
        self.models_dir = Path(models_dir) if models_dir else default_models_dir()
        self.conf = conf
        self.iou = iou
        self.tta = tta
        if not scales or any(not 0 < f <= 1 for f in scales):
            raise ValueError(f"scales must be factors in (0, 1], got {scales!r}")
        self.scales = tuple(scales)
        if zoom and not zoom > 1.0:
            raise ValueError(f"zoom must be a factor above 1 (0: no zoomed view), got {zoom!r}")
        if not 0.0 < zoom_small <= 1.0:
            raise ValueError(f"zoom_small must be in (0, 1], got {zoom_small!r}")
        self.zoom = zoom or None
        self.zoom_small = zoom_small
        self.edge_crops = edge_crops
        for name, value in (("view_overlap", view_overlap), ("zoom_overlap", zoom_overlap),
                            ("faint_overlap", faint_overlap)):
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        self.view_overlap = view_overlap
        self.zoom_overlap = view_overlap if zoom_overlap is None else zoom_overlap
        self.faint_overlap = faint_overlap
        if not 0.0 <= faint_overlap_from <= 1.0:
            raise ValueError(f"faint_overlap_from must be in [0, 1], got {faint_overlap_from!r}")
        self.faint_overlap_from = faint_overlap_from
        self.faint_holds = faint_holds
        if faint_max < 0:
            raise ValueError(f"faint_max must be 0 or more, got {faint_max!r}")
        self.faint_max = int(faint_max)
        self.outlines = outlines
        self.outline_min_prob = outline_min_prob
        if faint_conf is not None and not 0.0 < faint_conf < conf:
            raise ValueError(f"faint_conf must be in (0, conf={conf}), got {faint_conf!r}")
        self.faint_conf = faint_conf
        self.faint_min_prob = faint_min_prob
        if faint_backs is not None and not 0.0 < faint_backs <= 1.0:
            raise ValueError(f"faint_backs must be in (0, 1] or None, got {faint_backs!r}")
        self.faint_backs = faint_backs
        self.rows = rows
        if paper_rows is not None and not 0.0 < paper_rows < 1.0:
            raise ValueError(f"paper_rows must be in (0, 1) or None, got {paper_rows!r}")
        self.paper_rows = paper_rows
        if row_reach is not None and not 0.0 < row_reach <= 3.0:
            raise ValueError(f"row_reach must be in (0, 3] or None, got {row_reach!r}")
        self.row_reach = row_reach
        if not 0.0 <= face_min_prob < 1.0:
            raise ValueError(f"face_min_prob must be in [0, 1), got {face_min_prob!r}")
        self.face_min_prob = face_min_prob
        if merge_iou is not None and not 0.0 < merge_iou <= 1.0:
            raise ValueError(f"merge_iou must be in (0, 1] or None, got {merge_iou!r}")
        self.merge_iou = merge_iou
        self.one_deck = one_deck
        self.big_fraction = 0.3  # on a shrunk view, only cards at least this share of the image's side
        self.shrunk_overlap = 0.2  # an outline adds a card only where no box overlaps it more (IoU)
        if family_views not in FAMILY_VIEWS:
            raise ValueError(f"family_views must be one of {FAMILY_VIEWS}, got {family_views!r}")
        self.family_views = family_views
        self.det_path = shipped_detector(self.models_dir, family, photo_detector)
        self.family_det = None  # the family's own detector, where it reads some views only
        self.family_det_path: Path | None = None
        if family_views != "all" and self.det_path != self.models_dir / DETECTOR_FILE:
            self.family_det, self.family_det_path = _session(self.det_path, threads), self.det_path
            self.det_path = self.models_dir / DETECTOR_FILE
        self.det = _session(self.det_path, threads)
        self.det_names = _names(self.det)
        self.det_input = self.det.get_inputs()[0].name
        # a dynamic input is read at ``det_size`` where given, else at the size its file says it was trained at
        self.imgsz, dynamic = _reading_size(self.det, det_size, "det_size", self.det_path)
        # a detector exported with a dynamic input reads a frame letterboxed to its own shape's stride multiple
        self.det_stride = DETECTOR_STRIDE if dynamic and not square else None
        if not dynamic:
            self.zoom = None  # a fixed input reads at its one size
        # one more view of the whole image at another long side: a detector read at 416 leaves unboxed some cards
        # the same detector read at 320 boxes (cards the photo's edge cuts: session 107)
        if also_size is not None and (not _readable_size(also_size, dynamic) or also_size == self.imgsz):
            raise ValueError(f"also_size must be a multiple of {DETECTOR_STRIDE} in [128, 1280] other than the "
                             f"detector's own {self.imgsz}, for a detector with a dynamic input; got {also_size!r} "
                             f"for {self.det_path.name}")
        self.also_size = also_size
        self.also_faint = also_faint
        if small_cards is not None and not 0.0 < small_cards < 1.0:
            raise ValueError(f"small_cards must be in (0, 1) or None, got {small_cards!r}")
        self.small_cards = small_cards
        self.small_path = self.models_dir / small_detector_file(family)
        self.small_det = None  # loaded only when it will be read
        self.small_imgsz = self.imgsz
        if small_cards is not None and self.small_path.is_file():
            self.small_det = _session(self.small_path, threads)
            self.small_imgsz, small_dynamic = _reading_size(self.small_det, small_size, "small_size", self.small_path)
            if not small_dynamic and self.det_stride is not None:
                raise ValueError(f"{self.small_path.name} has a fixed input; read it with square views")
            if small_square is False and not small_dynamic:
                raise ValueError(f"{self.small_path.name} has a fixed input; small_square=False needs a dynamic one")
        # the small cards' detector's views padded to its stride only, or letterboxed to its square as the first's
        self.small_stride = self.det_stride if small_square is None else None if small_square else DETECTOR_STRIDE
        if small_first is not None and not 0.0 < small_first < 1.0:
            raise ValueError(f"small_first must be in (0, 1) or None, got {small_first!r}")
        self.small_first = small_first
        if flip is not None and not 0.0 < flip <= 1.0:
            raise ValueError(f"flip must be in (0, 1] or None, got {flip!r}")
        self.flip = flip
        if turn is not None and not 0.0 < turn <= 1.0:
            raise ValueError(f"turn must be in (0, 1] or None, got {turn!r}")
        self.turn = turn
        if turn_missed is not None and not 0.0 < turn_missed <= 1.0:
            raise ValueError(f"turn_missed must be in (0, 1] or None, got {turn_missed!r}")
        self.turn_missed = turn_missed if turn is not None else None
        if turn_pair not in PAIRINGS:
            raise ValueError(f"turn_pair must be one of {PAIRINGS}, got {turn_pair!r}")
        self.turn_pair = turn_pair
        if score_power is not None and not 0.0 < score_power <= 2.0:
            raise ValueError(f"score_power must be in (0, 2] or None, got {score_power!r}")
        self.score_power = score_power
        self.rescorer_path = self.models_dir / rescorer_file(family)
        # a models folder without the family's rescorer reads as before, as one without a photo model does
        self.rescorer_asked = rescorer
        self.rescorer = Rescorer.load(self.rescorer_path) if rescorer and self.rescorer_path.is_file() else None
        if rescored_min is not None and not 0.0 < rescored_min < 1.0:
            raise ValueError(f"rescored_min must be in (0, 1) or None, got {rescored_min!r}")
        self.rescored_min = rescored_min
        if gate_max is not None and not 0.0 < gate_max <= 1.0:
            raise ValueError(f"gate_max must be in (0, 1] or None, got {gate_max!r}")
        self.gate_max = gate_max
        if namesake_discount is not None and not 0.0 < namesake_discount < 1.0:
            raise ValueError(f"namesake_discount must be in (0, 1) or None, got {namesake_discount!r}")
        if not 0.0 < namesake_share <= 1.0:
            raise ValueError(f"namesake_share must be in (0, 1], got {namesake_share!r}")
        self.namesake_discount = namesake_discount
        self.namesake_share = namesake_share
        self.gate_path = self.models_dir / gate_file(family)
        # a models folder without the family's gate reads as before, as one without a rescorer does
        self.gate = _session(self.gate_path, threads) if gate_max is not None and self.gate_path.is_file() else None
        if self.gate is not None:
            if (names := _names(self.gate)) != {0: "card", 1: "other"}:
                raise ModelError(f"{self.gate_path.name} names {sorted(names.values())}, not card and other")
            self.gate_input = self.gate.get_inputs()[0].name
            gshape = self.gate.get_inputs()[0].shape
            self.gate_batch = gshape[0] if isinstance(gshape[0], int) else None
        self.cls_path = shipped_file(self.models_dir, classifier_file, family, photo_classifier)
        self.cls = _session(self.cls_path, threads)
        self.cls_names = _names(self.cls)
        self.cls_input = self.cls.get_inputs()[0].name
        cshape = self.cls.get_inputs()[0].shape
        self.crop = int(cshape[2]) if isinstance(cshape[2], int) else CROP
        self.cls_batch = cshape[0] if isinstance(cshape[0], int) else None
        if not 0.0 <= corner_weight <= 1.0:
            raise ValueError(f"corner_weight must be in [0, 1], got {corner_weight!r}")
        self.corner_weight = corner_weight
        if rank_weight is not None and not 0.0 <= rank_weight <= 1.0:
            raise ValueError(f"rank_weight must be in [0, 1] or None, got {rank_weight!r}")
        self.rank_weight = rank_weight
        if not 0.0 <= back_weight <= 1.0:
            raise ValueError(f"back_weight must be in [0, 1], got {back_weight!r}")
        self.back_weight = back_weight
        if not 0.0 <= rank_floor < 1.0:
            raise ValueError(f"rank_floor must be in [0, 1), got {rank_floor!r}")
        self.rank_floor = rank_floor
        if not 0.0 <= whole_rank_sure <= 1.0:
            raise ValueError(f"whole_rank_sure must be in [0, 1], got {whole_rank_sure!r}")
        self.whole_rank_sure = whole_rank_sure
        if not 0.0 <= joint_weight <= 1.0:
            raise ValueError(f"joint_weight must be in [0, 1], got {joint_weight!r}")
        self.joint_weight = joint_weight
        if not 0.0 <= side_rank_weight <= 1.0:
            raise ValueError(f"side_rank_weight must be in [0, 1], got {side_rank_weight!r}")
        self.side_rank_weight = side_rank_weight
        self.side_rank_clear = side_rank_clear
        self.parts = CardParts.from_names(self.cls_names)
        if corner_crop is not None and corner_crop < CORNER // 2:
            raise ValueError(f"corner_crop must be at least {CORNER // 2} pixels, got {corner_crop!r}")
        if rectify not in RECTIFY_MODES:
            raise ValueError(f"rectify must be one of {RECTIFY_MODES}, got {rectify!r}")
        self.rectify = rectify
        self.quad_methods = None if quad_methods is None else quad_methods_of(quad_methods)
        if not corner_shifts or any(not (0.0 <= dx < 0.45 and 0.0 <= dy < 0.5) for dx, dy in corner_shifts):
            raise ValueError(f"corner_shifts must be (x, y) shares in [0, 0.45) x [0, 0.5), got {corner_shifts!r}")
        self.corner_shifts = tuple(corner_shifts)
        for name, windows in (("faint_corner_windows", faint_corner_windows),
                              ("upright_corner_windows", upright_corner_windows)):
            if windows is not None and not 1 <= windows <= len(self.corner_shifts):
                raise ValueError(f"{name} must be 1 to {len(self.corner_shifts)} (corner_shifts' windows) "
                                 f"or None, got {windows!r}")
        self.faint_corner_windows = faint_corner_windows
        self.upright_corner_windows = upright_corner_windows
        self.faint_tta = faint_tta
        for name, value in (("box_shrink", box_shrink), ("covered_box_shrink", covered_box_shrink)):
            if value is not None and not 0.5 <= value <= 1.0:
                raise ValueError(f"{name} must be a factor in [0.5, 1], got {value!r}")
        # A detector trained with rotation augmentation (``degrees``) on box labels, which ultralytics replaces by the
        # box of the turned label's corners (larger than the turned card's own box for a card lying at an angle:
        # bench/rotated_box_labels.py), boxes a card about 3.5 % of its size too wide on every side (session 95; D5,
        # trained on outline labels, does not).  Its reported sure boxes can be drawn in about their centres by
        # ``box_shrink``, those another box covers part of by ``covered_box_shrink`` (None: by ``box_shrink``):
        # :meth:`calibrated`.  No family's photo settings ask for it since D5.
        self.box_shrink = box_shrink
        self.covered_box_shrink = covered_box_shrink
        if not 0.0 <= suit_corner_weight <= 2.0:
            raise ValueError(f"suit_corner_weight must be in [0, 2], got {suit_corner_weight!r}")
        self.suit_corner_weight = suit_corner_weight
        if hidden not in HIDDEN_MODES:
            raise ValueError(f"hidden must be one of {HIDDEN_MODES}, got {hidden!r}")
        self.hidden_mode = hidden
        if not 0.0 < overlap_min <= 1.0:
            raise ValueError(f"overlap_min must be in (0, 1], got {overlap_min!r}")
        self.overlap_min = overlap_min
        self.corner_hidden: int | None = None  # the corner model's HIDDEN class, if it has one
        self.corners = None  # loaded only when it will be read
        self.corner_crop = corner_crop
        self.corner_path = shipped_file(self.models_dir, corner_file, family, photo_corners)
        if corners and corner_weight > 0 and self.corner_path.is_file():
            (self.corners, self.corner_hidden, self.corner_input, self.corner_size,
             self.corner_batch) = _view_model(self.corner_path, threads, self.cls_names, self.cls_path, CORNER)
        if outline_model_for not in OUTLINE_MODEL_FOR:
            raise ValueError(f"outline_model_for must be one of {OUTLINE_MODEL_FOR}, got {outline_model_for!r}")
        self.outline_model_for = outline_model_for
        self.outline_exclusive = outline_exclusive
        self.outline_path = shipped_file(self.models_dir, outline_file, family, photo_outlines)
        self.outline_model: OutlineModel | None = None  # loaded only when it will be read
        self.outline_model_asked = outline_model
        if outline_model and self.corners is not None and rectify != "none" and self.outline_path.is_file():
            self.outline_model = OutlineModel(self.outline_path, threads)
        if outline_model_boxes is not None and not 0.0 < outline_model_boxes < 1.0:
            raise ValueError(f"outline_model_boxes must be in (0, 1) or None, got {outline_model_boxes!r}")
        self.outline_model_boxes = outline_model_boxes
        if outlined_min_prob is not None and not 0.0 <= outlined_min_prob < 1.0:
            raise ValueError(f"outlined_min_prob must be in [0, 1) or None, got {outlined_min_prob!r}")
        if not 0.0 < outlined_score < 1.0:
            raise ValueError(f"outlined_score must be in (0, 1), got {outlined_score!r}")
        if outlined_faint_from is not None and not 0.0 < outlined_faint_from < 1.0:
            raise ValueError(f"outlined_faint_from must be in (0, 1) or None, got {outlined_faint_from!r}")
        self.outlined_min_prob = outlined_min_prob
        self.outlined_faint_from = outlined_faint_from
        self.outlined_score = outlined_score
        self.outline_gate: OutlineModel | None = None  # the outline model asked about weakly named faces
        if outlined_min_prob is not None and self.outline_path.is_file():
            self.outline_gate = self.outline_model or OutlineModel(self.outline_path, threads)
        if faint_twin_iou is not None and not 0.0 < faint_twin_iou <= 1.0:
            raise ValueError(f"faint_twin_iou must be in (0, 1] or None, got {faint_twin_iou!r}")
        self.faint_twin_iou = faint_twin_iou
        if size_check is not None and not 0.0 < size_check <= 1.0:
            raise ValueError(f"size_check must be in (0, 1] or None, got {size_check!r}")
        if not 0.0 < size_small < 1.0 < size_large:
            raise ValueError(f"need 0 < size_small < 1 < size_large, got {size_small!r}, {size_large!r}")
        self.size_check = size_check
        self.size_ref_min, self.size_small, self.size_large = size_ref_min, size_small, size_large
        self.size_spares_covered = size_spares_covered
        if whole_upright not in WHOLE_UPRIGHT:
            raise ValueError(f"whole_upright must be one of {WHOLE_UPRIGHT}, got {whole_upright!r}")
        self.whole_upright = whole_upright
        if faintest_below is not None and not 0.0 < faintest_below < 1.0:
            raise ValueError(f"faintest_below must be in (0, 1) or None, got {faintest_below!r}")
        if not 0.0 <= faintest_min_prob <= 1.0:
            raise ValueError(f"faintest_min_prob must be in [0, 1], got {faintest_min_prob!r}")
        self.faintest_below, self.faintest_min_prob = faintest_below, faintest_min_prob
        if not 0.0 <= band_weight <= 4.0:
            raise ValueError(f"band_weight must be in [0, 4], got {band_weight!r}")
        self.band_weight = band_weight
        self.band_hidden: int | None = None
        self.bands = None  # loaded only when it will be read
        self.band_path = self.models_dir / band_file(family)
        if self.corners is not None and band_weight > 0 and self.band_path.is_file():
            (self.bands, self.band_hidden, self.band_input, self.band_size,
             self.band_batch) = _view_model(self.band_path, threads, self.cls_names, self.cls_path, BAND)
        self.prior: np.ndarray | None = None
        if deck is not None:
            cards = set(deck)
            self.prior = np.array([1.0 if self.cls_names[i] in cards or self.cls_names[i] == "back" else off_deck_prior
                                   for i in range(len(self.cls_names))])
        # A classifier trained with a "back" class (French v3) reads every box, face or back: it sees
        # the card closer than the detector, which takes an unseen deck's back for a face (measured on
        # the table sessions: the deck read as a face card in most frames of a held-out design).
        self.reads_backs = "back" in self.cls_names.values()
        self.back_index = next((i for i, n in self.cls_names.items() if n == "back"), None)
        # ... but only when sure: on held-back-design crops, p(back) >= 0.6 keeps 94 % of the backs
        # and takes 1.4 % of the faces for backs (4.3 % when the classifier's top reading decides).
        self.overrule = 0.6

    # -- stages, public so evaluation can time them -------------------------------------------
    def find_boxes(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(boxes Nx4 in image pixels, scores N, classes N) from the 2-class detector, at every scale and through
        the zoomed view (``zoom``), and with ``outlines`` the outlines no detector box covers (class
        ``OUTLINE_CLASS``, score ``OUTLINE_SCORE``)."""
        # every view's boxes down to faint_conf in one pass each: those under the threshold are faint
        parts, faint_boxes, faint_scores = [], [], []
        limits: list[float] = []

        def add_view(view: tuple[np.ndarray, np.ndarray, np.ndarray], limit: float) -> None:
            """A view's sure boxes to ``parts`` (dropped past ``limit`` IoU with an earlier view's), its faint ones
            (read only where the view was read down to ``faint_conf``) to the faint pool."""
            b, sc, c = view
            low = sc < self.conf
            parts.append((b[~low], sc[~low], c[~low]))
            limits.append(limit)
            faint_boxes.append(b[low])
            faint_scores.append(sc[low])

        views, small = self.routed_scale_boxes(image_bgr)
        for view in views:
            add_view(view, self.view_overlap)
        if self.zoom is not None:
            # sure boxes only: its faint ones are mostly a big card's pips and indices, and they took the
            # places (FAINT_MAX) of the faint boxes of whole cards on the real photos (session 69)
            zoomed_by = self.small_det if small else self.family_det if self.family_views == "zoom" else None
            add_view(self._boxes_at(image_bgr, self.zoom, session=zoomed_by,
                                    size=self.small_imgsz if small else None), self.zoom_overlap)
        if self.family_det is not None and self.family_views == "added":
            add_view(self._boxes_at(image_bgr, 1.0, session=self.family_det), self.view_overlap)
        if self.also_size is not None:  # the whole image again at another size, faint boxes too with ``also_faint``
            add_view(self._boxes_at(image_bgr, 1.0, self.faint_conf if self.also_faint else None,
                                    size=self.also_size), self.view_overlap)
        if len(parts) > 1:
            # a shrunk (or zoomed, or the family detector's) view only adds cards the views before it missed: a box
            # there that overlaps one found before by more than ``view_overlap`` (the zoomed view: ``zoom_overlap``) is
            # that card again, or several cards taken for one; under it, a card beside or under that one (a covered
            # card's box overlaps the card on it by 0.2-0.5: session 78)
            for k in range(1, len(parts)):
                b, sc, c = parts[k]
                seen = np.concatenate([p[0] for p in parts[:k]]).reshape(-1, 4)  # every earlier view's boxes
                new = np.array([not (len(seen) and (box_iou(x, seen) > limits[k]).any()) for x in b], dtype=bool)
                parts[k] = (b[new], sc[new], c[new])
        if self.outlines:
            outlines = outline_boxes(image_bgr)
            # a loose detector box holding one card's outline is that card: its outline is the sharper box
            for p in parts:
                for k in range(len(p[0])):
                    p[0][k] = _tighter(p[0][k], outlines)
            # outlines only add cards no detector box covers (the detector's box of a card wins)
            found = np.concatenate([p[0] for p in parts])
            extra = outlines[[not (len(found) and (box_iou(b, found) > self.shrunk_overlap).any()) for b in outlines]]
            extra = extra.reshape(-1, 4)
            parts.append((extra, np.full(len(extra), OUTLINE_SCORE), np.full(len(extra), OUTLINE_CLASS, dtype=int)))
        if self.outline_model is not None and self.outline_model_boxes is not None:
            # a card lying against another is often one paper to the finders and missed by the detector,
            # while the outline model outlines it (a one-pip 7H beside a QD: session 59)
            found = np.concatenate([p[0] for p in parts]).reshape(-1, 4)
            extra = uncovered_outlines(self.outline_model.scored_rects(image_bgr), self.outline_model_boxes, found,
                                       self.shrunk_overlap, image_bgr.shape[:2])
            parts.append((extra, np.full(len(extra), OUTLINE_SCORE), np.full(len(extra), OUTLINE_CLASS, dtype=int)))
        if self.faint_conf is not None:
            parts.append(self._faint_boxes(np.concatenate(faint_boxes).reshape(-1, 4), np.concatenate(faint_scores),
                                           parts))
        boxes = np.concatenate([p[0] for p in parts])
        scores = np.concatenate([p[1] for p in parts])
        classes = np.concatenate([p[2] for p in parts])
        # The end-to-end head is NMS-free, but duplicates across the two classes (and scales) can remain.
        order = np.argsort(-scores, kind="stable")
        boxes, scores, classes = boxes[order], scores[order], classes[order]
        keep_idx: list[int] = []
        for i in range(len(boxes)):
            if keep_idx and (box_iou(boxes[i], boxes[keep_idx]) > self.iou).any():
                continue
            keep_idx.append(i)
        return boxes[keep_idx], scores[keep_idx], classes[keep_idx]

    def scale_boxes(self, image_bgr: np.ndarray, session=None, size: int | None = None
                    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(boxes, scores, classes) of the image at each of ``scales``, down to ``faint_conf`` (None: the threshold):
        all the detector saw there before :meth:`find_boxes` weighs one view's boxes against another's (``session``
        read at ``size``, as :meth:`_boxes_at`; the full view fused with its mirrored reading where ``flip``).
        Public so that a bench can tell a card the detector never boxed from one a later step dropped."""
        full = self._boxes_at(image_bgr, 1.0, self.faint_conf, session, size) if 1.0 in self.scales else None
        return self._views(image_bgr, full, session, size)

    def _views(self, image_bgr: np.ndarray, full: tuple[np.ndarray, np.ndarray, np.ndarray] | None, session=None,
               size: int | None = None) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Every scale's view by ``session`` at ``size`` (as :meth:`_boxes_at`): the full view's boxes ``full``,
        already read down to ``faint_conf`` (fused with its mirrored reading where ``flip``), the other scales read
        now; ``full`` is not used where 1 is not a scale."""
        return [self._fused(image_bgr, full, session, size) if f == 1.0
                else self._boxes_at(image_bgr, f, self.faint_conf, session, size) for f in self.scales]

    def _fused(self, image_bgr: np.ndarray, full: tuple[np.ndarray, np.ndarray, np.ndarray], session=None,
               size: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The full view's boxes ``full`` (read down to ``faint_conf`` by ``session`` at ``size``, as
        :meth:`_boxes_at`) fused with a reading of the image mirrored left to right where ``flip`` says, then with one
        of the image turned a half turn where ``turn`` says (:func:`fuse_readings`, a box one side alone found kept at
        ``flip`` / ``turn`` times its score, one only the turned reading missed at ``turn_missed`` times); as they are
        where both are None."""
        floor = self.conf if self.faint_conf is None else self.faint_conf
        fused = full
        if self.flip is not None:
            b, sc, c = self._boxes_at(cv2.flip(image_bgr, 1), 1.0, self.faint_conf, session, size)
            fused = fuse_readings(fused, (mirror_boxes(b, image_bgr.shape[1]), sc, c), self.flip, floor)
        if self.turn is not None:
            b, sc, c = self._boxes_at(cv2.rotate(image_bgr, cv2.ROTATE_180), 1.0, self.faint_conf, session, size)
            height, width = image_bgr.shape[:2]
            fused = fuse_readings(fused, (turn_boxes(b, width, height), sc, c), self.turn, floor,
                                  first_single=self.turn_missed, pair=self.turn_pair)
        return fused

    def routed_scale_boxes(self, image_bgr: np.ndarray
                           ) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray]], bool]:
        """:meth:`scale_boxes` by the detector the image's cards call for, and whether that was the small cards'
        (``small_cards``: the first detector's full view is read first, and where it finds the cards small every
        scale is read by the small cards' detector instead, that view dropped and the other scales never read;
        ``small_first``: the small cards' detector's full view is read first, see the class)."""
        if self.small_det is None:
            return self.scale_boxes(image_bgr), False
        full_conf = self.faint_conf if 1.0 in self.scales else None
        if self.small_first is not None:
            # the small cards' detector reads first: where its own boxes are clearly small (under ``small_first``)
            # the first detector is never read; else the image is routed by the first detector's boxes, as without
            small = self._boxes_at(image_bgr, 1.0, full_conf, self.small_det, self.small_imgsz)
            if self._cards_small(image_bgr, small, self.small_first):
                return self._views(image_bgr, small, self.small_det, self.small_imgsz), True
            full = self._boxes_at(image_bgr, 1.0, full_conf)
            if self._cards_small(image_bgr, full):
                return self._views(image_bgr, small, self.small_det, self.small_imgsz), True
            return self._views(image_bgr, full), False
        full = self._boxes_at(image_bgr, 1.0, full_conf)
        if self._cards_small(image_bgr, full):
            return self.scale_boxes(image_bgr, self.small_det, self.small_imgsz), True
        return self._views(image_bgr, full), False

    def _cards_small(self, image_bgr: np.ndarray, full: tuple[np.ndarray, np.ndarray, np.ndarray],
                     share: float | None = None) -> bool:
        """Whether the sure boxes of the ``full`` view have a median long side under ``share`` (None:
        ``small_cards``) of the image's long side; False where it has none."""
        b, sc, _ = full
        b = b[sc >= self.conf]
        if not len(b):
            return False
        side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        return bool(np.median(side) < (share or self.small_cards) * max(image_bgr.shape[:2]))

    def _faint_boxes(self, b: np.ndarray, sc: np.ndarray, found: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The views' boxes ``b`` scored from ``faint_conf`` up to the threshold that no box in ``found`` (surer
        boxes, outlines) that can hold them overlaps by more than ``faint_overlap``, at most ``faint_max`` of them,
        as class ``FAINT_CLASS``: :meth:`name_boxes` keeps those the classifier names a face surely enough
        (``faint_min_prob``)."""
        sure = np.concatenate([p[0] for p in found]).reshape(-1, 4)
        low = min(self.faint_overlap, VIEW_OVERLAP)

        def kept(x: np.ndarray, score: float) -> bool:
            if not len(sure):
                return True
            overlap = box_iou(x, sure)
            limit = self.faint_overlap if score >= self.faint_overlap_from else low
            if (_hides(sure, x) & (overlap > limit)).any():
                return False
            # a faint box overlapping a surer one more than a shrunk view's box may, that holds most of it, is a
            # box around it and the card beside it (on the real photos: 16 of 34 false boxes, session 79)
            return not (self.faint_holds and ((overlap > low) & _holds(x, sure)).any())

        new = np.array([kept(x, s) for x, s in zip(b, sc)], dtype=bool)
        b, sc = b[new].reshape(-1, 4), sc[new]
        best = np.argsort(-sc, kind="stable")[:self.faint_max]
        b, sc = b[best], sc[best]
        return b, sc, np.full(len(b), FAINT_CLASS, dtype=int)

    def _boxes_at(self, image_bgr: np.ndarray, factor: float, conf: float | None = None,
                  session=None, size: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One view's boxes (``factor`` under 1 shrunk, over 1 zoomed) scored ``conf`` or more (None: the threshold),
        read by ``session`` (an onnxruntime session of a detector; None: ``self.det``) at the input long side
        ``size`` (None: ``imgsz``, times ``factor`` for a zoomed view)."""
        h, w = image_bgr.shape[:2]
        top = left = 0
        view = image_bgr
        if factor < 1.0:  # the image in the middle of a grey canvas 1/factor times its size
            big_h, big_w = int(round(h / factor)), int(round(w / factor))
            top, left = (big_h - h) // 2, (big_w - w) // 2
            view = cv2.copyMakeBorder(image_bgr, top, big_h - h - top, left, big_w - w - left,
                                      cv2.BORDER_CONSTANT, value=(114, 114, 114))
        size = size or self.imgsz
        if factor > 1.0:  # a zoomed view: the detector's input that many times larger, for small cards
            size = int(round(size * factor / DETECTOR_STRIDE)) * DETECTOR_STRIDE
        stride = self.small_stride if session is not None and session is self.small_det else self.det_stride
        img, r, (pad_x, pad_y) = letterbox(view, size, stride, DETECTOR_MIN_SIDE)
        blob = np.ascontiguousarray(img[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255.0
        if session is None:  # the shared (or the family's "all") detector, its input name read once at start
            out = self.det.run(None, {self.det_input: blob})[0]
        else:
            out = session.run(None, {session.get_inputs()[0].name: blob})[0]
        pred = out[0] if out.ndim == 3 else out
        if pred.shape[-1] != 6:
            raise ModelError(f"unexpected detector output shape {out.shape}; export with nms=False (end-to-end)")
        pred = pred[pred[:, 4] >= (self.conf if conf is None else conf)]
        boxes = pred[:, :4].astype(np.float64)
        boxes[:, [0, 2]] = (boxes[:, [0, 2]] - pad_x) / r - left
        boxes[:, [1, 3]] = (boxes[:, [1, 3]] - pad_y) / r - top
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        scores = pred[:, 4].astype(np.float64)
        classes = pred[:, 5].astype(int)
        if factor != 1.0:  # a shrunk view keeps only big cards, a zoomed one only small ones
            side = np.maximum((boxes[:, 2] - boxes[:, 0]) / w, (boxes[:, 3] - boxes[:, 1]) / h)
            keep = side >= self.big_fraction if factor < 1.0 else side < self.zoom_small
            boxes, scores, classes = boxes[keep], scores[keep], classes[keep]
        return boxes, scores, classes

    def classify(self, image_bgr: np.ndarray, boxes: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Card names and probabilities for face-up card boxes ("?" and 0 where no crop could be cut)."""
        readings = self.readings(image_bgr, boxes, 1)
        return ([r[0][0] if r else "?" for r in readings],
                np.array([r[0][1] if r else 0.0 for r in readings], dtype=np.float64))

    def readings(self, image_bgr: np.ndarray, boxes: np.ndarray, k: int = 3,
                 overlapped: np.ndarray | None = None, sure: np.ndarray | None = None) -> list[list[tuple[str, float]]]:
        """The ``k`` likeliest names of each card box, with probabilities, best first.

        The runners-up matter at the table: when the best reading is impossible
        (already played, not in the deck) the tracker asks about the next ones.
        An empty list where no crop could be cut.  ``overlapped`` (N bools, :func:`overlapped_boxes`): which
        cards another box overlaps (read with ``hidden_mode`` "overlap"; None: none).  ``sure`` (N bools): which
        boxes the detector is sure of (``outline_model_for`` "sure"; None: all of them).
        """
        # the whole-card and corner crops: of boxes the frame cuts, grown to a card's shape (``edge_crops``)
        crop_image, crop_boxes = image_bgr, boxes
        if self.edge_crops and len(boxes):
            crop_image, crop_boxes = edge_grown_frame(image_bgr, boxes, CARD_SHORT_OVER_LONG[self.family])
        ok, whole = _box_crops(crop_image, crop_boxes, self.crop)
        out_list: list[list[tuple[str, float]]] = [[] for _ in range(len(boxes))]
        if whole is None:
            return out_list
        big = None
        if self.corners is not None and self.corner_crop and self.corner_crop != self.crop:
            # (a box crop_card could cut at one size it can cut at any other)
            big = np.stack([crop_card(crop_image, tuple(crop_boxes[i]), self.corner_crop) for i in ok])
        upright = None
        if self.corners is not None and self.rectify in ("corners", "both", "blend"):
            size = self.corner_crop or self.crop
            quads = self.card_outlines(image_bgr, boxes[ok], None if overlapped is None else np.asarray(overlapped)[ok],
                                       None if sure is None else np.asarray(sure)[ok])
            upright = [None if q is None else rectified_crop(image_bgr, tuple(boxes[i]), size, quad=q)
                       for i, q in zip(ok, quads)]
            if self.rectify != "blend":
                base = big if big is not None else whole
                big = np.stack([u if u is not None else base[j] for j, u in enumerate(upright)])
                if self.rectify == "both" and size == self.crop:
                    whole = big
                upright = None
        faint = None if sure is None else ~np.asarray(sure, dtype=bool)[ok]
        # (asked only where it changes the reading: the corners of faint boxes from fewer windows, or their whole
        # card one way up)
        split = ({"faint": faint} if (self.faint_corner_windows is not None or not self.faint_tta)
                 and faint is not None and faint.any() else {})
        out = self.classify_crops(whole, big, upright, None if overlapped is None else np.asarray(overlapped)[ok],
                                  **split)
        if self.prior is not None:
            out = out * self.prior
            out = out / np.maximum(out.sum(axis=1, keepdims=True), 1e-12)
        top = np.argsort(-out, axis=1)[:, :k]
        for j, i in enumerate(ok):
            out_list[i] = [(self.cls_names[int(c)], float(out[j, c])) for c in top[j]]
        return out_list

    def missing_models_warning(self) -> str | None:
        """What to tell whoever asked for a model that is not read (the outline model, the small cards' detector, the
        gate, the rescorer; None when every one asked for is read): a reading by the finders alone, or without the
        outline check of weakly named faces (``outlined_min_prob``), or of small cards by the one detector, or
        ungated, or not rescored (its faces then kept down to floors chosen for the rescored reading, with no
        ``rescored_min`` to drop the weak ones), must not pass for one with the model."""
        said = []
        if self.small_cards is not None and self.small_det is None:
            said.append(f"no small cards' detector read ({self.small_path} missing): every image is read by "
                        f"{self.det_path.name}")
        if self.outline_model_asked and self.outline_model is None:
            said.append(f"no outline model read ({self.outline_path} missing, or no corner model): each card is "
                        f"turned upright by the outline finders alone")
        if self.gate_max is not None and self.gate is None:
            said.append(f"no gate read ({self.gate_path} missing): boxes on things that are not cards are kept")
        if self.rescorer_asked and self.rescorer is None:
            said.append(f"no rescorer read ({self.rescorer_path} missing): detections keep their confidences and none "
                        f"is dropped by its probability")
        if self.outlined_min_prob is not None and self.outline_gate is None:
            said.append(f"no outline model read ({self.outline_path} missing): faces named under the floors are left "
                        f"out, outlined or not")
        return "; ".join(said) or None

    def card_outline(self, image_bgr: np.ndarray, box: tuple[float, float, float, float],
                     overlapped: bool = False) -> tuple[tuple[float, float], tuple[float, float], float] | None:
        """:meth:`card_outlines` for one box alone."""
        return self.card_outlines(image_bgr, np.asarray([box], dtype=np.float64), np.asarray([overlapped]))[0]

    def card_outlines(self, image_bgr: np.ndarray, boxes: np.ndarray, overlapped: np.ndarray | None = None,
                      sure: np.ndarray | None = None
                      ) -> list[tuple[tuple[float, float], tuple[float, float], float] | None]:
        """The outline each card in ``boxes`` is turned upright by (an OpenCV rotated rectangle), None where none
        is found: the outline model's where it is read for that box (``outline_model_for``; ``overlapped``:
        which boxes another box overlaps; ``sure``: which the detector is sure of, None: all) and gives one
        (each of its outlines to one box only, with ``outline_exclusive``), else the finders' (``quad_methods``).
        The one place that chooses it: the readings and the benches ask here."""

        def found(box: np.ndarray) -> tuple[tuple[float, float], tuple[float, float], float] | None:
            return card_quad(image_bgr, tuple(box), methods=self.quad_methods)

        if self.outline_model is None:
            return [found(b) for b in boxes]
        tried = None  # the finders' outlines, where they were asked first
        if self.outline_model_for == "unfound":
            tried = [found(b) for b in boxes]
            use = [q is None for q in tried]
        elif self.outline_model_for == "sure":
            use = [sure is None or bool(sure[i]) for i in range(len(boxes))]
        else:
            use = [self.outline_model_for == "all" or (overlapped is not None and bool(overlapped[i]))
                   for i in range(len(boxes))]
        # every box competes for the outlines, read for it or not: a box's own card is not another's
        matched = (match_outlines(self.outline_model.rects(image_bgr), [tuple(b) for b in boxes],
                                  exclusive=self.outline_exclusive) if any(use) else [None] * len(boxes))
        return [m if u and m is not None else (tried[i] if tried is not None else found(boxes[i]))
                for i, (m, u) in enumerate(zip(matched, use))]

    def classify_crops(self, crops_bgr: np.ndarray, corner_crops: np.ndarray | None = None,
                       upright: list[np.ndarray | None] | None = None,
                       overlapped: np.ndarray | None = None, faint: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities (N x classes) for N crops made by :func:`crop_card`
        (``corner_crops``: the same cards cut at ``corner_crop``, for the corners):
        the whole card's reading, mixed with the index corners' when a corner model is loaded.

        ``upright`` (``rectify="blend"``): the same cards turned upright
        (:func:`rectified_crop`, None where the outline was not found).  Their
        corners are read too, and averaged with the box crop's.  Why both: turned
        upright, a tilted card's index sits square in its corner view (the box crop
        cuts a tilted index at the view's edge: a one-pip deck's 7 beside the deck
        read as a 3), but an outline found wrong turns the card the wrong way, and
        the box crop's reading is the right one then.  The average keeps what the
        two agree on and lets the surer one decide.

        Each model is read once for all of it (:func:`_one_run`): every view is cut first (the views depend on the
        crops alone, not on a reading), then read, then the readings are combined as :meth:`box_corner_readings`,
        :meth:`_with_whole_upright`, :meth:`_with_bands` and the side readings combine them read apart.
        """
        if self.corners is None:
            return self.whole_readings(crops_bgr, faint)
        base = crops_bgr if corner_crops is None else corner_crops
        found = [j for j, u in enumerate(upright or []) if u is not None]
        turned_crops = np.stack([upright[j] for j in found]) if found else None
        turned_overlapped = None if overlapped is None or not found else overlapped[found]
        turned_faint = None if faint is None or not found else faint[found]
        sides = self.back_index is not None and (self.suit_corner_weight > 0.0 or self.side_rank_weight > 0.0)
        sources = (np.stack([u if u is not None else base[j] for j, u in enumerate(upright or [None] * len(base))])
                   if sides else None)
        suits, ranks = sides and self.suit_corner_weight > 0.0, sides and self.side_rank_weight > 0.0
        whole_rows = self._whole_upright_rows(found, overlapped)
        whole = _one_run(self._whole_model, {
            "box": [self.whole_views(crops_bgr, faint)],
            "upright": [self.whole_views(self._whole_upright_crops(upright, whole_rows),
                                         None if faint is None else faint[whole_rows])] if whole_rows else []})
        windows = _one_run(self.window_readings, {
            "box": self.box_corner_windows(base, faint),
            "upright": (self.box_corner_windows(turned_crops, turned_faint, self.upright_corner_windows)
                        if found else []),
            "suits": [self._side_suit_windows(sources)] if suits else [],
            "ranks": [side_views(sources, self.corner_size)] if ranks else []})
        bands = _one_run(self._band_model, {
            "box": [band_views(base, self.band_size)],
            "upright": [band_views(turned_crops, self.band_size)] if found else []}) if self.bands is not None else {}

        out = self._whole_from(whole["box"][0], len(crops_bgr), faint)
        corners = self.box_corner_readings(base, overlapped, faint, windows["box"])
        out = self._with_whole_upright(out, upright, found, overlapped, faint,
                                       whole["upright"][0] if whole_rows else None)
        if found:
            turned = self.box_corner_readings(turned_crops, turned_overlapped, turned_faint, windows["upright"],
                                              self.upright_corner_windows)
            corners[found] = (corners[found] + turned) / 2.0
        if self.bands is not None:
            corners = self._with_bands(corners, base, found, turned_crops, bands["box"] + bands["upright"])
        out = self.mix(out, corners)
        if suits:
            out = self._with_side_suits(out, sources, windows["suits"][0])
        if ranks:
            out = self._with_side_ranks(out, sources, overlapped, windows["ranks"][0])
        return out

    def _with_whole_upright(self, whole: np.ndarray, upright: list[np.ndarray | None] | None, found: list[int],
                            overlapped: np.ndarray | None, faint: np.ndarray | None,
                            raw: np.ndarray | None = None) -> np.ndarray:
        """``whole`` with the whole card's reading of the card turned upright averaged in, for the cards
        ``found`` upright that ``whole_upright`` names (:meth:`_whole_upright_rows`; none: ``whole`` unchanged).
        Why: since rule 135 a covered box is turned upright by the outline model, and its corners are read so; the
        whole card was still read from the box crop alone, askew beside the card over it.  ``raw``: the
        classifier's output for those cards' :meth:`whole_views` (:meth:`_whole_upright_crops`), read already with
        the frame's other views (:meth:`classify_crops`; None: read here)."""
        rows = self._whole_upright_rows(found, overlapped)
        if not rows:
            return whole
        rows_faint = None if faint is None else faint[rows]
        read = (self.whole_readings(self._whole_upright_crops(upright, rows), rows_faint) if raw is None
                else self._whole_from(raw, len(rows), rows_faint))
        out = whole.copy()
        out[rows] = (whole[rows] + read) / 2.0
        return out

    def _whole_upright_rows(self, found: list[int], overlapped: np.ndarray | None) -> list[int]:
        """Which of the cards ``found`` upright :meth:`_with_whole_upright` reads whole turned upright too, as
        ``whole_upright`` says: "overlapped" those another box overlaps, "all" every one, "none" none."""
        if self.whole_upright == "none":
            return []
        if self.whole_upright == "overlapped":
            return [j for j in found if overlapped is not None and bool(overlapped[j])]
        return list(found)

    def _whole_upright_crops(self, upright: list[np.ndarray | None], rows: list[int]) -> np.ndarray:
        """The cards ``rows`` turned upright (``upright``), resized to the whole-card classifier's crop."""
        return np.stack([cv2.resize(upright[j], (self.crop, self.crop), interpolation=cv2.INTER_AREA)
                         for j in rows])

    def band_readings(self, crops_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The band model's probabilities (N x classes), the two bands combined (:func:`corners_for_faces`, each
        as far as it is not read as ``HIDDEN``), and how far the surer band shows an index (N)."""
        return self._pair_reading(self._band_model(band_views(crops_bgr, self.band_size)), self.band_hidden)

    def _band_model(self, views_bgr: np.ndarray) -> np.ndarray:
        """The band model's output (2N x its classes) for bands already cut (:func:`band_views`)."""
        if self.bands is None:
            raise ModelError(f"no {self.band_path.name} loaded")
        return _run_batch(self.bands, self.band_input, self.band_batch, views_bgr)

    def _pair_reading(self, raw: np.ndarray, hidden: int | None) -> tuple[np.ndarray, np.ndarray]:
        """A view model's 2N readings of N cards (each card's view, then the same N of its other end) as N
        faces: ``hidden`` dropped, the two views combined as far as each is seen (:func:`corners_for_faces`),
        and how far the surer view shows an index (N).  One step for the bands and the side windows."""
        n = len(raw) // 2
        readings, seen = without_hidden(raw, hidden)
        both = corners_for_faces(readings[:n], readings[n:], self.back_index, (seen[:n], seen[n:]))
        return both, np.maximum(seen[:n], seen[n:])

    def _with_bands(self, corners: np.ndarray, crops_bgr: np.ndarray, found: list[int],
                    turned_crops: np.ndarray | None, raw: list[np.ndarray] | None = None) -> np.ndarray:
        """The corners' readings with the bands' averaged in (``band_weight`` times how far a band shows an
        index), the bands read from the box crop and, for the cards ``found`` upright (``turned_crops``, the
        corners' own), from the card turned upright too (averaged, as the corners are).  Why: a deck printing
        rank and suit apart along its top shows no corner window both (``BAND_WEIGHT``).  ``raw``: the band
        model's output for the box crops' bands and then (with ``found``) the turned crops', read already with the
        frame's other views (:meth:`classify_crops`; None: read here)."""
        bands, seen = (self.band_readings(crops_bgr) if raw is None
                       else self._pair_reading(raw[0], self.band_hidden))
        if found:
            turned, turned_seen = (self.band_readings(turned_crops) if raw is None
                                   else self._pair_reading(raw[1], self.band_hidden))
            bands[found] = (bands[found] + turned) / 2.0
            seen[found] = (seen[found] + turned_seen) / 2.0
        weight = self.band_weight * seen[:, None]
        return (corners + weight * bands) / (1.0 + weight)

    def _with_side_ranks(self, probs: np.ndarray, crops_bgr: np.ndarray,
                         overlapped: np.ndarray | None = None, raw: np.ndarray | None = None) -> np.ndarray:
        """``probs`` with each card's rank leaning on its top-right and bottom-left corners read as they lie
        (:func:`side_views`), raised to ``side_rank_weight`` times how far the surer of the two windows is not
        read as ``HIDDEN``: a window with no index in it (most decks print nothing there) says little.  With
        ``side_rank_clear``, only for cards no other box overlaps (``overlapped``, None: all read): a covered
        card's side window often holds the index of the card above.  ``raw``: the corner model's output for those
        windows, read already with the frame's other windows (:meth:`classify_crops`; None: read here)."""
        if raw is None:
            raw = self.window_readings(side_views(crops_bgr, self.corner_size))
        side, seen = self._pair_reading(raw, self.corner_hidden)
        ranks, _ = split_faces(side, self.parts)
        weight = self.side_rank_weight * seen[:, None]
        if self.side_rank_clear and overlapped is not None:
            weight = weight * (~np.asarray(overlapped, dtype=bool))[:, None]
        return _leaning(probs, weight * (np.log(ranks + 1e-9) @ self.parts.ranks.T))

    def _with_side_suits(self, probs: np.ndarray, crops_bgr: np.ndarray, raw: np.ndarray | None = None
                         ) -> np.ndarray:
        """``probs`` with each card's suit leaning on its other two corners (``suit_corner_weight``): the
        crops mirrored left to right put the top-right and bottom-left corners where the corner
        classifier looks, and its suit reading there multiplies the faces' probabilities, raised to the
        weight.  Why: a minimalist deck prints its suit sign alone in the top-right corner, where the
        index corners do not look, and the whole card's suit was the one read wrong (a king of spades
        read as diamonds); a standard deck's other corners repeat its index or are bare (a bare corner
        leans on no suit much).  ``raw``: the corner model's output for those windows
        (:meth:`_side_suit_windows`), read already with the frame's other windows (:meth:`classify_crops`; None:
        read here)."""
        if raw is None:
            raw = self.window_readings(self._side_suit_windows(crops_bgr))
        side = self._corners_from(raw, len(crops_bgr), ONE_WINDOW)
        _, suits = split_faces(side, self.parts)
        return _leaning(probs, self.suit_corner_weight * (np.log(suits + 1e-9) @ self.parts.suits.T))

    def _side_suit_windows(self, crops_bgr: np.ndarray) -> np.ndarray:
        """The windows :meth:`_with_side_suits` reads: the crops mirrored left to right, read as one window."""
        return self.corner_windows(np.ascontiguousarray(crops_bgr[:, :, ::-1]), ONE_WINDOW)

    def mix(self, whole: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The whole card's and the corners' readings as one, with this detector's weights."""
        if self.rank_weight is None or self.corner_weight <= 0.0:
            return mix_readings(whole, corners, self.corner_weight)
        return mix_by_parts(whole, corners, self.parts, self.corner_weight, self.rank_weight, self.back_weight,
                            self.rank_floor, self.whole_rank_sure, self.joint_weight)

    def whole_readings(self, crops_bgr: np.ndarray, faint: np.ndarray | None = None) -> np.ndarray:
        """The whole-card classifier's probabilities (N x classes).

        With ``tta`` each crop is also read upside down and the two readings are
        averaged: a card is the same card both ways up (its two index corners), the
        classifier was trained on both, and its two mistakes rarely agree.  Without
        ``faint_tta``, the crops ``faint`` marks (N bools; None: none) are read one way
        up only: the upside-down pass is the classifier's cost, and a faint box is
        mostly clutter it rarely names anyway.
        """
        return self._whole_from(self._whole_model(self.whole_views(crops_bgr, faint)), len(crops_bgr), faint)

    def whole_views(self, crops_bgr: np.ndarray, faint: np.ndarray | None = None) -> np.ndarray:
        """The views :meth:`whole_readings` reads of N crops: the crops, then (with ``tta``) those it reads upside
        down too (:meth:`_turned_whole`) turned a half turn."""
        if not self.tta:
            return crops_bgr
        return np.concatenate([crops_bgr, crops_bgr[self._turned_whole(len(crops_bgr), faint)][:, ::-1, ::-1]])

    def _turned_whole(self, n: int, faint: np.ndarray | None) -> np.ndarray:
        """Which of N crops :meth:`whole_readings` reads upside down too (with ``tta``): all of them, but the
        ``faint`` ones without ``faint_tta``."""
        return np.ones(n, dtype=bool) if faint is None or self.faint_tta else ~np.asarray(faint, dtype=bool)

    def _whole_from(self, raw: np.ndarray, n: int, faint: np.ndarray | None) -> np.ndarray:
        """:meth:`whole_readings` of N crops from the classifier's output for their :meth:`whole_views`: each
        crop's reading, averaged with its reading upside down where it was read so."""
        if not self.tta:
            return raw
        turn = self._turned_whole(n, faint)
        whole = raw[:n].copy()
        whole[turn] = (whole[turn] + raw[n:]) / 2.0
        return whole

    def _whole_model(self, views_bgr: np.ndarray) -> np.ndarray:
        """The whole-card classifier's output (N x classes) for views already cut (:meth:`whole_views`)."""
        return _run_batch(self.cls, self.cls_input, self.cls_batch, views_bgr)

    def window_readings(self, windows_bgr: np.ndarray) -> np.ndarray:
        """The corner model's probabilities (N x its classes, ``HIDDEN`` included where it has one) for windows
        already cut as it reads them (:func:`corner_views`, :func:`side_views`, :func:`top_left_views`, or a
        folder of ``dataset scene-corners`` windows).  The one place every corner reading runs the model."""
        if self.corners is None:
            raise ModelError(f"no {self.corner_path.name} loaded")
        return _run_batch(self.corners, self.corner_input, self.corner_batch, windows_bgr)

    def corner_readings(self, crops_bgr: np.ndarray,
                        shifts: tuple[tuple[float, float], ...] | None = None,
                        overlapped: np.ndarray | None = None, raw: np.ndarray | None = None) -> np.ndarray:
        """The corner classifier's probabilities (N x classes), both corners combined
        (:func:`corners_for_faces`; averaged for a model without a back class), averaged over the
        windows of ``shifts`` (default ``corner_shifts``).
        The two corners of a crop are the two corners of it upside down: no separate half turn.
        ``raw``: the model's output for the crops' :meth:`corner_windows`, read already with other windows
        (:meth:`classify_crops`; None: read here)."""
        if self.corners is None:
            raise ModelError(f"no {self.corner_path.name} loaded")
        if raw is None:
            raw = self.window_readings(self.corner_windows(crops_bgr, shifts))
        return self._corners_from(raw, len(crops_bgr), shifts, overlapped)

    def corner_windows(self, crops_bgr: np.ndarray, shifts: tuple[tuple[float, float], ...] | None = None
                       ) -> np.ndarray:
        """The windows :meth:`corner_readings` reads of N crops: each of ``shifts``'s (default ``corner_shifts``)
        2N corner views (:func:`corner_views`), one shift after another."""
        shifts = self.corner_shifts if shifts is None else shifts
        return np.concatenate([corner_views(crops_bgr, self.corner_size, o) for o in shifts])

    def _corners_from(self, raw: np.ndarray, n: int, shifts: tuple[tuple[float, float], ...] | None = None,
                      overlapped: np.ndarray | None = None) -> np.ndarray:
        """:meth:`corner_readings` of N crops from the corner model's output for their :meth:`corner_windows`."""
        shifts = self.corner_shifts if shifts is None else shifts
        out, seen = without_hidden(raw, self.corner_hidden)
        weigh = self.corner_hidden is not None and self.hidden_mode == "weigh"
        if self.corner_hidden is not None and self.hidden_mode == "overlap" and overlapped is not None:
            # an overlapped card's windows are weighed; a card nothing overlaps has them all seen ("drop")
            seen = np.where(np.tile(np.asarray(overlapped, dtype=bool), 2 * len(shifts)), seen, 1.0)
            weigh = True
        readings = []
        for k in range(len(shifts)):
            both, v = out[2 * n * k:2 * n * (k + 1)], seen[2 * n * k:2 * n * (k + 1)]
            readings.append(corners_for_faces(both[:n], both[n:], self.back_index,
                                              (v[:n], v[n:]) if weigh else None))
        return np.mean(readings, axis=0)

    def box_corner_readings(self, crops_bgr: np.ndarray, overlapped: np.ndarray | None = None,
                            faint: np.ndarray | None = None, raw: list[np.ndarray] | None = None,
                            windows: int | None = None) -> np.ndarray:
        """:meth:`corner_readings` of N crops, those ``faint`` says are faint boxes' (N bools; None: none) read
        from the first ``faint_corner_windows`` of ``corner_shifts`` alone (None: all of them, as the others), and
        every crop from the first ``windows`` at most (None: no limit; the upright crops'
        ``upright_corner_windows``).
        Why: a faint box is read only to be kept or dropped, most of them are dropped, and every window is a
        corner model pass; a photo reading more faint boxes must read each for less (session 86).  ``raw``: the
        corner model's output for each set of :meth:`box_corner_windows`, read already with the frame's other
        windows (:meth:`classify_crops`; None: read here)."""
        groups = self._corner_groups(faint, windows)
        raw = [None] * len(groups) if raw is None else raw
        if groups[0][0] is None:
            return self.corner_readings(crops_bgr, groups[0][1], overlapped, raw[0])
        out: np.ndarray | None = None
        for (rows, shifts), got in zip(groups, raw):
            reading = self.corner_readings(crops_bgr[rows], shifts, None if overlapped is None else overlapped[rows],
                                           got)
            if out is None:
                out = np.zeros((len(crops_bgr), reading.shape[1]))
            out[rows] = reading
        return out

    def _corner_groups(self, faint: np.ndarray | None, windows: int | None = None
                       ) -> list[tuple[np.ndarray | None, tuple[tuple[float, float], ...]]]:
        """How :meth:`box_corner_readings` reads N crops' corners, as (rows, shifts) groups: every crop from every
        window of ``corner_shifts`` (one group, rows None), or the sure boxes' so and the ``faint`` ones' from its
        first ``faint_corner_windows`` (each a group when it holds a crop, sure first); none from more than the
        first ``windows`` (None: no limit)."""
        shifts = self.corner_shifts[:windows]
        if faint is None or self.faint_corner_windows is None or not np.any(faint):
            return [(None, shifts)]
        faint = np.asarray(faint, dtype=bool)
        return [(rows, group) for rows, group in ((~faint, shifts), (faint, shifts[:self.faint_corner_windows]))
                if rows.any()]

    def box_corner_windows(self, crops_bgr: np.ndarray, faint: np.ndarray | None = None,
                           windows: int | None = None) -> list[np.ndarray]:
        """The windows :meth:`box_corner_readings` reads of N crops (with the same ``faint`` and ``windows``): one
        set for each of its groups of crops read from the same windows (:meth:`_corner_groups`)."""
        return [self.corner_windows(crops_bgr if rows is None else crops_bgr[rows], shifts)
                for rows, shifts in self._corner_groups(faint, windows)]

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        """All cards in a BGR uint8 image, best first."""
        if image_bgr is None or not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3:
            raise ImageError("expected a BGR image array of shape HxWx3")
        if image_bgr.shape[2] == 4:
            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_BGRA2BGR)
        return self.read_boxes(image_bgr, *self.find_boxes(image_bgr))

    def read_boxes(self, image_bgr: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                   classes: np.ndarray) -> list[Detection]:
        """What :meth:`detect` does after :meth:`find_boxes`: the last of :meth:`read_stages`.  A stage of its own
        so that latency is timed end to end."""
        return self.read_stages(image_bgr, boxes, scores, classes)[-1][1]

    def read_stages(self, image_bgr: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                    classes: np.ndarray) -> list[tuple[str, list[Detection]]]:
        """The detections after each step of :meth:`read_boxes`, named, in order: the boxes named ("named"), rows
        cut ("rows": ``rows``), faces named weakly left out ("floors": ``face_min_prob``; kept where an outline backs
        them: ``outlined_min_prob``), one card boxed twice made one ("merged": ``merge_iou``; "faint twins":
        ``faint_twin_iou``), weakly named faces far off the photo's card size left out ("sizes": ``size_check``), no
        name held twice ("one deck": ``one_deck``), the outline scores added ("outlines") and the sure boxes drawn
        in ("drawn in": ``box_shrink``, :meth:`calibrated`), the confidences re-weighed ("ranked": ``score_power``),
        the boxes the gate reads as not a card dropped ("gated": ``gate_max``), a face read as the surer face over
        it named again ("namesakes": ``namesake_discount``) and the rest rescored ("rescored": ``rescorer``); a step
        that is off is not listed.

        Why each list: a card the detector boxed that is missing in the end was dropped by one step, and a bench
        (``bench/misnamed_cards.py``) says which without writing the steps again."""
        stages = [("named", self.name_boxes(image_bgr, boxes, scores, classes))]

        def step(name: str, out: list[Detection]) -> None:
            stages.append((name, out))

        if self.rows and self.corners is not None:  # a row's box is named weakly as one card: cut it first
            step("rows", self.split_rows(image_bgr, stages[-1][1]))
        step("floors", self.outlined(image_bgr, stages[-1][1]))
        if self.merge_iou is not None:
            step("merged", merge_same_cards(stages[-1][1], self.merge_iou))
        if self.faint_twin_iou is not None and self.faint_conf is not None:
            step("faint twins", drop_faint_twins(stages[-1][1], self.conf, self.faint_twin_iou))
        if self.size_check is not None:
            found = stages[-1][1]
            step("sizes", drop_misfit_sizes(found, self.size_check, self.size_ref_min, self.size_small,
                                            self.size_large, self.covered(found) if self.size_spares_covered else None))
        if self.one_deck:
            step("one deck", one_of_each(stages[-1][1]))
        if self.outline_model is not None and stages[-1][1]:
            step("outlines", self._with_outlines(image_bgr, stages[-1][1]))
        if self.box_shrink is not None:
            step("drawn in", self.calibrated(stages[-1][1]))
        if self.score_power is not None:
            step("ranked", self.reranked(stages[-1][1]))
        if self.gate is not None:
            step("gated", self.gated(image_bgr, stages[-1][1]))
        if self.namesake_discount is not None:
            step("namesakes", renamed_namesakes(stages[-1][1], self.namesake_discount, self.namesake_share))
        if self.rescorer is not None:
            found = stages[-1][1]
            rescored = self.rescorer.rescored(found, self.covered(found) if found else [], [self.faint(d) for d in found])
            if self.rescored_min is not None:  # the only step after the naming that reads the rescored probability
                rescored = [d for d in rescored if d.confidence >= self.rescored_min]
            step("rescored", rescored)
        return stages

    def gate_readings(self, image_bgr: np.ndarray, found: list[Detection]) -> np.ndarray:
        """The gate's probability that each of ``found`` is not a card (``other``), read on its whole-card crop as
        it is boxed now (0 where no crop can be cut)."""
        ok, crops = _box_crops(image_bgr, [d.box for d in found], self.crop)
        other = np.zeros(len(found))
        if ok:
            other[ok] = _run_batch(self.gate, self.gate_input, self.gate_batch, crops)[:, 1]
        return other

    def gated(self, image_bgr: np.ndarray, found: list[Detection]) -> list[Detection]:
        """``found`` without the detections the gate reads as not a card with ``gate_max`` or more."""
        if not found:
            return found
        return [d for d, p in zip(found, self.gate_readings(image_bgr, found)) if p < self.gate_max]

    def reranked(self, found: list[Detection]) -> list[Detection]:
        """``found`` with each confidence (and its alternatives') times the detector's score to the power
        ``score_power`` - 1, at most 1, best first again: only the order and the confidences change."""
        gains = [max(d.detector_confidence, 1e-6) ** (self.score_power - 1.0) for d in found]
        return with_confidences(found, [min(1.0, d.confidence * g) for d, g in zip(found, gains)], gains)

    def covered(self, found: list[Detection]) -> np.ndarray:
        """Which of ``found`` another of them covers ``overlap_min`` of (:func:`overlapped_boxes`): the cards whose
        box may hold only the part in view (the size check's spared faces, :meth:`calibrated`'s covered boxes)."""
        boxes = np.array([d.box for d in found], dtype=np.float64).reshape(-1, 4)
        return overlapped_boxes(boxes, np.arange(len(found)), self.overlap_min)

    def calibrated(self, found: list[Detection]) -> list[Detection]:
        """``found`` with the detector's sure boxes (not :meth:`faint` ones, not outlines') drawn in about their
        centres by ``box_shrink``, and those another box of ``found`` covers ``OVERLAP_MIN`` of by
        ``covered_box_shrink`` (None: ``box_shrink``).

        Why last: every model and setting before it was chosen on the detector's own boxes; only what is reported
        moves.  Faint boxes are left: on val6592 their sides already sit on the card's (median error under 2 % of
        its size), as an outline's do.  A covered card's sure box often holds only the part in view, smaller than
        the card: drawn in, it can drop under IoU 0.5 (session 95: the one matched box shrinking lost on val6592,
        and mAP50 -0.0011 on val6636 with every sure box drawn in)."""
        if not found:
            return found
        if self.covered_box_shrink is None:  # one factor for all: which boxes are covered does not matter
            covered = np.zeros(len(found), dtype=bool)
        else:
            covered = self.covered(found)
        out = []
        for d, under in zip(found, covered):
            factor = self.covered_box_shrink if under and self.covered_box_shrink is not None else self.box_shrink
            keep = d.found_by != FOUND_BY_DETECTOR or self.faint(d) or factor is None or factor == 1.0
            out.append(d if keep else replace(d, box=scaled_box(d.box, factor)))
        return out

    def floor(self, d: Detection) -> float:
        """How surely ``d``'s face must be named to be kept without an outline when outlines are asked about
        (``outlined_min_prob``): ``faint_min_prob`` for a faint box (scored under the threshold, a row's strip cut
        from one too), else ``face_min_prob``."""
        return max(self.faint_min_prob, self.face_min_prob) if self.faint(d) else self.face_min_prob

    def too_faint_to_outline(self, d: Detection) -> bool:
        """Whether ``d`` is a :meth:`faint` face the detector scored under ``outlined_faint_from``, which an
        outline does not keep when it is named under its :meth:`floor`."""
        return (self.outlined_faint_from is not None and self.faint(d)
                and d.detector_confidence < self.outlined_faint_from)

    def faint(self, d: Detection) -> bool:
        """Whether ``d`` is a faint box's: the detector scored it under its threshold (a row's strip cut from one
        too), kept only because faint boxes are read (``faint_conf``)."""
        return self.faint_conf is not None and d.found_by == FOUND_BY_DETECTOR and d.detector_confidence < self.conf

    def faintest(self, d: Detection) -> bool:
        """Whether ``d`` is a :meth:`faint` face the detector scored under ``faintest_below`` named under
        ``faintest_min_prob``: left out, outlined or not."""
        return (self.faintest_below is not None and d.card != "back" and self.faint(d)
                and d.detector_confidence < self.faintest_below and d.rank_confidence < self.faintest_min_prob)

    def outlined(self, image_bgr: np.ndarray, found: list[Detection]) -> list[Detection]:
        """``found`` without the faces named under their :meth:`floor`, but for those named ``outlined_min_prob``
        or more whose box an outline of the outline model scored ``outlined_score`` or more fits
        (:func:`companion.vision.outline_model.outline_fits`; the model is read only when such a face is there),
        and without the :meth:`faintest` faces."""
        found = [d for d in found if not self.faintest(d)]
        if self.outline_gate is None or self.outlined_min_prob is None:
            # (a faint face named under faint_min_prob is gone already: name_boxes)
            return [d for d in found if d.card == "back" or d.rank_confidence >= self.face_min_prob]
        weak = [d.card != "back" and d.rank_confidence < self.floor(d) for d in found]
        asked = [w and d.rank_confidence >= self.outlined_min_prob and not self.too_faint_to_outline(d)
                 for d, w in zip(found, weak)]
        if not any(asked):
            return [d for d, w in zip(found, weak) if not w]
        rects = [rect for rect, score in self.outline_gate.scored_rects(image_bgr) if score >= self.outlined_score]
        return [d for d, w, a in zip(found, weak, asked) if not w or (a and outline_fits(rects, d.box))]

    def _with_outlines(self, image_bgr: np.ndarray, found: list[Detection]) -> list[Detection]:
        """``found`` each with the outline model's score of the surest outline fitting its box (``outline``;
        the model is read once a frame, its outlines cached: this costs no second pass)."""
        scored = self.outline_model.scored_rects(image_bgr)
        rects = [rect for rect, _ in scored]
        return [replace(d, outline=max((scored[j][1] for _, j in outline_fits(rects, d.box)), default=0.0))
                for d in found]

    def index_readings(self, image_bgr: np.ndarray, boxes: list[tuple[float, float, float, float]],
                       corner: int) -> np.ndarray:
        """The corner classifier's probabilities (N x classes) for one index corner of each box's card,
        0 the top-left, 1 the bottom-right (turned a half turn), from the training window alone; zeros
        where no crop could be cut.  Why one corner: a card partly covered shows only one.  A model with a
        ``HIDDEN`` class has its share left out (not renormalised with ``hidden="weigh"``: a strip whose index
        is read as hidden is read weakly, and a row's cutting whose strips are not all sure is not taken)."""
        return self._corner_index_readings(image_bgr, {corner: boxes})[corner]

    def _corner_index_readings(self, image_bgr: np.ndarray,
                               boxes: dict[int, list[tuple[float, float, float, float]]]) -> dict[int, np.ndarray]:
        """:meth:`index_readings` of each index corner's ``boxes`` (corner -> its boxes), every window read in one
        run of the corner model (:func:`_one_run`).  Why: a frame's strips are read at both corners
        (:meth:`_read_beside`, :meth:`_read_cuttings`), and one run costs less than two, to the same readings."""
        if self.corners is None:
            raise ModelError(f"no {self.corner_path.name} loaded")
        cut = {corner: self._index_windows(image_bgr, b, corner) for corner, b in boxes.items()}
        read = _one_run(self.window_readings, {corner: [] if views is None else [views]
                                               for corner, (_, views) in cut.items()})
        out = {}
        for corner, (ok, _) in cut.items():
            out[corner] = np.zeros((len(boxes[corner]), len(self.cls_names)))
            if ok:
                out[corner][ok] = without_hidden(read[corner][0], self.corner_hidden,
                                                 renormalise=self.hidden_mode != "weigh")[0]
        return out

    def _index_windows(self, image_bgr: np.ndarray, boxes: list[tuple[float, float, float, float]],
                       corner: int) -> tuple[list[int], np.ndarray | None]:
        """Which of ``boxes`` a crop could be cut of, and the windows :meth:`index_readings` reads of those
        crops at index corner ``corner`` (None: no crop)."""
        ok, cut = _box_crops(image_bgr, boxes, self.crop)
        if cut is None:
            return ok, None
        return ok, top_left_views(cut if corner == 0 else cut[:, ::-1, ::-1], self.corner_size)

    def _index_faces(self, image_bgr: np.ndarray, boxes: dict[int, list[tuple[float, float, float, float]]]
                     ) -> dict[int, np.ndarray]:
        """:meth:`index_readings` of each index corner's ``boxes`` (read in one run: :meth:`_corner_index_readings`)
        with the back's share taken out: a strip beside or under a card is read for the face it shows (what a
        card's index looks like where it does not say "back")."""
        out = self._corner_index_readings(image_bgr, boxes)
        if self.back_index is not None:
            for probs in out.values():
                probs[:, self.back_index] = 0.0
        return out

    def split_rows(self, image_bgr: np.ndarray, detections: list[Detection]) -> list[Detection]:
        """``detections`` with each face whose box holds a row of overlapping cards replaced by those
        cards (the top one's box and each covered one's visible strip; :mod:`companion.vision.rows`).

        Then the strips beside each lone card, where a card half under it shows and has no box
        (:meth:`_read_beside`).  Measured on the real photos (``python -m companion.vision.evaluate real
        --half tune|test [--no-rows]``): 210 -> 231 cards of 262 named right on the half its settings were
        chosen on, 213 -> 225 of 265 on the other, false detections per image no more on either; each
        row box also cut shrunk to its paper (``paper_rows``, session 24): 233 -> 237 and 225 -> 229; and
        grown over the paper past its sides (``row_reach``, session 36): 241 -> 247 and 230 -> 236."""
        width = image_bgr.shape[1]
        plans = [(d, self._row_cuts(image_bgr, d, width)) for d in detections]
        out: list[Detection] = []
        for (d, _), parts in zip(plans, self._read_cuttings(image_bgr, plans)):
            out.extend(parts or [d])
        out.extend(self._read_beside(image_bgr, out))
        out.sort(key=lambda d: -d.confidence)
        return out

    def _row_cuts(self, image_bgr: np.ndarray, d: Detection, width: int) -> list[Cutting]:
        """Every way to cut ``d``'s box as a row (none for a back): as the detector drew it, shrunk to its
        paper (``paper_rows``) and grown over the paper past its sides (``row_reach``)."""
        if d.card == "back":
            return []
        cuts = cuttings(d.box, width)
        # the detector's box around a row is often loose (a margin of table above the cards), and then
        # no strip's index corner lies where a cutting looks for it: the box shrunk to its paper too
        tight = paper_box(image_bgr, d.box, self.paper_rows) if cuts and self.paper_rows is not None else None
        if tight is not None and box_iou(np.array(tight), np.array([d.box]))[0] < 0.95:
            cuts += cuttings(tight, width)
        # ... or stops short of the covered card's far edge, and of the index corner its strip shows (a
        # lone card's box is left to _read_beside, which also knows the names boxed elsewhere)
        grown = paper_reach(image_bgr, d.box, PAPER_ROWS, self.row_reach) \
            if self.row_reach is not None and not lone_card(d.box) else None
        if grown is not None:
            cuts += cuttings(grown, width)
        return cuts

    def _read_beside(self, image_bgr: np.ndarray, detections: list[Detection]) -> list[Detection]:
        """The cards half under a lone card that show a strip on either side of it with no box around them
        (:func:`companion.vision.rows.beside`).  On each side of each lone card, the surest reading of the
        strips tried there, leaving out the lone card's own name (a window that reaches over it takes in its
        index), is kept at ``STRIP_MIN_PROB`` unless another box in the picture names that card already
        (then the strip is that card again, and its runners-up, often the same rank in the suit of the
        index beside it, are no card).  All strips of the picture are read in one batch, both corners'."""
        others = [o.box for o in detections]
        tried = [(d, b) for d in detections if d.card != "back"
                 for b in beside(d.box, image_bgr.shape[1], others) if paper_share(image_bgr, b.strip) >= STRIP_PAPER]
        if not tried:
            return []
        probs = np.zeros((len(tried), len(self.cls_names)))
        mine = {corner: [i for i, (_, b) in enumerate(tried) if b.corner == corner] for corner in (0, 1)}
        faces = self._index_faces(image_bgr, {corner: [tried[i][1].reaching for i in rows]
                                              for corner, rows in mine.items() if rows})
        for corner, read in faces.items():
            probs[mine[corner]] = read
        best: dict[tuple[int, int], int] = {}  # (lone card, side) -> its surest strip other than the card itself
        for i, (owner, b) in enumerate(tried):
            key = (id(owner), b.corner)
            if self.cls_names[int(np.argmax(probs[i]))] != owner.card \
                    and (key not in best or probs[i].max() > probs[best[key]].max()):
                best[key] = i
        names = {d.card for d in detections}
        out = []
        for d in detections:
            for corner in (0, 1):
                i = best.get((id(d), corner))
                if i is None or probs[i].max() < STRIP_MIN_PROB:
                    continue
                score = d.detector_confidence
                (name, p), alts = self._ranked(probs[i], score)
                if name in names:
                    continue
                out.append(Detection(name, score * p, tried[i][1].strip, p, score, alts, found_by=d.found_by))
                names.add(name)
        return out

    def _ranked(self, p: np.ndarray, score: float) -> tuple[tuple[str, float], tuple[tuple[str, float], ...]]:
        """One probability row's best reading (name, probability) and its next three, as a
        :class:`Detection`'s ``alternatives`` (each times the detector's ``score``)."""
        top = np.argsort(-p)[:4]
        return ((self.cls_names[int(top[0])], float(p[top[0]])),
                tuple((self.cls_names[int(t)], float(score * p[t])) for t in top[1:]))

    def _read_cuttings(self, image_bgr: np.ndarray, plans: list[tuple[Detection, list[Cutting]]]
                       ) -> list[list[Detection] | None]:
        """For each (detection, its cuttings), the cards of the cutting that reads surest
        (:func:`companion.vision.rows.choose`), or None.  The strips first, by their one index corner (one
        batch, both corners', for the whole picture, cheap); the top cards, read whole as any card is (costly),
        only for the cuttings whose strips all read surely, all in one batch too.  Why batches: a photo has
        several boxes wide enough to be tried as rows, each with up to 18 cuttings; read a box at a time
        (before session 36) the rows took longer than naming the boxes did."""
        strips = {corner: [(k, i, b) for k, (_, cuts) in enumerate(plans) for i, c in enumerate(cuts)
                           if c.corner == corner for b in c.reaching] for corner in (0, 1)}
        probs: dict[tuple[int, int], list[np.ndarray]] = {}
        # a cutting's first strip is every cutting's of that end and corner: each box read once
        boxes = {corner: list(dict.fromkeys(b for _, _, b in wanted)) for corner, wanted in strips.items()}
        faces = self._index_faces(image_bgr, {corner: b for corner, b in boxes.items() if b})
        for corner, wanted in strips.items():
            if boxes[corner]:
                read = dict(zip(boxes[corner], faces[corner]))
                for k, i, b in wanted:
                    probs.setdefault((k, i), []).append(read[b])
        reads: dict[tuple[int, int], list[tuple[tuple[str, float], tuple[tuple[str, float], ...]]]] = {
            (k, i): [self._ranked(p, plans[k][0].detector_confidence) for p in ps] for (k, i), ps in probs.items()}
        sure = {key for key, r in reads.items() if strips_sure([read for read, _ in r])}
        ends = list(dict.fromkeys(plans[k][1][i].end for k, i in sorted(sure)))
        end_reads = dict(zip(ends, self.readings(image_bgr, np.array(ends), 4))) if ends else {}
        out: list[list[Detection] | None] = []
        for k, (d, cuts) in enumerate(plans):
            mine = sorted((i for i in range(len(cuts)) if (k, i) in sure), key=lambda i: cuts[i].corner)
            if not mine or any(not end_reads[cuts[i].end] for i in mine):
                out.append(None)
                continue
            pick = choose([cuts[i] for i in mine], {cuts[i].end: end_reads[cuts[i].end][0] for i in mine},
                          [[read for read, _ in reads[(k, i)]] for i in mine])
            if pick is None:
                out.append(None)
                continue
            cut, score = cuts[mine[pick]], d.detector_confidence
            (name, prob), others = end_reads[cut.end][0], end_reads[cut.end][1:]
            parts = [Detection(name, score * prob, cut.end, prob, score,
                               tuple((n, score * p) for n, p in others[:3] if n != "back"), found_by=d.found_by)]
            for box, ((n, p), alts) in zip(cut.strips, reads[(k, mine[pick])]):
                parts.append(Detection(n, score * p, box, p, score, alts, found_by=d.found_by))
            out.append(parts)
        return out

    def name_boxes(self, image_bgr: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                   classes: np.ndarray) -> list[Detection]:
        """Detections for boxes already found (``classes``: 0 face, 1 back, 2 an outline), best first.

        Public so that a test harness with true boxes (the table evaluation's
        classifier mode) names them exactly as :meth:`detect` does.
        """
        read = np.arange(len(boxes)) if self.reads_backs else np.nonzero(classes != BACK_CLASS)[0]
        # (the flags only where they are read: the table's corner model has no hidden class)
        flags = ((self.hidden_mode == "overlap" and self.corner_hidden is not None)
                 or (self.side_rank_weight > 0.0 and self.side_rank_clear)
                 or (self.outline_model is not None and self.outline_model_for == "overlapped"))
        overlapped = overlapped_boxes(boxes, read, self.overlap_min) if flags else None
        readings = self.readings(image_bgr, boxes[read], 4, overlapped, classes[read] != FAINT_CLASS)
        result: list[Detection] = []
        named: set[int] = set()
        # a faint face named under faint_min_prob may still be kept where an outline backs it (:meth:`outlined`)
        faint_floor = (self.faint_min_prob if self.outline_gate is None or self.outlined_min_prob is None
                       else min(self.faint_min_prob, self.outlined_min_prob))
        for k, i in enumerate(read):
            if not readings[k]:
                continue
            named.add(int(i))
            box = tuple(float(v) for v in boxes[i])
            said_back = classes[i] == BACK_CLASS
            by = FOUND_BY_OUTLINE if classes[i] == OUTLINE_CLASS else FOUND_BY_DETECTOR
            (name, prob), others = readings[k][0], readings[k][1:]
            faces = [(n, p) for n, p in readings[k] if n != "back"]
            # a back keeps the classifier's face readings as runners-up: where the rules forbid a
            # face-down card, the tracker asks about the likeliest face instead of losing the play
            face_alts = tuple((n, float(scores[i] * p)) for n, p in faces[:3])
            if (name == "back") != said_back and prob < self.overrule:
                # the classifier contradicts the detector's face/back call without being sure: keep the call
                if said_back or not faces:
                    result.append(Detection("back", float(scores[i]), box, 1.0, float(scores[i]), face_alts,
                                            found_by=by))
                    continue
                (name, prob), others = faces[0], faces[1:]
            if classes[i] == OUTLINE_CLASS and (name == "back" or prob < self.outline_min_prob):
                continue  # an outline named weakly or as a back: no card the detector missed
            if classes[i] == FAINT_CLASS and (prob < faint_floor if name != "back"
                                              else self.faint_backs is None or prob < self.faint_backs):
                # a faint box named weakly, or as a back (but from ``faint_backs``): not a card the detector was
                # unsure of
                continue
            if name == "back":  # a back is sure as soon as the detector is: nothing else to name
                result.append(Detection("back", float(scores[i]), box, prob, float(scores[i]), face_alts,
                                        found_by=by))
                continue
            result.append(Detection(name, float(scores[i] * prob), box, prob, float(scores[i]),
                                    tuple((n, float(scores[i] * p)) for n, p in others[:3] if n != "back"),
                                    found_by=by))
        for i in np.nonzero(classes == BACK_CLASS)[0]:
            if int(i) not in named:
                result.append(Detection("back", float(scores[i]), tuple(float(v) for v in boxes[i]), 1.0,
                                        float(scores[i])))
        result.sort(key=lambda d: -d.confidence)
        return result


def uncovered_outlines(rects: list[tuple[RotatedRect, float]], min_score: float, found: np.ndarray, overlap: float,
                       size: tuple[int, int]) -> np.ndarray:
    """The upright boxes (Mx4, clipped to the image's ``size`` h, w) of the outlines in ``rects`` (rotated
    rectangles with their scores, surest first) scored ``min_score`` or more that no box of ``found`` nor a surer
    outline taken before overlaps more than ``overlap`` (IoU), nor holds half of.

    Why the second test: a box around a card holds the outline of a pip or a corner inside it whatever their
    IoU; a card beside it shares a strip of its box, less than half."""
    h, w = size
    out: list[np.ndarray] = []
    for rect, score in rects:
        if score < min_score:
            continue
        pts = cv2.boxPoints(rect)
        box = np.array([*pts.min(axis=0), *pts.max(axis=0)], dtype=np.float64).clip(0, [w, h, w, h])
        if (box[2] - box[0]) * (box[3] - box[1]) <= 0:
            continue
        taken = np.concatenate([found.reshape(-1, 4), np.array(out).reshape(-1, 4)])
        if len(taken) and ((box_iou(box, taken) > overlap).any()
                           or any(inside_share(box, k) >= 0.5 for k in taken)):
            continue
        out.append(box)
    return np.array(out, dtype=np.float64).reshape(-1, 4)


def overlapped_boxes(boxes: np.ndarray, which: np.ndarray, share: float = OVERLAP_MIN) -> np.ndarray:
    """Which of ``boxes[which]`` another of ``boxes`` covers at least ``share`` of: the cards that can have an
    index under another card."""
    out = np.zeros(len(which), dtype=bool)
    for k, i in enumerate(which):
        out[k] = any(inside_share(boxes[i], boxes[j]) >= share for j in range(len(boxes)) if j != i)
    return out


def _hides(sure: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Which of the ``sure`` boxes can be the card a faint ``box`` overlaps: all but those at least
    ``FAINT_HOLDER`` times its area that hold most (80 %) of it, a box around two or three cards side by side
    (a pair held up, a fan), inside which ``box`` may be one of them."""
    return np.array([not (box_area(s) >= FAINT_HOLDER * box_area(box) and inside_share(box, s) >= 0.8) for s in sure],
                    dtype=bool)


def _holds(box: np.ndarray, sure: np.ndarray) -> np.ndarray:
    """Which of the ``sure`` boxes a faint ``box`` holds: at least ``FAINT_HOLDS_INSIDE`` of one inside it, the
    one smaller than ``FAINT_HOLDS_AREA`` times its own area."""
    return np.array([box_area(s) < FAINT_HOLDS_AREA * box_area(box) and inside_share(s, box) >= FAINT_HOLDS_INSIDE
                     for s in sure], dtype=bool)


def read_image(path: str | Path) -> np.ndarray:
    """Decode an image file to BGR; ImageError when missing or not an image."""
    p = Path(path)
    if not p.is_file():
        raise ImageError(f"image not found: {p}")
    data = np.fromfile(str(p), dtype=np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ImageError(f"cannot decode image: {p}")
    return img
