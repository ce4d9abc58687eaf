"""Measure the shipped card models: synthetic mAP, real-photo rank recall, latency.

    python -m companion.vision.evaluate synthetic --data /work/data/french --family french [--limit N] [--every-candidate]
    python -m companion.vision.evaluate real [--dir ../shared/real-photos/french-dev]
    python -m companion.vision.evaluate latency [--frames 50]
    python -m companion.vision.evaluate classifier --crops /work/data/french/cls-v2/val [--no-tta]
    python -m companion.vision.evaluate designs [--height 90]
    python -m companion.vision.evaluate all --data /work/data/french

*synthetic*: end-to-end (detector + classifier) mAP50 and mAP50-95 over the
card classes plus "back", on the ``val`` scenes of a dataset built by
``companion dataset build`` (French val scenes use held-back designs only).
Cards the generator did not label (mostly hidden) are ignored, not counted
as false detections.  Where the mAP goes is reported beside it: the share of
cards boxed and named right, in full view and partly covered, per design and
per card size (``readings_by_design``, ``readings_by_size``); and, as ``nameable``,
the mAP again without the covered cards whose index is hidden (under half of
their best index region in view, at the corners their deck prints it: nothing in
the picture says their rank).  The figure is the photo settings' operating point;
``--every-candidate`` ranks every box the detector scores 0.01 or more, however
weakly named, as the usual mAP protocol does (session 83).

*real*: on the real development photos (rank-only labels, whole-card boxes):
share of labelled cards found with the right rank (a detection of that rank
with IoU >= 0.5), and false detections per image (detections that match no
labelled card).  Evaluation only; never used for training.

*designs*: each held-back French design's own faces, flat and unoccluded, both
ways up, cut and read as at the table: top-1 (and rank) of the whole card, the
index corners alone, and the two mixed, per design.  Needs the Debian card
art; a design that reads badly here reads badly at any angle.

*latency*: decode a 1280x720 JPEG, run both models, post-process; median and
p90 milliseconds per frame and frames per second.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from companion.boxes import iou
from companion.paths import shared_dir
from companion.synth.index_corners import DESIGN_INDEX_CORNERS
from companion.synth.scene import IN_FULL_VIEW, INDEX_WHOLE
from companion.vision import crops as vision_crops
from companion.vision.crops import side_pairs
from companion.vision.detector import FAMILIES, WHOLE_UPRIGHT, CardDetector, read_image
from companion.vision.fusion import PAIRINGS
from companion.vision.merging import NAMESAKE_SHARE, SIZE_LARGE, SIZE_REF_MIN, SIZE_SMALL
from companion.vision.outline_model import OUTLINE_MODEL_FOR
from companion.vision.settings import (BACK_WEIGHT, CORNER_SHIFTS, CORNER_WEIGHT, FAMILY_VIEWS, HIDDEN_MODE,
                                       HIDDEN_MODES, ONE_WINDOW, OUTLINED_SCORE, OVERLAP_MIN, PAPER_ROWS,
                                       PHOTO_SQUARE, RANK_FLOOR, RANK_WEIGHT, RECTIFY, RECTIFY_MODES, ROW_REACH,
                                       SIDE_RANK_CLEAR, SIDE_RANK_WEIGHT, WHOLE_RANK_SURE, photo_settings)

RANK_WORDS = {"ace": "A", "nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K",
              "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8"}


def average_precision(dets: list[tuple[float, bool]], n_gt: int) -> float:
    """COCO-style 101-point interpolated AP from (confidence, is_true_positive) pairs."""
    if n_gt == 0:
        return float("nan")
    if not dets:
        return 0.0
    dets = sorted(dets, key=lambda d: -d[0])
    tp = np.cumsum([d[1] for d in dets])
    fp = np.cumsum([not d[1] for d in dets])
    recall = tp / n_gt
    precision = tp / np.maximum(tp + fp, 1e-9)
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    return float(np.mean([precision[i] if i < len(precision) else 0.0 for i in idx]))


def match_detections(truths: list[dict], dets: list[dict], threshold: float) -> list[tuple[dict, int | None, float]]:
    """The mAP protocol's matching: each detection, most confident first, claims the unclaimed labelled card of its
    own name it overlaps most, if by IoU >= ``threshold``.  Returns (detection, index of the card it claimed or None,
    IoU with the best unclaimed card of its name) in that order.  Kept apart from :func:`map_scores` so a bench
    (``bench/box_tightness.py``) can ask which cards were matched, and how tightly, by the very rule mAP counts."""
    used = [False] * len(truths)
    out: list[tuple[dict, int | None, float]] = []
    for d in sorted(dets, key=lambda d: -d["confidence"]):
        best, bi = 0.0, -1
        for j, truth in enumerate(truths):
            if not used[j] and truth["card"] == d["card"]:
                v = iou(d["box"], truth["box"])
                if v > best:
                    best, bi = v, j
        if best >= threshold:
            used[bi] = True
            out.append((d, bi, best))
        else:
            out.append((d, None, best))
    return out


def verdicts(truths: list[dict], ignored: list[dict], dets: list[dict], threshold: float
             ) -> list[tuple[dict, bool | None]]:
    """The mAP's verdict on each detection of one class (``truths`` and ``dets`` of that class alone): True where it
    claims a labelled card (:func:`match_detections` at ``threshold``), None where it claims none and overlaps an
    unlabelled card (``ignored``, any class) by IoU >= 0.5 (the mAP drops it), else False.  Most confident first.  One
    piece so that what the rescorer is fitted to call right (``companion.training.rescorer``) is what the mAP counts."""
    out: list[tuple[dict, bool | None]] = []
    for d, matched, _ in match_detections(truths, dets, threshold):
        if matched is not None:
            out.append((d, True))
        elif any(iou(d["box"], ig["box"]) >= 0.5 for ig in ignored):
            out.append((d, None))
        else:
            out.append((d, False))
    return out


def map_scores(images: list[tuple[list[dict], list[dict], list[dict]]]) -> dict:
    """mAP50 and mAP50-95 from per-image (ground truth, ignored ground truth, detections).

    Ground truth and detections are dicts with "card", "box" (and "confidence").
    A detection overlapping an ignored (unlabelled) card by IoU >= 0.5 is dropped.
    """
    thresholds = np.arange(0.5, 0.96, 0.05)
    per_t: list[float] = []
    per_class_50: dict[str, float] = {}
    classes = sorted({g["card"] for gts, _, _ in images for g in gts})
    for t in thresholds:
        aps = []
        for cls in classes:
            pairs: list[tuple[float, bool]] = []
            n_gt = 0
            for gts, ignored, dets in images:
                g = [x for x in gts if x["card"] == cls]
                n_gt += len(g)
                pairs += [(d["confidence"], right) for d, right in
                          verdicts(g, ignored, [d for d in dets if d["card"] == cls], t) if right is not None]
            ap = average_precision(pairs, n_gt)
            aps.append(ap)
            if abs(t - 0.5) < 1e-6:
                per_class_50[cls] = ap
        per_t.append(float(np.nanmean(aps)))
    worst = sorted(per_class_50.items(), key=lambda kv: kv[1])[:8]
    out = {"mAP50": per_t[0], "mAP50-95": float(np.mean(per_t)), "classes": len(classes),
           "worst_AP50": {k: round(v, 3) for k, v in worst}}
    if "back" in per_class_50:  # why: backs are one class of 53 in the mAP, but a quarter of a table's cards
        out["back_AP50"] = round(per_class_50["back"], 4)
    return out


def owns(box: list[float], card: dict, others: Iterable[dict] = ()) -> bool:
    """Whether ``box`` is ``card``'s own: it overlaps the card at least 0.5 and no other card of the scene
    (``others``) more."""
    overlap = iou(box, card["box"])
    return overlap >= 0.5 and all(iou(box, o["box"]) <= overlap for o in others)


def boxing_detection(card: dict, dets: list[dict], others: Iterable[dict] = ()) -> dict | None:
    """The detection that boxes a labelled card in the readings, None where none does: one naming it that overlaps
    it at least 0.5 (as the mAP matches it), else the one overlapping it most of those that are its own
    (:func:`owns`; ``others``: the scene's other cards, labelled or not).

    Why the second test (session 101): a card half under another often has no box of its own, and the box of the
    card over it overlaps it by 0.5-0.8; taken for its box, that box's name (the other card's) counted as the
    covered card misread, when the card was not boxed at all."""
    others = list(others)
    scored = sorted(((iou(d["box"], card["box"]), d) for d in dets), key=lambda x: -x[0])
    named = next((d for overlap, d in scored if overlap >= 0.5 and d["card"] == card["card"]), None)
    return named or next((d for _, d in scored if owns(d["box"], card, others)), None)


def reading_shares(images: list[tuple[list[dict], list[dict], list[dict]]]) -> dict:
    """Where the mAP goes: of the labelled cards (the first of each image's triple; the second: the scene's other
    cards, unlabelled or counted apart), the share boxed by a detection (:func:`boxing_detection`, whatever its
    name) and the share boxed and named right, for all cards, those in full view and those partly covered
    (``visible`` under ``IN_FULL_VIEW``, where the scene records it).  A low mAP with most cards boxed is a naming problem, not
    a finding one.  The partly covered are split again by their better index corner (``index_visible``, where
    recorded): at least ``INDEX_WHOLE`` of it in view (the index can be read: a miss there is the reader's) or less
    (a card labelled for the half of it in view, its rank shown by no index: a ceiling for any corner reader)."""
    groups: dict[str, list[int]] = {"all": [0, 0, 0], "in_full_view": [0, 0, 0], "partly_covered": [0, 0, 0],
                                    "covered_index_seen": [0, 0, 0], "covered_index_hidden": [0, 0, 0]}
    for gts, ignored, dets in images:
        for g in gts:
            best = boxing_detection(g, dets, (c for c in gts + ignored if c is not g))
            boxed = best is not None
            right = boxed and best["card"] == g["card"]
            keys = ["all"]
            if "visible" in g:
                covered = g["visible"] < IN_FULL_VIEW
                keys.append("partly_covered" if covered else "in_full_view")
                if covered and "index_visible" in g:
                    keys.append("covered_index_seen" if g["index_visible"] >= INDEX_WHOLE else "covered_index_hidden")
            for k in keys:
                groups[k][0] += 1
                groups[k][1] += boxed
                groups[k][2] += right
    return {k: {"cards": n, "boxed": round(b / n, 4), "named_right": round(r / n, 4)}
            for k, (n, b, r) in groups.items() if n}


# The card sizes the synthetic figures are split by: a card's short side in pixels, its outline's (see
# :func:`card_size`).  Why these: at 640x480 a card 30 px across shows an index about 6 px tall, one of 80 px a
# legible one; session 52 found the full-view cards named right 0.75 under 30 px and 0.94 from 80 px.
SIZE_EDGES = (30, 40, 50, 60, 80)


def card_size(card: dict) -> float | None:
    """A labelled card's short side in pixels: the mean of its outline's (``corners``) two opposite sides, the
    shorter pair (:func:`companion.vision.crops.side_pairs`); None for a scene recorded without outlines."""
    q = card.get("corners")
    if not q or len(q) != 4:
        return None
    return min(side_pairs(np.asarray(q, dtype=np.float64)))


def size_group(px: float) -> str:
    """The name of the :data:`SIZE_EDGES` band a card ``px`` pixels across falls in."""
    low = 0
    for edge in SIZE_EDGES:
        if px < edge:
            return f"under {edge} px" if low == 0 else f"{low}-{edge} px"
        low = edge
    return f"{low} px and more"


def readings_by_size(images: list[tuple[list[dict], list[dict], list[dict]]]) -> dict:
    """:func:`reading_shares` of the labelled cards grouped by size (:func:`size_group`, smallest first), for
    scenes that record outlines ({} for none).  Why: it tells a reader's misses from a scene's cards too small
    to read (the issue asks what limits the synthetic figure)."""
    groups: dict[str, list] = defaultdict(list)
    for gts, ignored, dets in images:
        parts: dict[str, list[dict]] = defaultdict(list)
        for g in gts:
            px = card_size(g)
            if px is not None:
                parts[size_group(px)].append(g)
        for name, cards in parts.items():
            groups[name].append((cards, ignored + [g for g in gts if all(g is not c for c in cards)], dets))
    order = [size_group(0.0)] + [size_group(edge) for edge in SIZE_EDGES]  # smallest first
    return {name: reading_shares(groups[name]) for name in order if name in groups}


# A partly covered card with less than this share of its best index region in view is left out of the
# ``nameable`` figure (neither found nor missed): half a corner usually cuts the rank's glyph, and the rest of
# a card says its rank on few decks (a one-pip deck's number cards on none).
INDEX_READABLE = 0.5


def nameable(card: dict) -> bool:
    """Whether a labelled card shows what names it: a back (its pattern anywhere), a face in full view, or one
    with at least :data:`INDEX_READABLE` of one of its index regions in view (the scene's ``index_visible``; a
    scene without it: every card)."""
    return (card["card"] == "back" or card.get("visible", 1.0) >= IN_FULL_VIEW
            or card.get("index_visible", 1.0) >= INDEX_READABLE)


def _stale_index(rec: dict) -> bool:
    """Whether a scene was rendered before its deck's own index corners were followed (session 53): a face of
    a deck printing its index elsewhere (:data:`companion.synth.index_corners.DESIGN_INDEX_CORNERS`) recorded
    without its regions, its ``index_visible`` measured at the family's corners."""
    return rec.get("design") in DESIGN_INDEX_CORNERS and any(
        c["card"] != "back" and "index_regions" not in c for c in rec["cards"])


def val_scenes(data: Path, family: str, limit: int | None = None) -> list[dict]:
    """The validation scenes of a ``companion dataset build --split val`` folder, at most ``limit`` of them; a
    clear error where the folder holds none of ``family``."""
    scenes_file = data / "scenes" / f"val-{family}.jsonl"
    if not scenes_file.is_file():
        raise FileNotFoundError(f"{scenes_file} not found: build it with `companion dataset build`")
    return [json.loads(line) for line in scenes_file.read_text().splitlines()[: limit or None]]


def val_parser(description: str | None, family: str, candidate: bool = False) -> argparse.ArgumentParser:
    """A parser for a driver that reads a validation folder (the bench drivers): the folder, ``--family`` (default
    ``family``), ``--limit`` and ``--models`` (a candidate's folder, required where ``candidate``; else the shipped
    models unless given); read it with :func:`parse_val_arguments`."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="a validation folder (companion dataset build --split val)")
    parser.add_argument("--family", choices=FAMILIES, default=family)
    parser.add_argument("--limit", type=int, default=None, help="at most this many scenes")
    parser.add_argument("--models", type=Path, required=candidate, default=None,
                        help=("the candidate's models folder" if candidate
                              else "models folder (default: the shipped ones)"))
    return parser


def parse_val_arguments(parser: argparse.ArgumentParser, argv: list[str] | None
                        ) -> tuple[argparse.Namespace, list[dict] | None]:
    """The arguments and the folder's scenes (:func:`val_scenes`); the scenes None, with the reason on stderr,
    where the folder holds none of the family, so a driver stops with a clear message and no traceback."""
    args = parser.parse_args(argv)
    try:
        return args, val_scenes(args.data, args.family, args.limit)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return args, None


def evaluate_synthetic(detector: CardDetector, data: Path, limit: int | None = None) -> dict:
    images = []
    by_design: dict[str, list] = defaultdict(list)
    stale = 0
    for rec in val_scenes(data, detector.family, limit):
        stale += _stale_index(rec)
        img = read_image(data / rec["image"])
        gts = [c for c in rec["cards"] if c["labelled"]]
        ignored = [c for c in rec["cards"] if not c["labelled"]]
        dets = [d.to_dict() for d in detector.detect(img)]
        images.append((gts, ignored, dets))
        by_design[rec.get("design") or "?"].append(images[-1])
    out = map_scores(images)
    out["readings"] = reading_shares(images)
    # the face-down cards apart (session 98: held-out backs went unboxed three times as often as faces)
    backs = [([g for g in gts if g["card"] == "back"], ignored + [g for g in gts if g["card"] != "back"], dets)
             for gts, ignored, dets in images]
    if any(gts for gts, _, _ in backs):
        out["readings_backs"] = reading_shares(backs)
    by_size = readings_by_size(images)
    if by_size:
        out["readings_by_size"] = by_size
    if "?" not in by_design:  # scenes rendered since session 45 name their design
        # why: the misses gather on a few held-out designs (session 45: two of five hold most of them)
        out["readings_by_design"] = {name: reading_shares(imgs) for name, imgs in sorted(by_design.items())}
    # the mAP of the cards a player could name from the picture: each covered card whose index is hidden left
    # out (a detection of it dropped, as an unlabelled card's is); the figure above still counts them
    if stale:
        out["nameable"] = (f"not measured: {stale} scenes were rendered before session 53 (their odd decks' "
                           "index_visible is the family corners'); render them again")
    else:
        kept = [([g for g in gts if nameable(g)], ignored + [g for g in gts if not nameable(g)], dets)
                for gts, ignored, dets in images]
        scores = map_scores(kept)
        out["nameable"] = {"mAP50": scores["mAP50"], "mAP50-95": scores["mAP50-95"],
                           "cards": sum(len(g) for g, _, _ in kept),
                           "left_out": sum(len(g) for g, _, _ in images) - sum(len(g) for g, _, _ in kept),
                           "index_in_view_at_least": INDEX_READABLE}
    out["images"] = len(images)
    out["labelled_cards"] = sum(len(g) for g, _, _ in images)
    return out


HALVES = ("tune", "test")
# ``evaluate --every-candidate``: the thresholds that keep every candidate of the photo pipeline for the mAP's ranking
EVERY_CANDIDATE = {"conf": 0.01, "faint_conf": 0.005, "face_min_prob": 0.0, "faint_min_prob": 0.0}


def real_labels(folder: Path, half: str | None = None) -> dict[str, list[dict]]:
    """A real-photo folder's labelled cards (``labels.csv``) by image name: each its rank and whole-card box.
    ``half``: only the images at even (``tune``) or odd (``test``) places in name order (None: all)."""
    rows = list(csv.DictReader(open(folder / "labels.csv")))
    if half is not None:
        if half not in HALVES:
            raise ValueError(f"half must be one of {HALVES}, got {half!r}")
        names = sorted({r["filename"] for r in rows})
        kept = set(names[HALVES.index(half)::2])
        rows = [r for r in rows if r["filename"] in kept]
    by_image: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_image[r["filename"]].append(
            {"rank": RANK_WORDS[r["class"]], "box": [float(r[k]) for k in ("xmin", "ymin", "xmax", "ymax")]})
    return by_image


def evaluate_real(detector: CardDetector, folder: Path, iou_min: float = 0.5,
                  sweep: tuple[float, ...] = (), half: str | None = None) -> dict:
    """Right-rank share and false detections per image at the detector's threshold and,
    for each threshold of ``sweep`` (above the detector's), the same figures keeping only the
    detections the detector scores at least that high (one detector pass for all with one
    scale; a pass per threshold with a shrunk view, whose additions depend on the threshold).

    ``half``: only the images at even (``tune``) or odd (``test``) places in name order.  A
    setting chosen on the real photos is chosen on ``tune`` and reported on ``test``: they are
    the one real yardstick, and a figure measured on the photos a setting was chosen on flatters it."""
    by_image = real_labels(folder, half)

    spent: list[float] = []

    def faces_found() -> list[tuple[list[dict], list]]:
        out = []
        for name, gts in sorted(by_image.items()):
            image = read_image(folder / name)
            start = time.perf_counter()
            found = detector.detect(image)
            spent.append(time.perf_counter() - start)
            out.append((gts, [d for d in found if d.card != "back"]))
        return out

    seen = faces_found()
    result = _real_scores(seen, detector.conf, iou_min, detector.conf)
    # the photos' own time (decoded already): rows and faint boxes cost more on real photos than on
    # the synthetic frame ``latency`` times
    result["mean_ms_per_photo"] = round(1000 * sum(spent) / max(len(spent), 1), 1)
    if sweep:
        result["sweep"] = {}
        base = detector.conf
        for t in (t for t in sweep if t >= base):
            if len(detector.scales) > 1:
                # with a shrunk view, what it adds depends on what the full view found at the same
                # threshold: filtering one low-threshold pass would not be what the detector does
                detector.conf = t
                try:
                    seen_t = faces_found()
                finally:
                    detector.conf = base
            else:
                seen_t = seen
            result["sweep"][f"{t:g}"] = {k: v for k, v in _real_scores(seen_t, t, iou_min, base).items() if k != "per_rank"}
    return result


def _real_scores(seen: list[tuple[list[dict], list]], threshold: float, iou_min: float, base: float) -> dict:
    """Scores of the detections the detector scores ``threshold`` or more, and of the faint ones it kept
    (scored under its own threshold ``base``: kept because the classifier named them surely)."""
    found = total = false = found_any = 0
    per_rank: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for gts, all_dets in seen:
        dets = [d for d in all_dets if d.detector_confidence >= threshold or d.detector_confidence < base]
        for g in gts:
            total += 1
            per_rank[g["rank"]][1] += 1
            if any(iou(d.box, g["box"]) >= iou_min for d in dets):
                found_any += 1
            if any(d.card[:-1] == g["rank"] and iou(d.box, g["box"]) >= iou_min for d in dets):
                found += 1
                per_rank[g["rank"]][0] += 1
        false += sum(not any(iou(d.box, g["box"]) >= iou_min for g in gts) for d in dets)
    return {"images": len(seen), "labelled_cards": total, "found_right_rank": found,
            "share_right_rank": round(found / max(total, 1), 4), "share_boxed_any_rank": round(found_any / max(total, 1), 4),
            "false_detections_per_image": round(false / max(len(seen), 1), 4),
            "per_rank": {k: f"{v[0]}/{v[1]}" for k, v in sorted(per_rank.items())}}


def evaluate_classifier(detector: CardDetector, folder: Path, batch: int = 64) -> dict:
    """Top-1/top-5, rank-only and suit-only accuracy on a folder of crops (``<folder>/<CARD>/*.jpg``,
    as written by ``companion dataset build`` or ``recrop``), with the detector's own settings."""
    names = detector.cls_names
    index = {v: k for k, v in names.items()}
    files = [(p, p.parent.name) for p in sorted(folder.glob("*/*.jpg")) if p.parent.name in index]
    if not files:
        raise FileNotFoundError(f"no crops of known cards under {folder}")
    top1 = top5 = rank = suit = 0
    for a in range(0, len(files), batch):
        part = files[a:a + batch]
        crops = np.stack([cv2.resize(read_image(p), (detector.crop, detector.crop)) for p, _ in part])
        out = detector.classify_crops(crops)
        order = np.argsort(-out, axis=1)
        for (_, card), row in zip(part, order):
            guess = names[int(row[0])]
            top1 += guess == card
            top5 += index[card] in row[:5]
            rank += guess[:-1] == card[:-1]
            suit += guess[-1] == card[-1]
    n = len(files)
    return {"crops": n, "top1": round(top1 / n, 4), "top5": round(top5 / n, 4), "rank": round(rank / n, 4),
            "suit": round(suit / n, 4), "tta": detector.tta}


def evaluate_designs(detector: CardDetector, height: int = 90, names: list[str] | None = None) -> dict:
    """Per held-back design: how its cards read when nothing is in the way.

    Why: the table evaluation gives one design to each variant, so one design
    nobody can read sinks one variant, and the crop validation mixes all five
    designs into one figure.  This asks each design alone: every card face,
    shrunk to ``height`` pixels (a card at the table is 60-120 px tall in a
    1280x720 frame), on a grey table, read upright and upside down.
    """
    from companion.synth.art import ArtError, card_image, split_designs
    from companion.vision.crops import crop_card

    family = detector.family
    train, held = split_designs(family)
    if names:
        known = {d.name: d for d in train + held}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ArtError(f"no {family} design named {', '.join(unknown)} on this machine "
                           f"(known: {', '.join(sorted(known)) or 'none'})")
        held = [known[n] for n in names]
    if not held:
        raise ArtError(f"no held-back {family} designs on this machine (install the card art packages)")
    index = {v: k for k, v in detector.cls_names.items()}
    out: dict = {}
    for design in held:
        crops, truth = [], []
        for card in design.cards:
            if card not in index:
                continue
            art = card_image(design, card)
            scale = height / art.shape[0]
            small = cv2.resize(art, (max(4, round(art.shape[1] * scale)), height), interpolation=cv2.INTER_AREA)
            alpha = small[:, :, 3:4].astype(np.float32) / 255.0
            h, w = small.shape[:2]
            table = np.full((h + 40, w + 40, 3), 90, np.uint8)
            table[20:20 + h, 20:20 + w] = (small[:, :, :3] * alpha + table[20:20 + h, 20:20 + w] * (1 - alpha)).astype(np.uint8)
            for view in (table, np.ascontiguousarray(table[::-1, ::-1])):
                crops.append(crop_card(view, (20, 20, 20 + w, 20 + h), detector.crop))
                truth.append(card)
        batch = np.stack(crops)
        whole = detector.whole_readings(batch)
        row: dict = {"cards": len(truth)}
        readings = {"whole": whole}
        if detector.corners is not None:
            readings["corners"] = detector.corner_readings(batch)
            readings["mixed"] = detector.classify_crops(batch)  # as the detector reads a card (side suits too)
        else:
            readings["mixed"] = whole
        back = detector.back_index
        for key, probs in readings.items():
            guess = [detector.cls_names[int(i)] for i in probs.argmax(axis=1)]
            row[key] = round(float(np.mean([g == c for g, c in zip(guess, truth)])), 3)
            row[key + "_rank"] = round(float(np.mean([g[:-1] == c[:-1] for g, c in zip(guess, truth)])), 3)
            if back is not None:
                # a face the detector calls a face is named among the faces only (see name_boxes)
                faces = probs.copy()
                faces[:, back] = -1.0
                named = [detector.cls_names[int(i)] for i in faces.argmax(axis=1)]
                row[key + "_as_back"] = round(float(np.mean([g == "back" for g in guess])), 3)
                row[key + "_face"] = round(float(np.mean([g == c for g, c in zip(named, truth)])), 3)
        out[design.name] = row
    return out


def synthetic_frame(seed: int = 0) -> np.ndarray:
    """A 1280x720 table frame from the generator (falls back to noise when no art)."""
    try:
        from companion.synth.art import split_designs
        from companion.synth.build import render_random_scene

        train, hold = split_designs("french")
        designs = hold or train
        if designs:
            rng = np.random.default_rng(seed)
            return render_random_scene(rng, "french", designs, size=(1280, 720)).image
    except Exception:
        pass
    return np.random.default_rng(seed).integers(0, 255, (720, 1280, 3), dtype=np.uint8)


def measure_latency(detector: CardDetector, frames: int = 40) -> dict:
    jpgs = []
    for s in range(4):
        ok, buf = cv2.imencode(".jpg", synthetic_frame(s), [cv2.IMWRITE_JPEG_QUALITY, 90])
        jpgs.append(buf)
    for b in jpgs:  # warm-up
        detector.detect(cv2.imdecode(b, cv2.IMREAD_COLOR))
    times, dec, det, cls = [], [], [], []
    for i in range(frames):
        b = jpgs[i % len(jpgs)]
        t0 = time.perf_counter()
        img = cv2.imdecode(b, cv2.IMREAD_COLOR)
        t1 = time.perf_counter()
        boxes, scores, classes = detector.find_boxes(img)
        t2 = time.perf_counter()
        detector.read_boxes(img, boxes, scores, classes)  # what detect() does after find_boxes (rows too)
        t3 = time.perf_counter()
        times.append(t3 - t0)
        dec.append(t1 - t0)
        det.append(t2 - t1)
        cls.append(t3 - t2)
    med = statistics.median(times)
    return {"frame": "1280x720 JPEG", "frames": frames, "median_ms": round(med * 1000, 1),
            "p90_ms": round(float(np.percentile(times, 90)) * 1000, 1), "fps": round(1 / med, 1),
            "decode_ms": round(statistics.median(dec) * 1000, 1),
            "detector_ms": round(statistics.median(det) * 1000, 1),
            "classifier_ms": round(statistics.median(cls) * 1000, 1), "detector_imgsz": detector.imgsz}


def _shifts(text: str) -> tuple[tuple[float, float], ...]:
    """``--corner-shifts``' value, "x,y;x,y", as CardDetector's ``corner_shifts``."""
    try:
        out = tuple((float(x), float(y)) for x, y in (w.split(",") for w in text.split(";") if w.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected windows as x,y;x,y (shares of the crop), got {text!r}") from None
    if not out:
        raise argparse.ArgumentTypeError("expected at least one window")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m companion.vision.evaluate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=("synthetic", "real", "latency", "classifier", "designs", "all"))
    p.add_argument("--family", default="french", choices=("french", "spanish"))
    p.add_argument("--data", type=Path, help="dataset folder with scenes/val-<family>.jsonl")
    p.add_argument("--dir", type=Path, help="real photos folder (default shared/real-photos/french-dev)")
    p.add_argument("--models", type=Path, default=None)
    p.add_argument("--limit", type=int, default=None, help="synthetic: at most this many val scenes")
    p.add_argument("--frames", type=int, default=40)
    p.add_argument("--height", type=int, default=90, help="designs: card height in pixels before cropping")
    p.add_argument("--designs", nargs="+", default=None, metavar="NAME",
                   help="designs: these designs instead of the held-back ones (e.g. aisleriot-bonded)")
    p.add_argument("--conf", type=float, default=None,
                   help="detector threshold (default: the detector's; mAP is usually taken over every score: 0.01)")
    p.add_argument("--every-candidate", action="store_true",
                   help="synthetic: the usual mAP protocol (ultralytics' val ranks every box): the same views and "
                        "models, every box the detector scores 0.01 or more (faint ones from 0.005) kept however "
                        "weakly it is named, instead of the photo settings' operating point (real photos need it: "
                        "their false detections); --conf, --faint-conf, --face-min-prob, --faint-min-prob then "
                        f"default to {EVERY_CANDIDATE}")
    p.add_argument("--sweep", type=float, nargs="*", default=[],
                   help="real: also report these detector thresholds (run with a low --conf)")
    p.add_argument("--crops", type=Path, help="classifier: folder of crops <CARD>/*.jpg")
    p.add_argument("--no-tta", action="store_true", help="classify each crop one way up only")
    p.add_argument("--scales", type=float, nargs="+", default=None,
                   help="detector scales (default 1 0.65 at threshold 0.35, as `companion detect`: also look for "
                        "big cards on the image shrunk; 1: the table's setting, threshold 0.3)")
    p.add_argument("--half", choices=HALVES, default=None,
                   help="real: only the photos at even (tune) or odd (test) places in name order")
    p.add_argument("--outlines", action=argparse.BooleanOptionalAction, default=None,
                   help="with or without the outline search (companion.vision.outlines; default: with the "
                        "shrunk view, as `companion detect`; the table runs it with its one view)")
    p.add_argument("--rows", action=argparse.BooleanOptionalAction, default=None,
                   help="split boxes around a row of overlapping cards (companion.vision.rows; default: with the "
                        "shrunk view, as `companion detect`)")
    p.add_argument("--corner-weight", type=float, default=CORNER_WEIGHT,
                   help="share of the index-corner classifier in each reading (0: the whole card only)")
    p.add_argument("--rank-weight", type=float, default=RANK_WEIGHT,
                   help="share of the index-corner classifier in each card's rank, mixed apart from its suit "
                        "(default %(default)s; a negative value mixes whole readings with --corner-weight alone)")
    p.add_argument("--back-weight", type=float, default=BACK_WEIGHT,
                   help="share of the index-corner classifier in whether a card is a back (with --rank-weight; "
                        "default %(default)s)")
    p.add_argument("--rank-floor", type=float, default=RANK_FLOOR,
                   help="share of a uniform distribution mixed into each model's rank before the two are mixed "
                        "(with --rank-weight; default %(default)s; 0: none)")
    p.add_argument("--whole-rank-sure", type=float, default=WHOLE_RANK_SURE,
                   help="the whole card's rank counts only where its likeliest rank is at least this "
                        "(with --rank-weight; default %(default)s; 0: always)")
    p.add_argument("--joint-weight", type=float, default=None,
                   help="with --rank-weight: the share of the readings' faces mixed whole beside the product of "
                        "rank and suit (default JOINT_WEIGHT; 0: the product only)")
    p.add_argument("--square", action=argparse.BooleanOptionalAction, default=PHOTO_SQUARE,
                   help="letterbox every view to the detector's square (default, as photos); --no-square: pad it "
                        "only to the detector's stride where its input is dynamic, as the table does")
    p.add_argument("--side-rank-weight", type=float, default=SIDE_RANK_WEIGHT,
                   help="lean each photo card's rank on its top-right and bottom-left corners read as they lie, "
                        "with this weight (default SIDE_RANK_WEIGHT; 0: not)")
    p.add_argument("--side-rank-clear", action=argparse.BooleanOptionalAction, default=SIDE_RANK_CLEAR,
                   help="read the side ranks only for cards no other box overlaps")
    p.add_argument("--band-weight", type=float, default=None,
                   help="read each photo card's index bands with card-bands-<family>-photo.onnx where the models "
                        "folder has one, averaged into the corners' reading with this weight (default BAND_WEIGHT; "
                        "0: not)")
    p.add_argument("--corner-crop", type=int, default=None,
                   help="cut the index corners from a crop of this many pixels (default: the whole card's 96)")
    p.add_argument("--rectify", choices=RECTIFY_MODES, default=RECTIFY,
                   help="real/latency/synthetic: cut these crops from the card turned upright where its outline is "
                        "found (default: %(default)s)")
    p.add_argument("--faint-conf", type=float, default=None,
                   help="with the shrunk view, also keep boxes scored from this up to --conf that the classifier "
                        "names a face at --faint-min-prob (default: FAINT_CONF; 0: none)")
    p.add_argument("--faint-min-prob", type=float, default=None, help="(default: FAINT_MIN_PROB)")
    p.add_argument("--faint-max", type=int, default=None, metavar="N",
                   help="read at most N faint boxes, the best scored (default: the family's PHOTO_FAMILY value, "
                        "else FAINT_MAX)")
    p.add_argument("--faint-corner-windows", type=int, default=None, metavar="N",
                   help="read a faint box's index corners from the first N windows of CORNER_SHIFTS (default: the "
                        "family's PHOTO_FAMILY value, else all of them; 0: all of them)")
    p.add_argument("--faint-tta", action=argparse.BooleanOptionalAction, default=None,
                   help="read a faint box's whole card upside down too, as a sure box's (default: the family's "
                        "PHOTO_FAMILY value, else yes)")
    p.add_argument("--box-shrink", type=float, default=None, metavar="F",
                   help="report the detector's sure boxes drawn in about their centres by F (its boxes are loose: "
                        "session 95; default: the family's PHOTO_FAMILY value, else not; 0 or 1: not)")
    p.add_argument("--covered-box-shrink", type=float, default=None, metavar="G",
                   help="with --box-shrink, draw in by G the sure boxes another box covers part of (a covered "
                        "card's box often holds only its part in view; default: the family's PHOTO_FAMILY value, "
                        "else as the others; 0: as the others; 1: left as found)")
    p.add_argument("--det-size", type=int, default=None, metavar="N",
                   help="read the detector at input long side N, a multiple of 32 (default: the family's PHOTO_FAMILY "
                        "value, else the size its file was trained at; 0: that size)")
    p.add_argument("--also-size", type=int, default=None, metavar="N",
                   help="also read the whole image at input long side N, a multiple of 32, its sure boxes adding "
                        "only cards no earlier view boxed (default: the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--also-faint", action=argparse.BooleanOptionalAction, default=None,
                   help="with --also-size, read that view's faint boxes too, as the full view's (default: the "
                        "family's PHOTO_FAMILY value, else not)")
    p.add_argument("--small-cards", type=float, default=None, metavar="SHARE",
                   help="read an image whose full view's sure boxes have a median long side under SHARE of the "
                        "image's with card-detector-<family>-photo-small.onnx where the models folder has one "
                        "(default: the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--small-size", type=int, default=None, metavar="N",
                   help="with --small-cards, read that detector's full view at long side N (default: the family's "
                        "PHOTO_FAMILY value, else the size its file was trained at)")
    p.add_argument("--small-first", type=float, default=None, metavar="SHARE",
                   help="with --small-cards, read each image's full view by the small cards' detector first, and "
                        "where its sure boxes' median long side is under SHARE of the image's, never by the first "
                        "detector (default: the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--small-square", action=argparse.BooleanOptionalAction, default=None,
                   help="with --small-cards, letterbox the small cards' detector's views to its square (--no-small-"
                        "square: pad them to its stride only; default: the family's PHOTO_FAMILY value, else as "
                        "--square)")
    p.add_argument("--flip", type=float, default=None, metavar="SHARE",
                   help="read the full view again mirrored left to right and fuse the two readings, a box one of "
                        "them alone found keeping SHARE of its score (default: the family's PHOTO_FAMILY value with "
                        "the shrunk view, none with one view; 0: not)")
    p.add_argument("--turn", type=float, default=None, metavar="SHARE",
                   help="read the full view once more turned a half turn and fuse it with the readings before it, a "
                        "box one side alone found keeping SHARE of its score (defaults as --flip)")
    p.add_argument("--turn-missed", type=float, default=None, metavar="SHARE",
                   help="with --turn (or the family's turn), the share of its score a box the readings before the "
                        "turned one found and it missed keeps (default: the family's PHOTO_FAMILY value, else as "
                        "--turn; 0: as --turn)")
    p.add_argument("--turn-pair", choices=PAIRINGS, default=None,
                   help="how a box the turned reading found again is fused with it: the mean score and box (mean), "
                        "the box before kept at the higher score (lift), or the boxes averaged at the higher score "
                        "(top) (default: the family's PHOTO_FAMILY value, else mean)")
    p.add_argument("--score-power", type=float, default=None, metavar="A",
                   help="re-weigh each photo detection's confidence by the detector's score to the power A - 1 "
                        "(A < 1 ranks more by the naming; default: the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--rescorer", action=argparse.BooleanOptionalAction, default=None,
                   help="rescore each photo detection by the family's fitted rescorer (card-rescorer-<family>-photo."
                        "json in the models folder; default: the family's PHOTO_FAMILY value, else not)")
    p.add_argument("--rescored-min", type=float, default=None, metavar="P",
                   help="with the rescorer, drop each detection rescored under this probability (default: the "
                        "family's PHOTO_FAMILY value, else none; 0: none)")
    p.add_argument("--gate-max", type=float, default=None, metavar="P",
                   help="drop each photo detection the family's photo gate (card-gate-<family>-photo.onnx in the "
                        "models folder) reads as not a card with this probability or more (default: the family's "
                        "PHOTO_FAMILY value, else none; 0: none)")
    p.add_argument("--namesake-discount", type=float, default=None, metavar="F",
                   help="read a face lying inside a surer face named alike again, that name's probability times F "
                        "(default: the family's PHOTO_FAMILY value with the shrunk view, else not; 0: not)")
    p.add_argument("--namesake-share", type=float, default=NAMESAKE_SHARE, metavar="S",
                   help="with --namesake-discount: how much of the face's box lies inside the surer face's "
                        "(default %(default)s)")
    p.add_argument("--faint-backs", type=float, default=None, metavar="P",
                   help="keep each faint box the classifier names a back with this probability or more (default: "
                        "the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--zoom", type=float, default=None,
                   help="with the shrunk view, also read a view through the detector's input this many times "
                        "larger for small cards (default: PHOTO_ZOOM; 0: none)")
    p.add_argument("--view-overlap", type=float, default=None,
                   help="a shrunk view's box overlapping an earlier view's by more than this IoU is dropped "
                        "(default: the family's PHOTO_FAMILY value, else VIEW_OVERLAP)")
    p.add_argument("--zoom-overlap", type=float, default=None,
                   help="the same for the zoomed view (default: the family's PHOTO_FAMILY value, else --view-overlap)")
    p.add_argument("--faint-overlap", type=float, default=None,
                   help="a faint box overlapping a surer box that can hold it by more than this IoU is dropped "
                        "(default: the family's PHOTO_FAMILY value, else VIEW_OVERLAP)")
    p.add_argument("--faint-overlap-from", type=float, default=None,
                   help="--faint-overlap applies to faint boxes the detector scored this or more; under it, at most "
                        "VIEW_OVERLAP (default: the family's PHOTO_FAMILY value, else 0)")
    p.add_argument("--faint-holds", action=argparse.BooleanOptionalAction, default=None,
                   help="drop a faint box that overlaps a surer box by more than VIEW_OVERLAP and holds most of it "
                        "(default: the family's PHOTO_FAMILY value, else not)")
    p.add_argument("--paper-rows", type=float, default=PAPER_ROWS,
                   help="with rows split: a row box is also cut shrunk to its rows and columns at least this "
                        "share card paper (default %(default)s; 0: not)")
    p.add_argument("--row-reach", type=float, default=ROW_REACH,
                   help="with rows split: a row box is also cut grown over the card paper past its sides, at most "
                        "this many times its width out (default %(default)s; 0: not)")
    p.add_argument("--face-min-prob", type=float, default=None,
                   help="leave out faces named under this probability (default: PHOTO_FACE_MIN_PROB with the shrunk "
                        "view, 0 with one)")
    p.add_argument("--outlined-min-prob", type=float, default=None, metavar="P",
                   help="keep a face named under its floor (--faint-min-prob, --face-min-prob) when named P or more "
                        "and the outline model outlines a card around its box at --outlined-score or more (default: "
                        "the family's PHOTO_FAMILY value, else not; -1: not)")
    p.add_argument("--outlined-score", type=float, default=OUTLINED_SCORE,
                   help="with --outlined-min-prob: how sure that outline must be (default %(default)s)")
    p.add_argument("--faint-twin-iou", type=float, default=None, metavar="IOU",
                   help="drop a faint face named as a surer face whose box it overlaps this much or lies in (default: "
                        "the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--size-check", type=float, default=None, metavar="P",
                   help="drop a face named under P whose box is far off the size of the faces surer than it (default: "
                        "the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--size-ref-min", type=float, default=SIZE_REF_MIN,
                   help="with --size-check: how surely a surer face must be named to be measured against "
                        "(default %(default)s)")
    p.add_argument("--size-small", type=float, default=SIZE_SMALL,
                   help="with --size-check: under this share of the surer faces' median area is too small "
                        "(default %(default)s)")
    p.add_argument("--size-large", type=float, default=None,
                   help="with --size-check: over this many times it is too large (default: the family's "
                        f"PHOTO_FAMILY value, else {SIZE_LARGE})")
    p.add_argument("--size-spares-covered", action=argparse.BooleanOptionalAction, default=None,
                   help="with --size-check: never drop a face another box covers part of (OVERLAP_MIN): a covered "
                        "card's box holds the part in view (default: the family's PHOTO_FAMILY value, else not)")
    p.add_argument("--whole-upright", choices=WHOLE_UPRIGHT, default=None,
                   help="also read the whole card from the card turned upright, for the boxes another box overlaps "
                        "or for every box turned upright (default: the family's PHOTO_FAMILY value, else none)")
    p.add_argument("--faintest-below", type=float, default=None, metavar="S",
                   help="keep a faint box the detector scored under S only where named FAINTEST_MIN_PROB or more, "
                        "outlined or not (default: the family's PHOTO_FAMILY value, else not; 0: not)")
    p.add_argument("--faintest-min-prob", type=float, default=None, metavar="P",
                   help="with --faintest-below: how surely such a faint box must be named to be kept (default: the "
                        "family's PHOTO_FAMILY value, else FAINTEST_MIN_PROB)")
    p.add_argument("--outlined-faint-from", type=float, default=None, metavar="S",
                   help="an outline keeps a faint face named under its floor only when the detector scored it S or "
                        "more (default: the family's PHOTO_FAMILY value, else any score; 0: any score)")
    p.add_argument("--merge-iou", type=float, default=None,
                   help="faces named alike whose boxes overlap this much (IoU) are made one (default: the family's "
                        "PHOTO_FAMILY value, else MERGE_IOU; "
                        "0: not, the figure before session 37)")
    p.add_argument("--one-deck", action=argparse.BooleanOptionalAction, default=None,
                   help="name the frame's faces as one deck most likely is, no name held twice (default ONE_DECK)")
    p.add_argument("--table-corners", action="store_true",
                   help="read the corners with the table's corner model, not the photo one (the figure before "
                        "session 38)")
    p.add_argument("--table-classifier", action="store_true",
                   help="read the whole card with the table's classifier, not the photo one where one is shipped "
                        "(the figure before session 47)")
    p.add_argument("--table-detector", action="store_true",
                   help="box the cards with the table's detector, not the family's photo detector where one is "
                        "shipped (the Spanish figure before session 65)")
    p.add_argument("--table-outlines", action="store_true",
                   help="take the outlines from the table's outline model, not the family's photo outline model "
                        "where one is shipped")
    p.add_argument("--family-views", choices=FAMILY_VIEWS, default=None,
                   help="the views the family's photo detector reads, where one is shipped: every view, the zoomed "
                        "view only, or the image once more after the shared detector, adding boxes it missed "
                        "(default: the family's PHOTO_FAMILY value, else all)")
    p.add_argument("--corner-shifts", type=_shifts, default=None, metavar="X,Y;X,Y...",
                   help="read each index corner from these windows (x, y shares of the crop), averaged (default: "
                        "CORNER_SHIFTS' four; --one-window: the first alone)")
    p.add_argument("--upright-corner-windows", type=int, default=None, metavar="K",
                   help="read a crop turned upright from the first K windows only (default: the family's "
                        "PHOTO_FAMILY value, else all of them; 0: all of them)")
    p.add_argument("--one-window", action="store_true",
                   help="read each index corner from one window (default: the windows of CORNER_SHIFTS, averaged)")
    p.add_argument("--hidden", choices=HIDDEN_MODES, default=HIDDEN_MODE,
                   help="with a corner model that has a 'hidden' class: the hidden share is dropped and the rest "
                        "renormalised (drop), a window read as hidden counts for less (weigh), or weigh for the "
                        "cards another box overlaps and drop for the rest (overlap, the default)")
    p.add_argument("--overlap-min", type=float, default=OVERLAP_MIN,
                   help="with --hidden overlap: a card's box is overlapped when another box covers this share of it")
    p.add_argument("--quad", metavar="NAMES", default=None,
                   help="find each card's outline with these finders, in this order (paper, table, edges; "
                        "default: the photo settings' PHOTO_QUAD_METHODS, edges,paper,table)")
    p.add_argument("--outline-model", action=argparse.BooleanOptionalAction, default=None,
                   help="take each card's outline from the outline model (card-outlines.onnx, or the family's photo one "
                        "where shipped, unless --table-outlines) before the finders "
                        "(default: the family's PHOTO_FAMILY value, else PHOTO_OUTLINE_MODEL)")
    p.add_argument("--outline-model-for", choices=OUTLINE_MODEL_FOR, default=None,
                   help="with the outline model: every box, only the boxes another box overlaps, only the "
                        "boxes the finders find no outline for, or only the boxes the detector is sure of (not its "
                        "faint boxes; default: PHOTO_OUTLINE_MODEL_FOR)")
    p.add_argument("--outline-exclusive", action=argparse.BooleanOptionalAction, default=True,
                   help="each of the model's outlines to one box only, the one it fits best (--no-outline-exclusive: "
                        "as session 55, each box the outline it fits best)")
    p.add_argument("--outline-model-boxes", type=float, default=None, metavar="SCORE",
                   help="with the outline model: also name its outlines scored SCORE or more that no box covers, as "
                        "the table does (TABLE_OUTLINE_MODEL_BOXES; default: not, as photos)")
    args = p.parse_args(argv)
    if args.every_candidate:
        for name, value in EVERY_CANDIDATE.items():
            if getattr(args, name) is None:
                setattr(args, name, value)
    try:
        detector = CardDetector(args.family, models_dir=args.models, tta=not args.no_tta,
                                corner_shifts=(ONE_WINDOW if args.one_window else args.corner_shifts or CORNER_SHIFTS),
                                corner_weight=args.corner_weight, corner_crop=args.corner_crop,
                                rectify=args.rectify, rank_weight=None if args.rank_weight < 0 else args.rank_weight,
                                back_weight=args.back_weight, rank_floor=args.rank_floor,
                                whole_rank_sure=args.whole_rank_sure, paper_rows=args.paper_rows or None,
                                row_reach=args.row_reach or None, hidden=args.hidden, overlap_min=args.overlap_min,
                                side_rank_weight=args.side_rank_weight, side_rank_clear=args.side_rank_clear,
                                outline_exclusive=args.outline_exclusive,
                                outline_model_boxes=args.outline_model_boxes, outlined_score=args.outlined_score,
                                **photo_settings(args.conf, args.scales, args.outlines, faint_conf=args.faint_conf,
                                                 faint_min_prob=args.faint_min_prob, rows=args.rows,
                                                 face_min_prob=args.face_min_prob, merge_iou=args.merge_iou,
                                                 photo_corners=not args.table_corners, one_deck=args.one_deck,
                                                 joint_weight=args.joint_weight, square=args.square,
                                                 photo_classifier=not args.table_classifier,
                                                 photo_detector=not args.table_detector,
                                                 photo_outlines=not args.table_outlines,
                                                 band_weight=args.band_weight, quad_methods=args.quad,
                                                 outline_model=args.outline_model,
                                                 outline_model_for=args.outline_model_for, zoom=args.zoom,
                                                 family=args.family, view_overlap=args.view_overlap,
                                                 zoom_overlap=args.zoom_overlap, faint_overlap=args.faint_overlap,
                                                 faint_overlap_from=args.faint_overlap_from,
                                                 faint_max=args.faint_max,
                                                 faint_holds=args.faint_holds, family_views=args.family_views,
                                                 outlined_min_prob=args.outlined_min_prob,
                                                 faint_twin_iou=args.faint_twin_iou,
                                                 size_check=args.size_check,
                                                 faintest_below=args.faintest_below,
                                                 faintest_min_prob=args.faintest_min_prob,
                                                 outlined_faint_from=args.outlined_faint_from,
                                                 faint_corner_windows=args.faint_corner_windows,
                                                 faint_tta=args.faint_tta, box_shrink=args.box_shrink,
                                                 covered_box_shrink=args.covered_box_shrink,
                                                 size_large=args.size_large,
                                                 size_spares_covered=args.size_spares_covered,
                                                 whole_upright=args.whole_upright, det_size=args.det_size,
                                                 also_size=args.also_size, also_faint=args.also_faint,
                                                 small_cards=args.small_cards, small_size=args.small_size,
                                                 small_first=args.small_first, small_square=args.small_square,
                                                 flip=args.flip, turn=args.turn,
                                                 turn_missed=args.turn_missed, turn_pair=args.turn_pair,
                                                 score_power=args.score_power, rescorer=args.rescorer,
                                                 rescored_min=args.rescored_min, gate_max=args.gate_max,
                                                 faint_backs=args.faint_backs,
                                                 upright_corner_windows=args.upright_corner_windows,
                                                 namesake_discount=args.namesake_discount),
                                size_ref_min=args.size_ref_min, size_small=args.size_small,
                                namesake_share=args.namesake_share)
    except ValueError as exc:
        p.error(str(exc))
    if warning := detector.missing_models_warning():  # a measurement must not pass for another
        print(f"warning: {warning}", file=sys.stderr)
    # None: no corner model loaded
    mixing = ("corner_weight", "rank_weight", "back_weight", "rank_floor", "whole_rank_sure", "joint_weight",
              "side_rank_weight", "side_rank_clear")
    result: dict = {"every_candidate": args.every_candidate,
                    "conf": detector.conf, "scales": list(detector.scales), "outlines": detector.outlines,
                    "faint_conf": detector.faint_conf, "faint_min_prob": detector.faint_min_prob, "rows": detector.rows,
                    "zoom": detector.zoom, "view_overlap": detector.view_overlap, "zoom_overlap": detector.zoom_overlap,
                    "faint_overlap": detector.faint_overlap, "faint_overlap_from": detector.faint_overlap_from,
                    "faint_holds": detector.faint_holds, "faint_max": detector.faint_max,
                    "paper_rows": detector.paper_rows, "row_reach": detector.row_reach,
                    "face_min_prob": detector.face_min_prob, "merge_iou": detector.merge_iou,
                    "outlined_min_prob": detector.outlined_min_prob if detector.outline_gate is not None else None,
                    "outlined_score": detector.outlined_score if detector.outline_gate is not None else None,
                    "faint_twin_iou": detector.faint_twin_iou, "size_check": detector.size_check,
                    "size_ref_min": detector.size_ref_min, "size_small": detector.size_small,
                    "size_large": detector.size_large, "size_spares_covered": detector.size_spares_covered,
                    "whole_upright": detector.whole_upright,
                    "faintest_below": detector.faintest_below,
                    "faintest_min_prob": detector.faintest_min_prob if detector.faintest_below is not None else None,
                    "outlined_faint_from": (detector.outlined_faint_from if detector.outline_gate is not None
                                            else None),
                    "faint_corner_windows": detector.faint_corner_windows if detector.corners is not None else None,
                    "faint_tta": detector.faint_tta and detector.tta, "box_shrink": detector.box_shrink,
                    "covered_box_shrink": detector.covered_box_shrink,
                    "one_deck": detector.one_deck, "square": detector.det_stride is None, "det_size": detector.imgsz,
                    "also_size": detector.also_size, "also_faint": detector.also_faint,
                    "small_cards": detector.small_cards if detector.small_det is not None else None,
                    "small_detector": detector.small_path.name if detector.small_det is not None else None,
                    "small_size": detector.small_imgsz if detector.small_det is not None else None,
                    "small_first": detector.small_first if detector.small_det is not None else None,
                    "small_square": detector.small_stride is None if detector.small_det is not None else None,
                    "flip": detector.flip,
                    "turn": detector.turn,
                    "turn_missed": detector.turn_missed,
                    "turn_pair": detector.turn_pair if detector.turn is not None else None,
                    "score_power": detector.score_power,
                    "rescorer": detector.rescorer_path.name if detector.rescorer is not None else None,
                    "rescored_min": detector.rescored_min if detector.rescorer is not None else None,
                    "gate": (f"{detector.gate_path.name} (dropped from {detector.gate_max:g})"
                             if detector.gate is not None else None),
                    "faint_backs": detector.faint_backs, "upright_corner_windows": detector.upright_corner_windows,
                    "namesake_discount": detector.namesake_discount,
                    "namesake_share": detector.namesake_share if detector.namesake_discount is not None else None,
                    "detector": detector.det_path.name,
                    "family_detector": (f"{detector.family_det_path.name} ({detector.family_views} views)"
                                        if detector.family_det_path is not None else None),
                    "classifier": detector.cls_path.name,
                    **{k: getattr(detector, k) if detector.corners is not None else None for k in mixing},
                    "corner_crop": detector.corner_crop, "rectify": detector.rectify,
                    "quad_methods": list(detector.quad_methods or vision_crops.QUAD_METHODS),
                    "outline_model": detector.outline_path.name if detector.outline_model is not None else None,
                    "outline_model_for": detector.outline_model_for if detector.outline_model is not None else None,
                    "outline_exclusive": detector.outline_exclusive if detector.outline_model is not None else None,
                    "outline_model_boxes": detector.outline_model_boxes if detector.outline_model is not None else None,
                    "corner_shifts": [list(o) for o in detector.corner_shifts],
                    "corner_model": detector.corner_path.name if detector.corners is not None else None,
                    "band_model": detector.band_path.name if detector.bands is not None else None,
                    "band_weight": detector.band_weight if detector.bands is not None else None,
                    "hidden": detector.hidden_mode if detector.corner_hidden is not None else None}
    if args.what == "classifier":
        if args.crops is None:
            p.error("--crops is required for classifier")
        result["classifier"] = evaluate_classifier(detector, args.crops)
    if args.what == "designs":
        from companion.synth.art import ArtError

        try:
            result["designs"] = evaluate_designs(detector, args.height, args.designs)
        except ArtError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    if args.what in ("synthetic", "all"):
        if args.data is None:
            p.error("--data is required for synthetic")
        result["synthetic"] = evaluate_synthetic(detector, args.data, args.limit)
    if args.what in ("real", "all") and args.family == "french":
        folder = args.dir or ((shared_dir() / "real-photos" / "french-dev") if shared_dir() else None)
        if folder is None or not folder.is_dir():
            print("real photos not available (no shared/ folder)", file=sys.stderr)
        else:
            result["real"] = evaluate_real(detector, folder, sweep=tuple(args.sweep), half=args.half)
    if args.what in ("latency", "all"):
        result["latency"] = measure_latency(detector, args.frames)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
