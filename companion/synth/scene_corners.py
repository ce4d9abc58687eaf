"""Index-corner images cut from rendered scenes, each labelled only where it shows its own card's index.

Why: the corner classifier learned its corners from crops of cards at least 60 % in view and from corners
drawn from typefaces.  On the held-out scenes a card partly under another whose index is in full view was
named right 45 % of the time (session 37: 54 % on its true box, 58 % read by its visible corner with the
card turned upright by its true outline), against 84 % for cards in full view: its corner windows hold a
piece of the card above it.  Cutting such cards' corners and labelling both windows as the card (what
``companion dataset corners`` does with covered crops) would teach a window showing the card above to say
the card below.  Here each labelled card of a scene is cut as the detector's box would be
(:func:`companion.vision.crops.crop_card_mapped`, with its training jitter), its two index regions are
followed into the crop, and a corner window is kept, labelled as the card, only when one of them lies in
it (``INSIDE``) and no card above covers it (``UNCOVERED``).  What lies above is read from the scene's
drawing order (later cards on top); where the scene's own visibility figures say something else hides the
card (a finger), the card is skipped.

With ``hidden_share`` > 0 a window whose own index lies under a card above (at most ``HIDDEN_CLEAR`` of it
clear) is also kept, with that probability, labelled ``HIDDEN``.  Why (session 40): left out, such windows
are never shown to the classifier, which then reads in them whatever index the card above puts there; of
the partly covered cards the photo corners v10 named wrong on held-back scenes, a third took a neighbour's
name.  A corner model with this class says where a window holds no index of its own card, and the reading
leans on the card's other corner (``companion.vision.detector.corners_for_faces``).

    companion dataset scene-corners --scenes DATA/french DATA/photo --out DATA/french/corners-cov/train
"""

from __future__ import annotations

import json
import sys
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from companion.synth.scene import IN_FULL_VIEW, index_regions
from companion.vision.crops import (BAND, CROP, HIDDEN, band_views, band_window, corner_window, crop_card_mapped,
                                    top_left_views, upright_crop_mapped)

INSIDE = 0.8  # share of an index region that must lie inside a corner window
UNCOVERED = 0.85  # ... and must be clear of the cards above
AGREE = 0.05  # the cards above must explain the scene's visibility figure this closely (else a finger hides some)
HIDDEN_CLEAR = 0.3  # a window whose own index is at most this share clear is labelled HIDDEN (up to UNCOVERED: neither)


def _fill(shape: tuple[int, int], polygon: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(polygon * 4).astype(np.int32)], 1, shift=2)
    return mask


VIEWS = ("corners", "bands")


