"""Find cards in a camera frame: which lie face up (rank and suit), which face down.

Two or three ONNX models run under onnxruntime (no torch at run time):

1. ``card-detector.onnx``: YOLO26n, 2 classes (0 face-up card, 1 back),
   whole-card boxes, family-agnostic, input 320x320 letterboxed;
2. ``card-classifier-<family>.onnx``: YOLO26n-cls on the card's box squashed to
   96x96 (see :func:`companion.vision.crops.crop_card`), one class per card in
   TABLE-LOG notation;
3. ``card-corners-<family>.onnx`` (optional; French ships one): the same classes
   read from the crop's two index corners at 64x64 (see
   :func:`companion.vision.crops.corner_views`), mixed into the whole card's reading;
   ``card-corners-<family>-photo.onnx`` (optional) takes its place in the photo settings.

Detect-then-classify was chosen because a from-scratch detector with 53
classes learns far too slowly on 2 CPU cores; a 2-class detector plus a small
crop classifier learns in hours (see models/README.md).

    det = CardDetector("french")
    for d in det.detect(frame_bgr):
        print(d.card, d.confidence, d.box)
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.paths import models_dir as default_models_dir
from companion.vision.crops import (BAND, CORNER, CROP, HIDDEN, band_views, box_iou, corner_views, crop_card,
                                    paper_box, paper_reach, paper_share, rectified_crop, side_views, top_left_views)
from companion.vision.merging import MERGE_IOU, merge_same_cards, one_of_each
from companion.vision.outlines import outline_boxes
from companion.vision.rows import STRIP_MIN_PROB, STRIP_PAPER, Cutting, beside, choose, cuttings, lone_card, strips_sure

DETECTOR_FILE = "card-detector.onnx"
FAMILIES = ("french", "spanish")
# Photos (`companion detect`, the real-photo figures): a second, shrunk view for cards that fill the
# picture, at a threshold within 0.2 false detections per real photo.  Session 12 chose both on half the
# real photos (`evaluate real --half tune`: shrink 0.5-0.7 x threshold 0.3-0.4, with the outline search)
# and measured them on the other half (`--half test`): 0.5 at 0.4 found 0.691 of the cards at 0.19 false
# detections per image, 0.65 at 0.35 finds 0.713 at 0.16.  The table keeps CardDetector's defaults
# (one view, TABLE_CONF).
PHOTO_SCALES = (1.0, 0.65)
PHOTO_CONF = 0.35
# A box from a bright card-shaped outline the detector missed (companion.vision.outlines) counts as a
# detection this sure that a card is there; the classifier's reading still names it (and may call it a back).
OUTLINE_SCORE = 0.5
# The detector's classes (0 face-up card, 1 back), and the class find_boxes gives an outline's box, so that
# name_boxes can tell it from a detector box (whatever its score).
BACK_CLASS = 1
OUTLINE_CLASS = 2
# ... and a faint detector box (scored under the threshold, see FAINT_CONF)
FAINT_CLASS = 3
# ... and is kept only when the classifier names it a face this surely: with no detector behind it, a weak
# name is a pale object of a card's shape (measured on the real photos: the outline boxes matching no card
# were all named at p <= 0.27, those of cards mostly at 0.64 or more)
OUTLINE_MIN_PROB = 0.5
# At the table an outline needs less (the tracker still wants a card seen over frames, in a seat's zone):
# a one-pip deck's 3S, a dark spade on a dark cloth, was never boxed by the detector, and its outline was
# named right at p 0.27-0.31; one rendered hand more was scored right with 0.25 or 0 here, none with 0.5.
# (On the real photos, one outline matching no card was named above 0.25: 0.27.)
TABLE_OUTLINE_MIN_PROB = 0.25
# Photos: a box the detector scores under its threshold but at least FAINT_CONF is a card when the
# classifier names it a face at FAINT_MIN_PROB or more and no surer box or outline covers it.  Why: on the
# real photos the detector's scores of cards it boxed and of things that are not cards overlap below 0.35,
# and the classifier tells them apart (boxes scored 0.1-0.35: of those named a face at p >= 0.5, 90 % lay
# on a card; of the others, 11 %).  Chosen on half the real photos (`evaluate real --half tune
# --faint-conf C --faint-min-prob P`), measured on the other half (models/README.md, session 16).  Session
# 17 took the floor from 0.05 to 0.02 (tune half 208 -> 210 cards, test half 212 -> 213, false detections
# per image unchanged; 0.03: 209 / 213), a photo 3 ms slower (90.7 -> 93.6 ms a 720p frame).
FAINT_CONF: float | None = 0.02
# Session 25, with PHOTO_FACE_MIN_PROB leaving out the clutter named weakly: 0.5 -> 0.35 (tune half 237 -> 242 of
# 262: 0.45 239, 0.4 241, 0.3 241 at 0.14 false detections per image; test half once 229 -> 230 of 265, false
# detections per image 0.088 -> 0.122).  Session 42: 0.40 with the joint term (``JOINT_WEIGHT``), which made a
# few faint boxes on clutter surer (real tune half at 0.35: 249 cards, 0.128 false per photo; at 0.40: 249, 0.101).
FAINT_MIN_PROB = 0.40
FAINT_MAX = 8  # at most this many faint boxes are read (the best scored): each costs a classifier pass
# A surer box this many times a faint box's area that holds it does not hide it: the real photos' loose boxes
# (IoU 0.25-0.5 with a missed card) were 2-4 times the card and held it whole, a box around a pair or a fan.
# Chosen on the tune half (1.8: 0.786 -> 0.794 at 0.162; 2.5: no change), test half 0.796 -> 0.800 at 0.189.
FAINT_HOLDER = 1.8
# Share of the index-corner classifier in a card's reading, when one is shipped.  Chosen on 1,173 held-back
# crops with backs (evaluate classifier --crops cls-v3/val, v8 corners): 0.5 0.754, 0.6 0.762, 0.7 0.752.
CORNER_WEIGHT = 0.6
# ... and the corners' share in the card's *rank* (mix_by_parts): a letter reads alike on every design,
# while the suit is drawn large on the card itself.  Chosen on the held-back designs (evaluate designs,
# tango_nuevo mixed 0.712 at 0.6 -> 0.942 at 0.8) and held-back crops (cls-v3/val 0.762 -> 0.755 with the back
# mixed at 0.6 too; 0.772 with BACK_WEIGHT).
RANK_WEIGHT = 0.8
# A row box (companion.vision.rows) is also cut after it is shrunk to the rows and columns of it that are at
# least this share card paper (crops.paper_box; None: not): the detector's box around a row is often loose.
# Chosen on the real photos' tune half (0.15 236, 0.2-0.3 237, 0.4 233 of 262; none 233), then the test half
# once: 225 -> 229 of 265, false detections per image the same (0.189).
PAPER_ROWS = 0.25
# ... and after it is grown sideways over the card paper that goes on past it (columns at least PAPER_ROWS
# paper, one after another), at most this many times its width out on each side (crops.paper_reach; None: not):
# the detector's box around two overlapping cards often stops short of the covered card's far edge, where the
# index corner its strip is read by lies.  Chosen on the real photos' tune half (session 36, with
# /work/exp/s36/grow.py: none 241 of 262; reach 0.3 245, 0.5 246, 0.8-1.5 247 at 0.068 false detections per
# photo; at reach 0.5 a column share of 0.2 246, 0.3 243, 0.4 243), then the test half once: 230 -> 236 of
# 265, false detections per photo the same (0.128).
ROW_REACH = 1.0
# Photos: a face the classifier names at under this probability is left out (the table keeps every reading: its
# tracker weighs a card's readings over many frames).  Why: on the real photos the faces the detector boxed
# surely and the classifier could not name were clutter (a towel, a box, a coin, a pip taken for a card): of the
# tune half's faces named at p < 0.2, 14 lay on no card and 1 on a card named right (session 25, chosen there:
# `evaluate real --half tune --face-min-prob P`, then the test half once; models/README.md).
PHOTO_FACE_MIN_PROB = 0.2
# ... and in face-or-back: an index corner model has seen few backs, and an unseen deck's back reads as
# a face there (held-back tango_nuevo's back at the table: p(back) 0.00-0.06 by the corners, 0.5-1.0
# by the whole card).  Chosen on cls-v3/val (1,173 crops, 222 backs): 0.6 / 0.45 / 0.3 / 0.15 give
# 0.755 / 0.766 / 0.772 / 0.773, backs right 87 / 93 / 96 / 98 %, faces taken for backs 0.1 / 0.3 / 0.8 / 2.1 %.
BACK_WEIGHT = 0.3
# Each model's rank distribution is floored at RANK_FLOOR / 13 before the geometric mean (mix_by_parts): a
# model can be near-certain a rank is *not* there on a layout it never saw (the whole card reads the
# held-back tango_nuevo's one-big-pip 3 and 7 as figures, p(3) ~ 1e-4), and one near-zero factor vetoes the
# other model's sure reading.  Chosen on the held-back designs (evaluate designs) and crops (cls-v3/val); see
# the model card.
RANK_FLOOR = 0.05
# ... and the whole card's rank counts at all only where it is sure of it: its likeliest rank at
# WHOLE_RANK_SURE or more, else the corners alone name the rank.  Why: a deck whose pictures the whole-card
# classifier never learned spreads its rank reading (the one-pip tango_nuevo at the table: its top rank
# p 0.48 on average, 0.84-0.88 on the standard decks) and is then right 20 % of the time, against the
# corners' 85 %; at RANK_WEIGHT it still pulled a one-pip 7 to the ace it resembles.  Measured on
# truth-matched frames of the recorded table sessions, seeds 0-17 (/work/exp/s20/adapt.py of session 20),
# cards named right by the tracker's vote: tango_nuevo 0.882 -> 0.911, neoclassical 0.949 -> 0.950, dondorf
# 0.990 = , ornamental 0.997 = (one card less); 0.5 gave 0.908; the corners alone everywhere (RANK_WEIGHT 1)
# 0.911 on tango_nuevo but 0.940 / 0.989 / 0.991 on the others.  At the table (seeds 0-17, with the deck fix
# of TableTracker._find_anchor): hands scored right 1019 -> 1028 of 1080 with nobody answering, 1055 -> 1052
# answered; on the one-pip sessions of seeds 22-29, rendered after (a check written down before it ran),
# 71 -> 78 of 91 and 80 -> 82; real photos 456 -> 458 of 527.  0 mixes the whole card's rank always.
WHOLE_RANK_SURE = 0.7
# Which crops are cut from the card turned upright (crops.rectified_crop) where its outline is found:
# "blend" (the index corners are read both from the box crop and from the card turned upright, and the
# two readings averaged), "corners" (the upright card's corners only), "both" (the whole card's crop
# upright too) or "none" (box crops only).  "blend" was chosen on the rendered table sessions (face-up
# detections of both seeds matched to the truth, every 10th frame): against "corners" it read every
# held-out design as well or better (the one-pip deck's vira 0.70 -> 0.78 and 0.62 -> 0.78, its cards
# 0.77 -> 0.80 and 0.70 -> 0.73); the upright corners alone read the vira best (0.87) but lost 3-8 points
# on two other designs, where an outline found wrong turns the card the wrong way.
RECTIFY = "blend"
# The windows the index corners are read from, as offsets in from the crop's corner (shares of its side),
# averaged: the corner classifier is unsure of an index cut at its window's edge, or set a little in (the
# one-pip deck's 3 read as 2D 0.35 / 3D 0.26 from one window).  Chosen on the rendered table sessions
# (face-up detections of both seeds matched to the truth, every 10th frame, with "blend"): one window
# 0.930 / 0.891 of the cards right (seed 0 / 1), these four windows (4 px of a 96 px crop) 0.941 / 0.904
# (the one-pip vira 0.82 -> 0.89 / 0.80 -> 0.95), three window sizes 0.936 / 0.897.  On the real photos
# 383 -> 387 of 527 cards right (tune half 186 -> 188, test half 197 -> 199), on the held-back crops
# 0.719 -> 0.742 (evaluate classifier --crops .../cls/val, --one-window for one).
CORNER_SHIFTS = ((0.0, 0.0), (0.042, 0.0), (0.0, 0.042), (0.042, 0.042))
# ... but the table reads one window: there the four logged no more cards right (seed 0 97.1 -> 96.3 %,
# seed 1 94.5 -> 95.1 %, the same hands scored right) and cost a quarter of the replay speed (10.6x ->
# 8.1x): the tracker's vote over many frames already does what averaging windows does within one.
ONE_WINDOW = ((0.0, 0.0),)  # the window cut for training alone
TABLE_CORNER_SHIFTS = ONE_WINDOW
# The suit as the other two corners show it: the top-right and bottom-left corners, mirrored so that a
# suit sign printed there (a minimalist deck prints its rank top left and its suit top right; suit signs
# are the same mirrored) sits where the corner classifier looks, read by it for the suit alone and mixed
# into the card's suit with this weight (0: not read).  Chosen on the rendered table sessions (face-up
# detections of both seeds matched to the truth, every 10th frame): 0 / 0.2 / 0.4 / 0.6 gave the one-pip
# deck's cards 0.804 / 0.808 / 0.809 / 0.817 and 0.733 / 0.738 / 0.754 / 0.754 right, dondorf 0.977 -> 0.989
# and 0.908 -> 0.926 at 0.4, the others within 0.005.
SUIT_CORNER_WEIGHT = 0.4
# The rank as the other two corners show it, read as they lie (``companion.vision.crops.side_views``) by a
# corner model that learned an index in a view's top right (glyph corners drawn with ``--side right``), mixed
# into the card's rank with this weight times how far either window is not read as ``HIDDEN`` (no index
# there).  0: not read.  The shipped photo corners v15 never saw an index there (session 45 read them anyway
# at 0.2: val54 +0.0003).  Session 46's v17 candidate learned it (rank right on right glyphs 0.28 -> 0.92) and
# at 0.2 read kde-oxygen-white's cards in full view 0.68 -> 0.70 and 0.73 -> 0.77, but the model itself lost
# elsewhere (val57 0.6578 -> 0.6389) and was not shipped (bench/evaluation-history.md, session 46).
SIDE_RANK_WEIGHT = 0.0
SIDE_RANK_CLEAR = False  # ... only for cards no other box overlaps (``OVERLAP_MIN``)
# Photos may also read each card's top and bottom bands (``companion.vision.crops.band_views``: the crop's
# whole width, where a deck prints rank and suit side by side) with a band model,
# ``card-bands-<family>-photo.onnx`` (its classes the corner model's: the cards, then ``HIDDEN`` for a band
# that shows no index of its own), and average its reading into the corners' with this weight times how far
# either band is not read as ``HIDDEN``.  0: not read.  Session 50 (band model b1; models/README.md), chosen
# among 0.5, 1, 2 on val48's first 200 scenes (mAP50 0.6441 without bands -> 0.6883, 0.6936, 0.6806), then on
# four unseen 600-scene seeds by a rule written before the model existed: val82-85 0.6575 -> 0.6789, 0.6693 ->
# 0.6989, 0.6571 -> 0.6857, 0.6973 -> 0.7221 (mean +0.0261); real photos 496 -> 494 of 527, false detections per
# photo 0.091 -> 0.085 (the rule asked >= 493).  The table reads no bands (its weight is 0).
BAND_WEIGHT = 1.0
# A corner model may name one class more than the card classifier, last: a window whose own card's index lies
# under another card (``companion dataset scene-corners --hidden-share``).  How its readings are used:
# "drop" (its share dropped, the rest renormalised, as a model without the class reads), "weigh" (a hidden
# window counts for less, :func:`corners_for_faces`), "overlap" ("weigh" for a card whose box another box covers
# ``OVERLAP_MIN`` of, "drop" for the rest).  Why "overlap": only a card with another on it can have an index
# under a card, and "weigh" made lone boxes on clutter surer: with session 41's v13 "weigh" read more synthetic
# mAP50 but lost real cards (tune half 249 -> 246) and added false detections (0.108 -> 0.162 a photo).
# Session 43, v13 on val43's first 200 scenes: drop 0.6410, weigh 0.6440, overlap 0.6481 (``OVERLAP_MIN``
# 0.05) and 0.6508 (0.2); on unseen scenes "overlap" 0.2 +0.005 and +0.009 (val46, val47), and with the photo
# corner model v15 (shipped with it) +0.014 and +0.018 (val48, val49); real photos 492 -> 495 of 527, false per
# photo 0.101 -> 0.088 (tune) and 0.088 -> 0.108 (test) (models/README.md).  The table's corner model has no
# such class: it reads as before.
HIDDEN_MODES = ("drop", "weigh", "overlap")
HIDDEN_MODE = "overlap"
# Photos mix the two readings' faces whole into rank times suit with this share (:func:`mix_by_parts`'s
# ``joint_weight``; the table: 0, not measured there).  Session 42 (v13 "drop"; chosen among 0.15, 0.3, 0.5 on
# val43's first 200 scenes: 0.6294 -> 0.6360, 0.6410, 0.6390): on 600 unseen scenes of each of two seeds
# mAP50 0.6293 -> 0.6392 and 0.6190 -> 0.6303 (partly covered cards named right 0.506 -> 0.515, 0.508 ->
# 0.526); with it faint boxes are kept from p 0.40 (``FAINT_MIN_PROB``): real photos 249 = 249 (tune, false
# per photo 0.108 -> 0.101) and 243 = 243 (test, 0.115 -> 0.088).
JOINT_WEIGHT = 0.3
# Photos show one deck: the frame's faces named as one deck most likely is (no name held twice;
# :func:`companion.vision.merging.one_of_each`).  Off: session 42, on the first 200 scenes of val43 mAP50
# 0.6294 -> 0.6310 (named right 0.6691 -> 0.6707), on 600 unseen scenes (val44, with ``JOINT_WEIGHT``) 0.6392
# -> 0.6411, under the +0.003 its rule asked.  A fifth of the covered cards' misreadings
# (33 of 176, val43) are another card's name: the most it can mend.
ONE_DECK = False
# A box is overlapped when another box covers at least this share of it (``HIDDEN_MODE`` "overlap"; chosen
# between 0.05 and 0.2 on val43's first 200 scenes).
OVERLAP_MIN = 0.2
RECTIFY_MODES = ("none", "corners", "both", "blend")
DETECTOR_SIZE = 320  # the detector's long side (its training size)
DETECTOR_STRIDE = 32  # its largest stride: a dynamic input's sides are multiples of it
# ... and a dynamic input's shortest side: the end-to-end head keeps its 300 best of the input's anchor
# cells (a TopK), and 320 x 32 has 210 of them (onnxruntime then fails); 320 x 64 has 420
DETECTOR_MIN_SIDE = 64
# Photos letterbox every view to the detector's 320x320 square; the table pads a frame only to the stride
# (CardDetector's ``square``).  Why apart (session 45, the detector exported with a dynamic input, the same
# weights): the table's 1280x720 frame ran 6.4 and 4.6 ms faster on average in two sets of three runs taken
# in turn (1.6-8.4 ms a pair), the table's hands and the synthetic figure held (seeds 0-7: 467 -> 468 and
# 476 -> 477 of 480; fresh seeds 8-15: 458 -> 461 and 473 -> 474; mAP50 val52 0.6725 -> 0.6765, val53 0.6704
# -> 0.6710), but the real photos lost 6 of 527 cards (495 -> 489, false per photo 0.098 -> 0.112).
PHOTO_SQUARE = True
TABLE_CONF = 0.3  # one view: the lowest swept threshold within 0.2 false detections per real photo (v3)


def classifier_file(family: str, photo: bool = False) -> str:
    """The whole-card classifier's file; ``photo``: the one the photo settings read, when shipped."""
    return f"card-classifier-{family}-photo.onnx" if photo else f"card-classifier-{family}.onnx"