def check_view(view: str) -> None:
    """Raise ``ValueError`` unless ``view`` is one of :data:`VIEWS`: one check for :func:`build_scene_corners`
    (before any work) and :func:`scene_corner_images` (its other callers)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; expected one of {VIEWS}")


def _windows(view: str = "corners", size: int = CROP) -> tuple[np.ndarray, np.ndarray]:
    """Masks of a crop's two windows: its corners (:func:`companion.vision.crops.corner_views`: top left and,
    half turned, bottom right) or its bands (:func:`companion.vision.crops.band_views`: the top and, half
    turned, the bottom)."""
    top, bottom = np.zeros((size, size), np.uint8), np.zeros((size, size), np.uint8)
    if view == "bands":
        bh = band_window(size)
        top[:bh] = 1
        bottom[size - bh:] = 1
        return top, bottom
    cw, ch = corner_window(size, size)
    top[:ch, :cw] = 1
    bottom[size - ch:, size - cw:] = 1
    return top, bottom


def _views(crop: np.ndarray, view: str) -> tuple[np.ndarray, np.ndarray]:
    """The two windows of ``_windows`` cut from one crop as the detector reads them."""
    if view == "bands":
        both = band_views(crop[None], BAND)
        return both[0], both[1]
    return top_left_views(crop[None])[0], top_left_views(crop[None, ::-1, ::-1])[0]


def scene_corner_images(image: np.ndarray, cards: list[dict], rng: np.random.Generator, family: str = "french",
                        reps: int = 4, full_share: float = 0.4, back_share: float = 0.3,
                        hidden_share: float = 0.0, own: bool = True, view: str = "corners",
                        bare_share: float = 0.0, upright_share: float = 0.0) -> list[tuple[str, np.ndarray]]:
    """(label, corner view) pairs for one scene: ``cards`` as the scene records them (``card``, ``box``,
    ``corners``: top-left, top-right, bottom-right, bottom-left of the art, ``visible``, ``index_visible``,
    ``labelled``, and ``index_regions`` where the card's index was redrawn), in drawing order.  Each labelled face is cut ``reps`` times (cards in full view only with
    probability ``full_share``: they are what the older corners taught), each back in full view with
    probability ``back_share``, both its windows labelled ``back``.  A face's window whose index is hidden under
    a card above is kept with probability ``hidden_share``, labelled ``HIDDEN``; ``own=False`` keeps those
    alone (hidden windows cut from scenes whose other corners were cut before).

    ``view`` "bands": the crop's top and bottom bands instead of its corners (the band model's data,
    :func:`companion.vision.crops.band_views`), labelled by the same rule.  ``bare_share``: a face's window
    that holds no index region of its own at all, neither in view nor hidden (the bare end of a deck printing
    its index at the top only, a tilted box crop's edge), is kept with this probability, labelled ``HIDDEN``:
    the band model then says where a window shows no index to read, and the reading leans on the other one.
    ``upright_share``: the share of cuts taken from the card turned upright by its true outline
    (:func:`companion.vision.crops.upright_crop_mapped`, either way up), as the detector reads a card whose
    outline it finds, instead of from its box.  At 0 neither draws a random number, so the corners'
    data is cut as before."""
    check_view(view)
    height, width = image.shape[:2]
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    windows = _windows(view)
    out: list[tuple[str, np.ndarray]] = []
    for i, card in enumerate(cards):
        if not card["labelled"]:
            continue
        full = card["visible"] >= IN_FULL_VIEW
        is_back = card["card"] == "back"
        if is_back and (not full or rng.random() >= back_share):
            continue
        if not is_back and full and rng.random() >= full_share:
            continue
        quad = np.float32(card["corners"])
        # the cards above at whole pixels (the card's own outline and index regions at a quarter pixel): the
        # rounding the session-37 candidate's data was cut with, kept so that the recipe still reproduces it
        above = np.zeros((height, width), np.uint8)
        for other in cards[i + 1:]:
            cv2.fillPoly(above, [np.round(np.array(other["corners"])).astype(np.int32)], 1)
        seen = (_fill((height, width), quad) & (1 - above)).sum() / max(1.0, cv2.contourArea(quad))
        if abs(seen - card["visible"]) > AGREE:
            continue  # something the cards above do not explain hides part of it
        to_image = cv2.getPerspectiveTransform(unit, quad)
        regions, clear = [], []
        own_regions = card.get("index_regions")  # a redrawn index (`dataset build --reindex`) lies there
        for region in (own_regions if own_regions is not None else index_regions(family)):
            polygon = cv2.perspectiveTransform(np.float32(region).reshape(-1, 1, 2), to_image).reshape(-1, 2)
            mask = _fill((height, width), polygon)
            clear.append(1.0 - (mask & above).sum() / max(1, mask.sum()))
            regions.append(polygon)
        if not is_back and abs(max(clear) - card["index_visible"]) > 2 * AGREE:
            continue
        for _ in range(reps):
            if upright_share > 0 and rng.random() < upright_share:
                crop, matrix = upright_crop_mapped(image, quad, CROP, turn=bool(rng.random() < 0.5))
            else:
                crop, matrix = crop_card_mapped(image, tuple(card["box"]), CROP, rng)
            if crop is None:
                continue
            for window, cut in zip(windows, _views(crop, view)):
                shown, hidden, bare = is_back, False, not is_back
                for polygon, share in zip(regions, clear):
                    unused = share < UNCOVERED and (share > HIDDEN_CLEAR or hidden_share <= 0.0)
                    if shown or (unused and bare_share <= 0.0):
                        continue  # (a region is followed into the crop only where its answer is used)
                    inside = _fill((CROP, CROP), cv2.perspectiveTransform(
                        polygon.reshape(-1, 1, 2).astype(np.float64), matrix).reshape(-1, 2))
                    bare = bare and not (inside & window).any()
                    if unused:
                        continue
                    here = inside.sum() > 0 and (inside & window).sum() / inside.sum() >= INSIDE
                    if share >= UNCOVERED:
                        shown = here
                    else:
                        hidden = hidden or here
                if shown:
                    if own:
                        out.append((card["card"], cut))
                elif hidden and rng.random() < hidden_share:
                    out.append((HIDDEN, cut))
                elif bare and bare_share > 0 and rng.random() < bare_share:
                    out.append((HIDDEN, cut))
    return out


def _work(job: tuple) -> int:
    root, lines, out, seed, family, reps, full_share, back_share, hidden_share, own, view, bare, upright = job
    rng = np.random.default_rng(seed)
    written = 0
    for line in lines:
        record = json.loads(line)
        image = cv2.imread(str(Path(root) / record["image"]))
        if image is None:
            print(f"warning: unreadable scene skipped: {Path(root) / record['image']}", file=sys.stderr)
            continue
        stem = f"{Path(root).name}-{Path(record['image']).stem}"
        for k, (label, cut) in enumerate(scene_corner_images(image, record["cards"], rng, family, reps, full_share,
                                                             back_share, hidden_share, own, view, bare, upright)):
            folder = Path(out) / label
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{stem}_{k}.jpg"), cut, [cv2.IMWRITE_JPEG_QUALITY, 92])
            written += 1
    return written


def build_scene_corners(roots: list[str | Path], out: str | Path, family: str = "french", split: str = "train",
                        reps: int = 4, full_share: float = 0.4, back_share: float = 0.3, seed: int = 0,
                        workers: int = 1, hidden_share: float = 0.0, own: bool = True, view: str = "corners",
                        bare_share: float = 0.0, upright_share: float = 0.0) -> int:
    """Write the corner images of every scene of ``ROOT/scenes/<split>-<family>.jsonl`` for each root into
    ``out/<card>/`` (a classifier train folder); returns how many.  The scenes go in chunks of 100, the chunk
    numbered k (over all roots, in order) drawn with the random seed ``seed + k``; ``hidden_share``, ``own``,
    ``view``, ``bare_share`` and ``upright_share`` as :func:`scene_corner_images` takes them.  Raises FileNotFoundError when a root has no
    such scenes file (build it with ``companion dataset build``)."""
    check_view(view)
    jobs = []
    for root in roots:
        scenes = Path(root) / "scenes" / f"{split}-{family}.jsonl"
        if not scenes.is_file():
            raise FileNotFoundError(f"{scenes} not found: build it with `companion dataset build`")
        lines = scenes.read_text().splitlines()
        for start in range(0, len(lines), 100):
            jobs.append((str(root), lines[start:start + 100], str(out), seed + len(jobs), family, reps,
                         full_share, back_share, hidden_share, own, view, bare_share, upright_share))
    if workers > 1:
        with Pool(workers) as pool:
            return sum(pool.map(_work, jobs))
    return sum(_work(job) for job in jobs)