def corner_file(family: str, photo: bool = False) -> str:
    """The corner classifier's file; ``photo``: the one the photo settings read, when shipped."""
    return f"card-corners-{family}-photo.onnx" if photo else f"card-corners-{family}.onnx"


def band_file(family: str) -> str:
    """The band model's file (photos only; see ``BAND_WEIGHT``)."""
    return f"card-bands-{family}-photo.onnx"


def shipped_file(models: Path, name_for: Callable[..., str], family: str, photo: bool) -> Path:
    """``name_for(family, photo=True)`` in ``models`` when ``photo`` and that file is shipped, else the table's
    ``name_for(family)``: the photo settings read their own corner model and classifier where they exist."""
    path = models / name_for(family, photo=True)
    return path if photo and path.is_file() else models / name_for(family)


class ModelError(RuntimeError):
    """Weights are missing, unreadable or not the expected model."""


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
    (for a back: its likeliest faces, for where the rules forbid a face-down card).
    """

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    rank_confidence: float = 1.0
    detector_confidence: float = 1.0
    alternatives: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict:
        return {"card": self.card, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box]}


def _session(path: Path, threads: int):
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    try:
        ort.disable_telemetry_events()
    except AttributeError:
        pass
    if not path.is_file():
        raise ModelError(f"model file not found: {path} (expected the shipped weights in models/, "
                         f"or set COMPANION_MODELS)")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # Two to three sessions run one after another on 2 cores: a pool left spinning after its run
    # takes the cores from the next session's run.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types for corrupt files
        raise ModelError(f"cannot load model {path}: {str(exc).splitlines()[0][:200]}") from None


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


def photo_settings(conf: float | None = None, scales: list[float] | tuple[float, ...] | None = None,
                   outlines: bool | None = None, faint_conf: float | None = None,
                   faint_min_prob: float | None = None, rows: bool | None = None,
                   face_min_prob: float | None = None, merge_iou: float | None = None,
                   photo_corners: bool = True, one_deck: bool | None = None,
                   joint_weight: float | None = None, square: bool = PHOTO_SQUARE,
                   photo_classifier: bool = True, band_weight: float | None = None) -> dict:
    """The detector's threshold and scales for photos: the shrunk view and its threshold unless told
    otherwise (one view alone keeps the table's 0.3), and with it the outline search
    (:mod:`companion.vision.outlines`; ``outlines`` None: on with the shrunk view, off with the table's one view)
    and the faint boxes (``faint_conf`` None: ``FAINT_CONF`` with the shrunk view, none with one view; 0: none),
    and rows of overlapping cards split (``rows`` None: with the shrunk view, see :meth:`CardDetector.split_rows`),
    and faces named under ``face_min_prob`` left out (None: ``PHOTO_FACE_MIN_PROB`` with the shrunk view, 0 with one),
    and faces named alike whose boxes overlap by ``merge_iou`` made one (None: ``MERGE_IOU``, with one view too:
    a photo shows one deck; 0: not; :mod:`companion.vision.merging`), and no name held twice where a runner-up
    can take it (``one_deck``; None: ``ONE_DECK``, with one view too), and the readings' faces mixed whole
    beside rank times suit (``joint_weight``; None: ``JOINT_WEIGHT``, with one view too), and the corners read
    with the photo corner model where one is shipped (``photo_corners``; see :class:`CardDetector`), and the
    whole card with the photo classifier where one is shipped (``photo_classifier``), and the index bands with
    the band model where one is (``band_weight``; None: ``BAND_WEIGHT``), and every
    view letterboxed to the detector's square (``square``; see ``PHOTO_SQUARE``)."""
    chosen = tuple(scales) if scales else PHOTO_SCALES
    if conf is None:
        conf = PHOTO_CONF if len(chosen) > 1 else TABLE_CONF
    if outlines is None:
        outlines = len(chosen) > 1
    if faint_conf is None and len(chosen) > 1:
        faint_conf = FAINT_CONF
    if not faint_conf:  # 0: none
        faint_conf = None
    if rows is None:
        rows = len(chosen) > 1
    if face_min_prob is None:
        face_min_prob = PHOTO_FACE_MIN_PROB if len(chosen) > 1 else 0.0
    return {"conf": conf, "scales": chosen, "outlines": outlines, "faint_conf": faint_conf,
            "faint_min_prob": FAINT_MIN_PROB if faint_min_prob is None else faint_min_prob, "rows": rows,
            "face_min_prob": face_min_prob, "merge_iou": MERGE_IOU if merge_iou is None else (merge_iou or None),
            "photo_corners": photo_corners, "one_deck": ONE_DECK if one_deck is None else one_deck,
            "joint_weight": JOINT_WEIGHT if joint_weight is None else joint_weight, "square": square,
            "photo_classifier": photo_classifier, "band_weight": BAND_WEIGHT if band_weight is None else band_weight}


def letterbox(image: np.ndarray, size: int, stride: int | None = None,
              min_side: int = 0) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping aspect, pad to size x size with grey 114 (as ultralytics does); with ``stride``, pad
    each side only up to the next multiple of it and to at least ``min_side`` (a 1280x720 frame at 320:
    320x192), for a detector exported with a dynamic input: the picture's pixels are the same, the grey
    bands are not computed."""
    h, w = image.shape[:2]
    r = min(size / h, size / w)
    nw, nh = max(1, int(round(w * r))), max(1, int(round(h * r)))  # a sliver of an image keeps a row
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    out_w, out_h = (size, size) if stride is None else (max(-(-nw // stride) * stride, min_side),
                                                         max(-(-nh // stride) * stride, min_side))
    px, py = (out_w - nw) / 2, (out_h - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = cv2.copyMakeBorder(resized, top, out_h - nh - top, left, out_w - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, r, (left, top)


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
              if _inside(o, box) >= 0.9 and 0.3 <= (o[2] - o[0]) * (o[3] - o[1]) / area <= 0.7]
    return np.asarray(inside[0], dtype=box.dtype) if len(inside) == 1 else box


def _inside(a: np.ndarray, b: np.ndarray) -> float:
    """The share of box ``a`` inside box ``b``."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ix * iy / max((a[2] - a[0]) * (a[3] - a[1]), 1e-9)


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
    ``band_weight``: read each card's index bands with ``card-bands-<family>-photo.onnx`` when the models folder
    has one (and a corner model is read), averaged into the corners' reading with this weight (``BAND_WEIGHT``;
    0: not loaded).
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
                 side_rank_clear: bool = False, photo_classifier: bool = False, band_weight: float = 0.0) -> None:
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
        self.outlines = outlines
        self.outline_min_prob = outline_min_prob
        if faint_conf is not None and not 0.0 < faint_conf < conf:
            raise ValueError(f"faint_conf must be in (0, conf={conf}), got {faint_conf!r}")
        self.faint_conf = faint_conf
        self.faint_min_prob = faint_min_prob
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
        self.shrunk_overlap = 0.2  # ... and not overlapping a full-view box more than this (IoU)
        self.det = _session(self.models_dir / DETECTOR_FILE, threads)
        self.det_names = _names(self.det)
        self.det_input = self.det.get_inputs()[0].name
        shape = self.det.get_inputs()[0].shape
        self.imgsz = int(shape[2]) if isinstance(shape[2], int) else DETECTOR_SIZE
        # a detector exported with a dynamic input reads a frame letterboxed to its own shape's stride multiple
        self.det_stride = None if isinstance(shape[2], int) or square else DETECTOR_STRIDE
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
        if not corner_shifts or any(not (0.0 <= dx < 0.45 and 0.0 <= dy < 0.5) for dx, dy in corner_shifts):
            raise ValueError(f"corner_shifts must be (x, y) shares in [0, 0.45) x [0, 0.5), got {corner_shifts!r}")
        self.corner_shifts = tuple(corner_shifts)
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
        """(boxes Nx4 in image pixels, scores N, classes N) from the 2-class detector, at every scale, and with
        ``outlines`` the outlines no detector box covers (class ``OUTLINE_CLASS``, score ``OUTLINE_SCORE``)."""
        # every view's boxes down to faint_conf in one pass each: those under the threshold are faint
        parts, faint_boxes, faint_scores = [], [], []
        for f in self.scales:
            b, sc, c = self._boxes_at(image_bgr, f, self.faint_conf)
            low = sc < self.conf
            parts.append((b[~low], sc[~low], c[~low]))
            faint_boxes.append(b[low])
            faint_scores.append(sc[low])
        if len(parts) > 1:
            # a shrunk view only adds cards the larger views missed: a box there that overlaps one found
            # in a larger view is that card again, or several cards taken for one (checked against the
            # full view alone, and not at all when it found nothing, a big card two shrunk views found
            # counted twice)
            for k in range(1, len(parts)):
                b, sc, c = parts[k]
                seen = np.concatenate([p[0] for p in parts[:k]]).reshape(-1, 4)  # every larger view's boxes
                new = np.array([not (len(seen) and (box_iou(x, seen) > self.shrunk_overlap).any()) for x in b],
                               dtype=bool)
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

    def _faint_boxes(self, b: np.ndarray, sc: np.ndarray, found: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The views' boxes ``b`` scored from ``faint_conf`` up to the threshold that no box in
        ``found`` (surer boxes, outlines) overlaps, as class ``FAINT_CLASS``: :meth:`name_boxes` keeps those
        the classifier names a face surely enough (``faint_min_prob``)."""
        sure = np.concatenate([p[0] for p in found]).reshape(-1, 4)
        new = np.array([not (len(sure) and (_hides(sure, x) & (box_iou(x, sure) > self.shrunk_overlap)).any())
                        for x in b], dtype=bool)
        b, sc = b[new].reshape(-1, 4), sc[new]
        best = np.argsort(-sc, kind="stable")[:FAINT_MAX]
        b, sc = b[best], sc[best]
        return b, sc, np.full(len(b), FAINT_CLASS, dtype=int)

    def _boxes_at(self, image_bgr: np.ndarray, factor: float,
                  conf: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        h, w = image_bgr.shape[:2]
        top = left = 0
        view = image_bgr
        if factor < 1.0:  # the image in the middle of a grey canvas 1/factor times its size
            big_h, big_w = int(round(h / factor)), int(round(w / factor))
            top, left = (big_h - h) // 2, (big_w - w) // 2
            view = cv2.copyMakeBorder(image_bgr, top, big_h - h - top, left, big_w - w - left,
                                      cv2.BORDER_CONSTANT, value=(114, 114, 114))
        img, r, (pad_x, pad_y) = letterbox(view, self.imgsz, self.det_stride, DETECTOR_MIN_SIDE)
        blob = np.ascontiguousarray(img[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255.0
        out = self.det.run(None, {self.det_input: blob})[0]
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
        if factor < 1.0:
            side = np.maximum((boxes[:, 2] - boxes[:, 0]) / w, (boxes[:, 3] - boxes[:, 1]) / h)
            big = side >= self.big_fraction
            boxes, scores, classes = boxes[big], scores[big], classes[big]
        return boxes, scores, classes

    def classify(self, image_bgr: np.ndarray, boxes: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Card names and probabilities for face-up card boxes ("?" and 0 where no crop could be cut)."""
        readings = self.readings(image_bgr, boxes, 1)
        return ([r[0][0] if r else "?" for r in readings],
                np.array([r[0][1] if r else 0.0 for r in readings], dtype=np.float64))

    def readings(self, image_bgr: np.ndarray, boxes: np.ndarray, k: int = 3,
                 overlapped: np.ndarray | None = None) -> list[list[tuple[str, float]]]:
        """The ``k`` likeliest names of each card box, with probabilities, best first.

        The runners-up matter at the table: when the best reading is impossible
        (already played, not in the deck) the tracker asks about the next ones.
        An empty list where no crop could be cut.  ``overlapped`` (N bools, :func:`overlapped_boxes`): which
        cards another box overlaps (read with ``hidden_mode`` "overlap"; None: none).
        """
        crops, ok = [], []
        for i, b in enumerate(boxes):
            c = crop_card(image_bgr, tuple(b), self.crop)
            if c is not None:
                crops.append(c)
                ok.append(i)
        out_list: list[list[tuple[str, float]]] = [[] for _ in range(len(boxes))]
        if not crops:
            return out_list
        whole = np.stack(crops)
        big = None
        if self.corners is not None and self.corner_crop and self.corner_crop != self.crop:
            # (a box crop_card could cut at one size it can cut at any other)
            big = np.stack([crop_card(image_bgr, tuple(boxes[i]), self.corner_crop) for i in ok])
        upright = None
        if self.corners is not None and self.rectify in ("corners", "both", "blend"):
            size = self.corner_crop or self.crop
            upright = [rectified_crop(image_bgr, tuple(boxes[i]), size) for i in ok]
            if self.rectify != "blend":
                base = big if big is not None else whole
                big = np.stack([u if u is not None else base[j] for j, u in enumerate(upright)])
                if self.rectify == "both" and size == self.crop:
                    whole = big
                upright = None
        out = self.classify_crops(whole, big, upright, None if overlapped is None else np.asarray(overlapped)[ok])
        if self.prior is not None:
            out = out * self.prior
            out = out / np.maximum(out.sum(axis=1, keepdims=True), 1e-12)
        top = np.argsort(-out, axis=1)[:, :k]
        for j, i in enumerate(ok):
            out_list[i] = [(self.cls_names[int(c)], float(out[j, c])) for c in top[j]]
        return out_list

    def classify_crops(self, crops_bgr: np.ndarray, corner_crops: np.ndarray | None = None,
                       upright: list[np.ndarray | None] | None = None,
                       overlapped: np.ndarray | None = None) -> np.ndarray:
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
        """
        out = self.whole_readings(crops_bgr)
        if self.corners is not None:
            base = crops_bgr if corner_crops is None else corner_crops
            corners = self.corner_readings(base, overlapped=overlapped)
            found = [j for j, u in enumerate(upright or []) if u is not None]
            turned_crops = np.stack([upright[j] for j in found]) if found else None
            if found:
                turned = self.corner_readings(turned_crops,
                                              overlapped=None if overlapped is None else overlapped[found])
                corners[found] = (corners[found] + turned) / 2.0
            if self.bands is not None:
                corners = self._with_bands(corners, base, found, turned_crops)
            out = self.mix(out, corners)
            sides = self.back_index is not None and (self.suit_corner_weight > 0.0 or self.side_rank_weight > 0.0)
            if sides:
                sources = np.stack([u if u is not None else base[j]
                                    for j, u in enumerate(upright or [None] * len(base))])
                if self.suit_corner_weight > 0.0:
                    out = self._with_side_suits(out, sources)
                if self.side_rank_weight > 0.0:
                    out = self._with_side_ranks(out, sources, overlapped)
        return out

    def band_readings(self, crops_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The band model's probabilities (N x classes), the two bands combined (:func:`corners_for_faces`, each
        as far as it is not read as ``HIDDEN``), and how far the surer band shows an index (N)."""
        if self.bands is None:
            raise ModelError(f"no {self.band_path.name} loaded")
        n = len(crops_bgr)
        raw = _run_batch(self.bands, self.band_input, self.band_batch, band_views(crops_bgr, self.band_size))
        readings, seen = without_hidden(raw, self.band_hidden)
        both = corners_for_faces(readings[:n], readings[n:], self.back_index, (seen[:n], seen[n:]))
        return both, np.maximum(seen[:n], seen[n:])

    def _with_bands(self, corners: np.ndarray, crops_bgr: np.ndarray, found: list[int],
                    turned_crops: np.ndarray | None) -> np.ndarray:
        """The corners' readings with the bands' averaged in (``band_weight`` times how far a band shows an
        index), the bands read from the box crop and, for the cards ``found`` upright (``turned_crops``, the
        corners' own), from the card turned upright too (averaged, as the corners are).  Why: a deck printing
        rank and suit apart along its top shows no corner window both (``BAND_WEIGHT``)."""
        bands, seen = self.band_readings(crops_bgr)
        if found:
            turned, turned_seen = self.band_readings(turned_crops)
            bands[found] = (bands[found] + turned) / 2.0
            seen[found] = (seen[found] + turned_seen) / 2.0
        weight = self.band_weight * seen[:, None]
        return (corners + weight * bands) / (1.0 + weight)

    def _with_side_ranks(self, probs: np.ndarray, crops_bgr: np.ndarray,
                         overlapped: np.ndarray | None = None) -> np.ndarray:
        """``probs`` with each card's rank leaning on its top-right and bottom-left corners read as they lie
        (:func:`side_views`), raised to ``side_rank_weight`` times how far the surer of the two windows is not
        read as ``HIDDEN``: a window with no index in it (most decks print nothing there) says little.  With
        ``side_rank_clear``, only for cards no other box overlaps (``overlapped``, None: all read): a covered
        card's side window often holds the index of the card above."""
        raw = _run_batch(self.corners, self.corner_input, self.corner_batch, side_views(crops_bgr, self.corner_size))
        readings, seen = without_hidden(raw, self.corner_hidden)
        n = len(crops_bgr)
        side = corners_for_faces(readings[:n], readings[n:], self.back_index, (seen[:n], seen[n:]))
        ranks, _ = split_faces(side, self.parts)
        weight = self.side_rank_weight * np.maximum(seen[:n], seen[n:])[:, None]
        if self.side_rank_clear and overlapped is not None:
            weight = weight * (~np.asarray(overlapped, dtype=bool))[:, None]
        return _leaning(probs, weight * (np.log(ranks + 1e-9) @ self.parts.ranks.T))

    def _with_side_suits(self, probs: np.ndarray, crops_bgr: np.ndarray) -> np.ndarray:
        """``probs`` with each card's suit leaning on its other two corners (``suit_corner_weight``): the
        crops mirrored left to right put the top-right and bottom-left corners where the corner
        classifier looks, and its suit reading there multiplies the faces' probabilities, raised to the
        weight.  Why: a minimalist deck prints its suit sign alone in the top-right corner, where the
        index corners do not look, and the whole card's suit was the one read wrong (a king of spades
        read as diamonds); a standard deck's other corners repeat its index or are bare (a bare corner
        leans on no suit much)."""
        side = self.corner_readings(np.ascontiguousarray(crops_bgr[:, :, ::-1]), ONE_WINDOW)
        _, suits = split_faces(side, self.parts)
        return _leaning(probs, self.suit_corner_weight * (np.log(suits + 1e-9) @ self.parts.suits.T))

    def mix(self, whole: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The whole card's and the corners' readings as one, with this detector's weights."""
        if self.rank_weight is None or self.corner_weight <= 0.0:
            return mix_readings(whole, corners, self.corner_weight)
        return mix_by_parts(whole, corners, self.parts, self.corner_weight, self.rank_weight, self.back_weight,
                            self.rank_floor, self.whole_rank_sure, self.joint_weight)

    def whole_readings(self, crops_bgr: np.ndarray) -> np.ndarray:
        """The whole-card classifier's probabilities (N x classes).

        With ``tta`` each crop is also read upside down and the two readings are
        averaged: a card is the same card both ways up (its two index corners), the
        classifier was trained on both, and its two mistakes rarely agree.
        """
        n = len(crops_bgr)
        views = np.concatenate([crops_bgr, crops_bgr[:, ::-1, ::-1]]) if self.tta else crops_bgr
        out = _run_batch(self.cls, self.cls_input, self.cls_batch, views)
        return (out[:n] + out[n:]) / 2.0 if self.tta else out

    def corner_readings(self, crops_bgr: np.ndarray,
                        shifts: tuple[tuple[float, float], ...] | None = None,
                        overlapped: np.ndarray | None = None) -> np.ndarray:
        """The corner classifier's probabilities (N x classes), both corners combined
        (:func:`corners_for_faces`; averaged for a model without a back class), averaged over the
        windows of ``shifts`` (default ``corner_shifts``).
        The two corners of a crop are the two corners of it upside down: no separate half turn."""
        if self.corners is None:
            raise ModelError(f"no {self.corner_path.name} loaded")
        n = len(crops_bgr)
        shifts = self.corner_shifts if shifts is None else shifts
        views = np.concatenate([corner_views(crops_bgr, self.corner_size, o) for o in shifts])
        out, seen = without_hidden(_run_batch(self.corners, self.corner_input, self.corner_batch, views),
                                   self.corner_hidden)
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

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        """All cards in a BGR uint8 image, best first."""
        if image_bgr is None or not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3:
            raise ImageError("expected a BGR image array of shape HxWx3")
        if image_bgr.shape[2] == 4:
            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_BGRA2BGR)
        return self.read_boxes(image_bgr, *self.find_boxes(image_bgr))

    def read_boxes(self, image_bgr: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                   classes: np.ndarray) -> list[Detection]:
        """What :meth:`detect` does after :meth:`find_boxes`: the boxes named, rows cut (``rows``), faces
        named weakly left out (``face_min_prob``), one card boxed twice made one (``merge_iou``), no name held
        twice (``one_deck``).  A stage of its own so that latency is timed end to end."""
        found = self.name_boxes(image_bgr, boxes, scores, classes)
        if self.rows and self.corners is not None:
            found = self.split_rows(image_bgr, found)  # a row's box is named weakly as one card: cut it first
        found = [d for d in found if d.card == "back" or d.rank_confidence >= self.face_min_prob]
        found = merge_same_cards(found, self.merge_iou) if self.merge_iou is not None else found
        return one_of_each(found) if self.one_deck else found

    def index_readings(self, image_bgr: np.ndarray, boxes: list[tuple[float, float, float, float]],
                       corner: int) -> np.ndarray:
        """The corner classifier's probabilities (N x classes) for one index corner of each box's card,
        0 the top-left, 1 the bottom-right (turned a half turn), from the training window alone; zeros
        where no crop could be cut.  Why one corner: a card partly covered shows only one.  A model with a
        ``HIDDEN`` class has its share left out (not renormalised with ``hidden="weigh"``: a strip whose index
        is read as hidden is read weakly, and a row's cutting whose strips are not all sure is not taken)."""
        if self.corners is None:
            raise ModelError(f"no {self.corner_path.name} loaded")
        out = np.zeros((len(boxes), len(self.cls_names)))
        crops = [crop_card(image_bgr, tuple(b), self.crop) for b in boxes]
        ok = [i for i, c in enumerate(crops) if c is not None]
        if ok:
            cut = np.stack([crops[i] for i in ok])
            views = top_left_views(cut if corner == 0 else cut[:, ::-1, ::-1], self.corner_size)
            out[ok] = without_hidden(_run_batch(self.corners, self.corner_input, self.corner_batch, views),
                                     self.corner_hidden, renormalise=self.hidden_mode != "weigh")[0]
        return out

    def _index_faces(self, image_bgr: np.ndarray, boxes: list[tuple[float, float, float, float]],
                     corner: int) -> np.ndarray:
        """:meth:`index_readings` with the back's share taken out: a strip beside or under a card is read
        for the face it shows (what a card's index looks like where it does not say "back")."""
        probs = self.index_readings(image_bgr, boxes, corner)
        if self.back_index is not None:
            probs[:, self.back_index] = 0.0
        return probs

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
        index beside it, are no card).  All strips of the picture are read in one batch per corner."""
        others = [o.box for o in detections]
        tried = [(d, b) for d in detections if d.card != "back"
                 for b in beside(d.box, image_bgr.shape[1], others) if paper_share(image_bgr, b.strip) >= STRIP_PAPER]
        if not tried:
            return []
        probs = np.zeros((len(tried), len(self.cls_names)))
        for corner in (0, 1):
            mine = [i for i, (_, b) in enumerate(tried) if b.corner == corner]
            if mine:
                probs[mine] = self._index_faces(image_bgr, [tried[i][1].reaching for i in mine], corner)
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
                out.append(Detection(name, score * p, tried[i][1].strip, p, score, alts))
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
        batch per corner for the whole picture, cheap); the top cards, read whole as any card is (costly),
        only for the cuttings whose strips all read surely, all in one batch too.  Why batches: a photo has
        several boxes wide enough to be tried as rows, each with up to 18 cuttings; read a box at a time
        (before session 36) the rows took longer than naming the boxes did."""
        strips = {corner: [(k, i, b) for k, (_, cuts) in enumerate(plans) for i, c in enumerate(cuts)
                           if c.corner == corner for b in c.reaching] for corner in (0, 1)}
        probs: dict[tuple[int, int], list[np.ndarray]] = {}
        for corner, wanted in strips.items():
            # a cutting's first strip is every cutting's of that end and corner: each box read once
            boxes = list(dict.fromkeys(b for _, _, b in wanted))
            if boxes:
                read = dict(zip(boxes, self._index_faces(image_bgr, boxes, corner)))
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
                               tuple((n, score * p) for n, p in others[:3] if n != "back"))]
            for box, ((n, p), alts) in zip(cut.strips, reads[(k, mine[pick])]):
                parts.append(Detection(n, score * p, box, p, score, alts))
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
                 or (self.side_rank_weight > 0.0 and self.side_rank_clear))
        overlapped = overlapped_boxes(boxes, read, self.overlap_min) if flags else None
        readings = self.readings(image_bgr, boxes[read], 4, overlapped)
        result: list[Detection] = []
        named: set[int] = set()
        for k, i in enumerate(read):
            if not readings[k]:
                continue
            named.add(int(i))
            box = tuple(float(v) for v in boxes[i])
            said_back = classes[i] == BACK_CLASS
            (name, prob), others = readings[k][0], readings[k][1:]
            faces = [(n, p) for n, p in readings[k] if n != "back"]
            # a back keeps the classifier's face readings as runners-up: where the rules forbid a
            # face-down card, the tracker asks about the likeliest face instead of losing the play
            face_alts = tuple((n, float(scores[i] * p)) for n, p in faces[:3])
            if (name == "back") != said_back and prob < self.overrule:
                # the classifier contradicts the detector's face/back call without being sure: keep the call
                if said_back or not faces:
                    result.append(Detection("back", float(scores[i]), box, 1.0, float(scores[i]), face_alts))
                    continue
                (name, prob), others = faces[0], faces[1:]
            if classes[i] == OUTLINE_CLASS and (name == "back" or prob < self.outline_min_prob):
                continue  # an outline named weakly or as a back: no card the detector missed
            if classes[i] == FAINT_CLASS and (name == "back" or prob < self.faint_min_prob):
                continue  # a faint box named weakly or as a back: not a card the detector was unsure of
            if name == "back":  # a back is sure as soon as the detector is: nothing else to name
                result.append(Detection("back", float(scores[i]), box, prob, float(scores[i]), face_alts))
                continue
            result.append(Detection(name, float(scores[i] * prob), box, prob, float(scores[i]),
                                    tuple((n, float(scores[i] * p)) for n, p in others[:3] if n != "back")))
        for i in np.nonzero(classes == BACK_CLASS)[0]:
            if int(i) not in named:
                result.append(Detection("back", float(scores[i]), tuple(float(v) for v in boxes[i]), 1.0,
                                        float(scores[i])))
        result.sort(key=lambda d: -d.confidence)
        return result


def overlapped_boxes(boxes: np.ndarray, which: np.ndarray, share: float = OVERLAP_MIN) -> np.ndarray:
    """Which of ``boxes[which]`` another of ``boxes`` covers at least ``share`` of: the cards that can have an
    index under another card."""
    out = np.zeros(len(which), dtype=bool)
    for k, i in enumerate(which):
        out[k] = any(_inside(boxes[i], boxes[j]) >= share for j in range(len(boxes)) if j != i)
    return out


def _hides(sure: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Which of the ``sure`` boxes can be the card a faint ``box`` overlaps: all but those at least
    ``FAINT_HOLDER`` times its area that hold most (80 %) of it, a box around two or three cards side by side
    (a pair held up, a fan), inside which ``box`` may be one of them."""
    def area(z: np.ndarray) -> float:
        return max(0.0, z[2] - z[0]) * max(0.0, z[3] - z[1])
    return np.array([not (area(s) >= FAINT_HOLDER * area(box) and _inside(box, s) >= 0.8) for s in sure], dtype=bool)


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
