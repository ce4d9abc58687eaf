"""Write synthetic datasets to disk in the formats ultralytics trains on.

One pass renders scenes and writes, for each scene:

- ``images/<split>/<id>.jpg`` + ``labels/<split>/<id>.txt``: YOLO detection labels,
  class 0 = face-up card, 1 = back (whole-card boxes, normalised xywh);
- ``cls/<split>/<CARD>/<id>_<k>.jpg``: crops of face-up cards around their
  box (jittered like a detector's box), squashed to ``crop`` x ``crop`` px, for the
  per-family card classifier;
- ``scenes/<split>.jsonl``: the full ground truth (card, box, corners, visibility)
  of every scene, for evaluation and for checking the labels.

Scenes of the ``train`` split use training designs only, ``val`` scenes use
held-back designs (French) so validation measures unseen decks.
"""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from companion.synth.art import (FRENCH_CARDS, SPANISH_CARDS, ArtError, Design, has_back, list_designs,
                                 prepare_designs, split_designs)
from companion.synth.index_corners import INDEX_REGION
from companion.synth.layouts import random_camera, random_layout, random_lighting
from companion.synth.photos import PhotoPool, pool_for
from companion.synth.scene import IN_FULL_VIEW, Placement, Scene, boxable, compose_scene
from companion.vision.crops import (CROP, crop_card, edge_grown_frame,  # noqa: F401  (CROP re-exported)
                                    upright_crop_mapped)
from companion.vision.settings import CARD_SHORT_OVER_LONG

DETECT_NAMES = {0: "card", 1: "back"}
CROP_MIN_VISIBLE = 0.6
# Landscape table cameras and portrait phone photos (the real development set is mostly portrait).
SIZES = ((960, 540), (800, 600), (640, 480), (960, 720), (540, 720), (480, 640))


def family_cards(family: str) -> tuple[str, ...]:
    return FRENCH_CARDS if family == "french" else SPANISH_CARDS


DESIGN_SOURCES = ("debian", "npm", "trixie", "all")


def _split_list(family: str, split: str, source: str = "debian") -> list[Design]:
    """The designs a split draws from.  ``source`` picks the training designs: "debian" (the default list,
    which every recipe so far rendered with), "npm" (only the decks of :mod:`companion.synth.npm_decks`),
    "trixie" (only the newer Debian decks of :mod:`companion.synth.debian_decks`) or "all" (the three).
    Validation always uses the held-back designs, so figures stay comparable."""
    if source not in DESIGN_SOURCES:
        raise ValueError(f"design source must be one of {DESIGN_SOURCES}, got {source!r}")
    train, hold = split_designs(family)
    if split != "train" and hold:
        return hold
    if source == "debian":
        return train
    if family != "french":
        raise ArtError(f"the {source} decks are French; {family} builds take --designs debian")
    from companion.synth.debian_decks import trixie_designs
    from companion.synth.npm_decks import npm_designs

    if source == "npm":
        return npm_designs()
    if source == "trixie":
        return trixie_designs()
    return train + npm_designs() + trixie_designs()


def designs_for(family: str, split: str, workers: int = 1, source: str = "debian") -> list[Design]:
    """Designs of a split, rendered into the cache; those that fail to render are skipped.  The npm and
    trixie decks are fetched first when ``source`` asks for them (an ArtError says why when they cannot be)."""
    if source in ("npm", "all") and split == "train":
        from companion.synth.npm_decks import fetch_npm_decks

        fetch_npm_decks()
    if source in ("trixie", "all") and split == "train":
        from companion.synth.debian_decks import fetch_trixie_decks

        fetch_trixie_decks()
    designs = prepare_designs(_split_list(family, split, source), workers)
    if not designs:
        raise ArtError(f"no {family} card art found on this machine (see datasets/README.md)")
    return designs


def render_random_scene(rng: np.random.Generator, family: str, designs: list[Design],
                        back_designs: list[Design] | None = None, size: tuple[int, int] | None = None,
                        layouts: tuple[str, ...] | None = None, photos: PhotoPool | None = None,
                        photo_share: float = 0.0, reindex: float = 0.0,
                        index_styles: tuple[str, ...] = ("stacked",), big_pip: float = 0.0,
                        ink: float = 0.0, printed: float = 0.0, random_backs: float = 0.0) -> Scene:
    """One random training scene of ``family`` drawn with one of ``designs``.

    ``layouts``: draw the layout kind uniformly from these (default: the table mix of
    :func:`random_layout`), e.g. ``("closeup", "fan", "pile")`` for phone-photo-like scenes.
    ``photos``: a share ``photo_share`` of the scenes lie on a photographed surface among
    objects with photographed faces (``companion.synth.photos``); without, no random draw
    changes, so a seed renders the scenes it always did.
    ``reindex``: the share of scenes (French) whose face-up cards all have their index corners
    redrawn (:func:`companion.synth.reindex.reindexed_face`, in one of ``index_styles``, ``big_pip``
    of the number cards as one large pip).  Why: the held-back designs that read worst print their
    index where no training deck does (rank and suit on one line, the rank top right, one big pip),
    and only whole scenes teach a classifier those layouts on cards half under others.  At 0 no
    random draw changes.  ``ink``: the share of scenes whose face-up cards are printed in other inks, one
    palette a scene (:mod:`companion.synth.ink`; at 0 no random draw changes either).  ``printed``: the
    share of scenes with one to three printed things among the objects (pages, a notebook, a card box:
    :mod:`companion.synth.printed`), which real photos show and a detector may box; at 0 no draw changes.
    ``random_backs``: the share of scenes whose face-down cards show a back no deck has, drawn at random
    (:func:`companion.synth.backs.random_back`, one a scene): a back learned as a kind, not as 35 designs; at 0
    no draw changes.
    """
    design = designs[int(rng.integers(len(designs)))]
    pool = tuple(c for c in family_cards(family) if design.has(c))
    backs = [d for d in (back_designs or designs) if has_back(d)]
    if not backs:  # e.g. the Fournier scans: borrow any back of the family, or a French one
        backs = [d for d in list_designs(family) if has_back(d)] or [d for d in list_designs("french")
                                                                      if has_back(d)]
    back = backs[int(rng.integers(len(backs)))]
    kind = str(rng.choice(layouts)) if layouts else None
    placements, kind = random_layout(rng, pool, kind)
    if reindex > 0 and family == "french" and rng.random() < reindex:
        _reindex_placements(placements, design, rng, index_styles, big_pip)
    if ink > 0 and rng.random() < ink:
        _ink_placements(placements, design, rng)
    if random_backs > 0 and rng.random() < random_backs:
        _random_back_placements(placements, back, rng)
    w, h = size or SIZES[int(rng.integers(len(SIZES)))]
    camera = random_camera(rng, kind, w, h)
    lighting = random_lighting(rng)
    n_printed = int(rng.integers(1, 4)) if printed > 0 and rng.random() < printed else 0
    if photos is not None and rng.random() < photo_share:
        return compose_scene(placements, camera, design=design, back_design=back, lighting=lighting, rng=rng,
                             distractors=int(rng.choice([0, 1, 2, 3, 4])), surface=photos.surface,
                             clutter=photos.patch, printed=n_printed)
    return compose_scene(placements, camera, design=design, back_design=back,
                         lighting=lighting, rng=rng, distractors=int(rng.choice([0, 0, 1, 2, 3])), printed=n_printed)


def _reindex_placements(placements: list[Placement], design: Design, rng: np.random.Generator,
                        index_styles: tuple[str, ...], big_pip: float) -> None:
    """Give every face-up placement (without art of its own) its face with the index corners redrawn, and
    the regions where its index now lies (the scene's ``index_visible`` and corner labels follow them)."""
    from companion.synth.art import card_image
    from companion.synth.reindex import redraw_index

    for p in placements:
        if p.card != "back" and p.art is None and p.design is None:
            p.art, p.index_regions = redraw_index(card_image(design, p.card), p.card, rng, index_styles, big_pip)


def yolo_lines(scene: Scene, outlines: bool = False) -> list[str]:
    """The YOLO detection label of each labelled card: class (0 a face, 1 a back) and its box, normalised; with
    ``outlines`` its outline instead, the card's corners clipped to the image, as a polygon (ultralytics boxes it).

    Why outlines: trained with rotation augmentation (``degrees``) on box labels, ultralytics boxes the turned box's
    corners, larger than the turned card's own box for a card lying at an angle, and the detector learned boxes about
    3.5 % too wide on each side (session 95, ``bench/rotated_box_labels.py``); given the outline, it boxes the turned
    outline."""
    H, W = scene.image.shape[:2]
    lines = []
    for c in scene.cards:
        if not c.labelled():
            continue
        x1, y1, x2, y2 = c.box
        if x2 - x1 < 3 or y2 - y1 < 3:
            continue
        cls = 1 if c.card == "back" else 0
        polygon = _in_image(c.corners, W, H) if outlines else None
        if polygon is not None:
            lines.append(f"{cls} " + " ".join(f"{x / W:.6f} {y / H:.6f}" for x, y in polygon))
        else:
            lines.append(f"{cls} {(x1 + x2) / 2 / W:.6f} {(y1 + y2) / 2 / H:.6f} {(x2 - x1) / W:.6f} "
                         f"{(y2 - y1) / H:.6f}")
    return lines


def _in_image(corners: np.ndarray, width: int, height: int) -> np.ndarray | None:
    """The part of the convex outline ``corners`` (4x2 pixels) inside the image, as a polygon of 3 or more points
    (ultralytics refuses coordinates outside 0..1); None where too little of it is (then the box is written)."""
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    area, polygon = cv2.intersectConvexConvex(np.asarray(corners, dtype=np.float32), frame)
    if polygon is None or area <= 0 or len(polygon) < 3:
        return None
    points = polygon.reshape(-1, 2).astype(np.float64)
    return np.clip(points, 0, [width, height])


def write_crops(image: np.ndarray, cards: list[tuple[str, tuple[float, ...], float, float]], folder: Path, stem: str,
                crop: int, rng: np.random.Generator, backs: bool = False, covered: bool = False,
                edge_grown: float | None = None, edge_cut: float = 0.0,
                quads: list[list[list[float]] | None] | None = None, upright_share: float = 0.0) -> int:
    """Write the classifier crop of each face-up card of ``cards`` that is enough in view
    ((card, box, visible fraction, index-corner visible fraction), in scene order) to
    ``folder/<CARD>/<stem>_<k>.jpg``.

    By default the crop must be dominated by its card (``CROP_MIN_VISIBLE``).  ``covered``:
    every card a detector is asked to box (:func:`~companion.synth.scene.boxable`: half of it in view,
    or its index corner and 15 % of it), named as itself however much of its box another card
    covers.  Why: the detector boxes a card in a trick pile whole, and the classifier must
    then name the card that fills the box from corner to corner, not the one lying on it;
    trained on mostly visible cards only, it named the covering card (the synthetic
    validation's cards under half visible were named right 14 % of the time).
    ``backs``: face-down cards too, in ``folder/back/`` (a "back" class lets the classifier
    overrule the detector when it boxes an unseen deck back as a face).  ``edge_grown``: a card's short side over
    its long side; a box the frame cuts is cut grown past the frame to that shape, grey beyond the frame, as
    ``CardDetector(edge_crops=True)`` reads one (:func:`companion.vision.crops.edge_grown_frame`; None: squashed
    as before).  ``edge_cut`` (with ``edge_grown``): the share of those cards also written cut by a frame's edge,
    ``<stem>_<k>e.jpg`` (:func:`edge_cut_crop`).  ``upright_share``: the share of the partly covered cards also
    written cut from the card turned upright by its true outline (``quads``: each card's art corners, in scene order),
    either way up, ``<stem>_<k>u.jpg`` (:func:`companion.vision.crops.upright_crop_mapped`): what
    ``CardDetector(whole_upright="overlapped")`` reads beside the box crop (session 102).  At 0 no random number is
    drawn for it, so the crops are cut as before.  Returns the number written.
    """
    count = 0
    for k, (card, box, visible, index_visible) in enumerate(cards):
        if card == "back" and not backs:
            continue
        if not (boxable(visible, index_visible) if covered else visible >= CROP_MIN_VISIBLE):
            continue
        if edge_grown is None:
            img = crop_card(image, tuple(box), crop, rng)
        else:
            source, grown = edge_grown_frame(image, np.asarray([box], dtype=np.float64), edge_grown)
            img = crop_card(source, tuple(grown[0]), crop, rng)
        if img is None:
            continue
        d = folder / card
        d.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(d / f"{stem}_{k}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        count += 1
        if edge_grown is not None and edge_cut > 0.0 and rng.random() < edge_cut:
            cut = edge_cut_crop(image, box, edge_grown, crop, rng)
            if cut is not None:
                cv2.imwrite(str(d / f"{stem}_{k}e.jpg"), cut, [cv2.IMWRITE_JPEG_QUALITY, 92])
                count += 1
        if (upright_share > 0.0 and visible < IN_FULL_VIEW and quads is not None and quads[k] is not None
                and rng.random() < upright_share):
            turned, _ = upright_crop_mapped(image, np.float32(quads[k]), crop, turn=bool(rng.random() < 0.5))
            if turned is not None:
                cv2.imwrite(str(d / f"{stem}_{k}u.jpg"), turned, [cv2.IMWRITE_JPEG_QUALITY, 92])
                count += 1
    return count


EDGE_CUT_SHARE = (0.15, 0.5)  # how much of a card (along the cut axis) a simulated frame edge takes off


def edge_cut_crop(image: np.ndarray, box: tuple[float, ...], short_over_long: float, crop: int,
                  rng: np.random.Generator) -> np.ndarray | None:
    """The crop ``CardDetector(edge_crops=True)`` reads of this card were the frame's edge to cut it: a side drawn
    at random, a share of the card along it (``EDGE_CUT_SHARE``, so half of it at least stays in view, as the
    labels ask of a card to box) cut off by ending the image there, its box clipped to that frame and grown back
    past it to a card's shape (:func:`companion.vision.crops.edge_grown_frame`), grey where the frame ends.

    Why: a rendered scene seldom puts a card at its frame's edge (436 of 12,978 crops of session 80's French
    training scenes), and the classifiers read such a card's grown crop no better than its squashed one (rule 86):
    they have to be shown many.  The card is the scene's own, lit and covered as drawn; only the frame is moved."""
    side = int(rng.integers(4))  # 0 left, 1 top, 2 right, 3 bottom
    share = rng.uniform(*EDGE_CUT_SHARE)
    axis, low = side % 2, side < 2  # the axis cut across (0: x), and whether the frame's low end moves
    lo, hi = float(box[axis]), float(box[axis + 2])
    at = int(round(lo + share * (hi - lo))) if low else int(round(hi - share * (hi - lo)))
    if not 0 < at < image.shape[1 - axis]:
        return None
    keep = slice(at, None) if low else slice(None, at)
    sub = image[:, keep] if axis == 0 else image[keep]
    shift = at if low else 0
    cut = [float(v) for v in box[:4]]
    cut[axis], cut[axis + 2] = max(lo - shift, 0.0), min(hi - shift, float(sub.shape[1 - axis]))
    source, grown = edge_grown_frame(sub, np.asarray([cut], dtype=np.float64), short_over_long)
    return crop_card(source, tuple(grown[0]), crop, rng)


def _in_view(scene: Scene) -> list[tuple[str, tuple[float, ...], float, float]]:
    """What :func:`write_crops` needs of a rendered scene's cards: name, box and how much of each is in view."""
    return [(c.card, c.box, c.visible, c.index_visible) for c in scene.cards]


def _split_designs_cached(family: str, split: str, source: str = "debian") -> list[Design]:
    """Designs of a split whose art is in the cache (prepared by build_dataset)."""
    return [d for d in _split_list(family, split, source) if _fully_cached(d)]


def _fully_cached(design: Design) -> bool:
    from companion.synth.art import _cache_path

    return all(_cache_path(design, c).is_file() for c in design.cards)


def _worker(args: tuple) -> list[str]:
    family, split, start, stop, seed, out, crop, layouts, photo_dirs, photo_share, source, redraw, outlines = args
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cv2.setNumThreads(1)
    out_dir = Path(out)
    designs = _split_designs_cached(family, split, source)
    photos = pool_for(photo_dirs) if photo_dirs else None
    records = []
    for i in range(start, stop):
        rng = np.random.default_rng([seed, i, 0 if split == "train" else 1])
        scene = render_random_scene(rng, family, designs, layouts=layouts, photos=photos, photo_share=photo_share,
                                    reindex=redraw[0], index_styles=redraw[1], big_pip=redraw[2], ink=redraw[3],
                                    printed=redraw[4], random_backs=redraw[5])
        stem = f"{family[:2]}{i:06d}"
        cv2.imwrite(str(out_dir / "images" / split / f"{stem}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (out_dir / "labels" / split / f"{stem}.txt").write_text("\n".join(yolo_lines(scene, outlines)) + "\n")
        if crop:
            write_crops(scene.image, _in_view(scene), out_dir / "cls" / split, stem, crop, rng)
        records.append(json.dumps({
            "image": f"images/{split}/{stem}.jpg", "design": scene.design,
            "cards": [{"card": c.card, "box": [round(v, 2) for v in c.box],
                       "corners": np.round(c.corners, 2).tolist(), "visible": round(c.visible, 3),
                       "index_visible": round(c.index_visible, 3), "labelled": c.labelled(),
                       **({"index_regions": [np.round(r, 4).tolist() for r in c.index_regions]}
                          if c.index_regions is not None else {})} for c in scene.cards],
        }))
    return records


def build_dataset(family: str, n: int, out: str | Path, split: str = "train", seed: int = 0,
                  workers: int = 1, crop: int = CROP, start: int = 0,
                  layouts: tuple[str, ...] | None = None, photo_dirs: tuple[str, ...] = (),
                  photo_share: float = 0.0, designs: str = "debian", reindex: float = 0.0,
                  index_styles: tuple[str, ...] = ("stacked",), big_pip: float = 0.0, ink: float = 0.0,
                  outline_labels: bool = False, printed: float = 0.0, random_backs: float = 0.0) -> Path:
    """Render ``n`` scenes of ``family`` into ``out`` (split "train" or "val"); returns ``out``.

    ``start`` numbers the scenes (and seeds them) from there, so a second call adds
    different scenes to the same folder; ``layouts`` restricts the layout kinds;
    ``photo_dirs``: photographs for the surfaces and clutter of ``photo_share`` of the scenes;
    ``designs``: the training designs' source (:data:`DESIGN_SOURCES`; validation keeps the held-back ones).
    ``reindex``/``index_styles``/``big_pip``: redrawn index corners in a share of the training scenes
    (:func:`render_random_scene`), ``ink`` the share printed in other inks, and ``printed`` the share with
    printed things (pages, notebooks, card boxes) among the objects, ``random_backs`` the share whose backs are
    drawn at random; validation scenes are never redrawn, re-inked nor given those, they show the held-back
    decks as printed among the usual objects.
    ``outline_labels``: the detection labels give each card's outline, not its box (:func:`yolo_lines`).
    Raises ``PhotoError`` before rendering anything when those folders hold no photograph.
    """
    out = Path(out)
    if split != "train":
        reindex = ink = printed = random_backs = 0.0
    if reindex > 0:
        from companion.synth.reindex import check_index_styles

        check_index_styles(tuple(index_styles))  # before anything is written
    photo_dirs = tuple(photo_dirs)
    if photo_dirs and photo_share > 0:
        pool_for(photo_dirs)  # fails here, clearly, before anything is written
    else:
        photo_dirs = ()
    for sub in ("images", "labels", "cls"):
        (out / sub / split).mkdir(parents=True, exist_ok=True)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    redraw = (reindex, tuple(index_styles), big_pip, ink, printed, random_backs)
    # Render the art first (once, cached, in parallel) so workers do not duplicate it.
    designs_for(family, split, workers, designs)
    chunks = []
    step = max(1, (n + workers * 4 - 1) // (workers * 4))
    for a in range(start, start + n, step):
        chunks.append((family, split, a, min(a + step, start + n), seed, str(out), crop, layouts, photo_dirs,
                       photo_share, designs, redraw, outline_labels))
    with open(out / "scenes" / f"{split}-{family}.jsonl", "a") as f:
        if workers <= 1:
            for ch in chunks:
                for r in _worker(ch):
                    f.write(r + "\n")
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for recs in pool.map(_worker, chunks):
                    for r in recs:
                        f.write(r + "\n")
    write_yaml(out)
    return out


def write_yaml(out: Path) -> Path:
    path = out / "data.yaml"
    path.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: card\n  1: back\n"
    )
    return path


def write_combined_yaml(root: str | Path, families: tuple[str, ...] = ("french", "spanish")) -> Path:
    """``root/det.yaml``: one family-agnostic detection dataset over ``root/<family>/``."""
    root = Path(root)
    present = [f for f in families if (root / f / "images" / "train").is_dir()]
    if not present:
        raise FileNotFoundError(f"no family datasets under {root}")
    train = "\n".join(f"  - {f}/images/train" for f in present)
    val = "\n".join(f"  - {f}/images/val" for f in present if (root / f / "images" / "val").is_dir())
    path = root / "det.yaml"
    path.write_text(f"path: {root.resolve()}\ntrain:\n{train}\nval:\n{val}\nnames:\n  0: card\n  1: back\n")
    return path


def _ink_placements(placements: list[Placement], design: Design, rng: np.random.Generator) -> None:
    """Print every face-up placement of the scene's design (its redrawn face too) in one random palette."""
    from companion.synth.art import card_image
    from companion.synth.ink import random_palette, reinked_face

    palette = random_palette(rng, design.family)
    for p in placements:
        if p.card != "back" and p.design is None:
            p.art = reinked_face(p.art if p.art is not None else card_image(design, p.card), p.card, palette,
                                 design.family)


def _random_back_placements(placements: list[Placement], back: Design, rng: np.random.Generator) -> None:
    """Give every face-down placement (without art of its own) one random back, shaped as ``back``'s."""
    from companion.synth.art import card_image
    from companion.synth.backs import random_back

    art = random_back(rng, card_image(back, "back")[..., 3])
    for p in placements:
        if p.card == "back" and p.art is None and p.design is None:
            p.art = art


def _figures(family: str) -> tuple[str, ...]:
    ranks = ("J", "Q", "K") if family == "french" else ("10", "11", "12")
    return tuple(c for c in family_cards(family) if c[:-1] in ranks)


def mixed_face(design: Design, card: str, rng: np.random.Generator) -> np.ndarray | None:
    """``card``'s own index corners around another figure's picture (same design and suit).

    Why: on decks it never saw, the classifier confuses J, Q and K (the held-back
    designs draw their figures in styles of their own, and 35 training designs are
    too few to learn what a queen looks like in general).  The index letters are
    what every deck shares; a queen's corners around a king's picture, labelled
    queen, teaches the classifier to read them.  The two outer strips of the card
    (as wide as its index region, full height) are kept, so all four corners stay.
    Returns None when the design has no other figure of that suit.
    """
    from companion.synth.art import card_image

    family = design.family
    donors = [c for c in _figures(family) if c != card and c[-1] == card[-1] and design.has(c)]
    if not donors:
        return None
    own = card_image(design, card)
    donor = card_image(design, donors[int(rng.integers(len(donors)))])
    h, w = own.shape[:2]
    if donor.shape[:2] != (h, w):
        donor = cv2.resize(donor, (w, h), interpolation=cv2.INTER_AREA)
    strip = INDEX_REGION[family][2]
    x0, x1 = int(round(strip * w)), int(round((1 - strip) * w))
    out = own.copy()
    out[:, x0:x1, :3] = donor[:, x0:x1, :3]
    return out


def render_crop_scene(rng: np.random.Generator, family: str, designs: list[Design], figures: bool = False,
                      face_mix: float = 0.0, reindex: float = 0.0, index_styles: tuple[str, ...] = ("stacked",),
                      big_pip: float = 0.0, ink: float = 0.0) -> Scene:
    """A small scene centred on one card with a few neighbours, for classifier crops.

    Cheaper than a full table (small canvas) and scaled so the cards are 50-260 px
    tall, the sizes a detector box has in a 1280x720 frame or a phone photo.
    ``figures``: only figure cards (J, Q, K / sota, caballo, rey); ``face_mix``: the
    share of figures drawn with another figure's picture (:func:`mixed_face`);
    ``reindex``: the share of French cards whose index corners are redrawn in
    another typeface (:func:`companion.synth.reindex.reindexed_face`), in one of
    ``index_styles``, and ``big_pip`` the share of those number cards drawn as one
    large pip.  ``ink``: the share of scenes whose faces are printed in other inks, one palette a scene
    (:func:`companion.synth.ink.random_palette`; at 0 no random draw changes).
    """
    from companion.synth.layouts import random_lighting
    from companion.synth.scene import Camera, Placement

    design = designs[int(rng.integers(len(designs)))]
    figure_cards = _figures(family)
    allowed = figure_cards if figures else family_cards(family)
    pool = tuple(c for c in allowed if design.has(c))
    n = int(rng.integers(1, 5))
    cards = [pool[i] for i in rng.choice(len(pool), size=min(n, len(pool)), replace=False)]
    palette = None
    if ink > 0 and rng.random() < ink:
        from companion.synth.ink import random_palette

        palette = random_palette(rng, family)

    def art(card: str) -> np.ndarray | None:
        face = None
        if face_mix > 0 and card in figure_cards and rng.random() < face_mix:
            face = mixed_face(design, card, rng)
        if reindex > 0 and family == "french" and card != "back" and rng.random() < reindex:
            from companion.synth.art import card_image
            from companion.synth.reindex import reindexed_face

            face = reindexed_face(face if face is not None else card_image(design, card), card, rng,
                                  index_styles, big_pip)
        if palette is not None and card != "back":
            from companion.synth.art import card_image
            from companion.synth.ink import reinked_face

            face = reinked_face(face if face is not None else card_image(design, card), card, palette, family)
        return face

    placements = [Placement(cards[0], (0.0, 0.0), float(rng.uniform(0, 360)), 1.0, int(rng.integers(0, 3)),
                            art=art(cards[0]))]
    for k, c in enumerate(cards[1:]):
        d = rng.uniform(35, 90)
        a = rng.uniform(0, 2 * np.pi)
        card = "back" if rng.random() < 0.2 else c
        placements.append(Placement(card, (float(d * np.cos(a)), float(d * np.sin(a))), float(rng.uniform(0, 360)),
                                    1.0, int(rng.integers(0, 3)), art=art(card)))
    card_px = rng.uniform(50, 260)
    size = int(min(512, max(160, card_px * 2.2)))
    view = 88.0 * size / card_px
    tilt = float(rng.choice([0.0, rng.uniform(0, 0.4)]))
    camera = Camera(size, size, view, tilt, float(rng.uniform(0, 360)), tuple(rng.normal(0, 8, 2)),
                    tuple(tuple(v) for v in rng.normal(0, 0.02, (4, 2))))
    backs = [d for d in designs if has_back(d)] or [d for d in list_designs("french") if has_back(d)]
    lighting = random_lighting(rng)
    lighting.fingers = int(rng.random() < 0.1)
    return compose_scene(placements, camera, design=design, back_design=backs[int(rng.integers(len(backs)))],
                         lighting=lighting, rng=rng, distractors=int(rng.random() < 0.2))


def _crop_worker(args: tuple) -> int:
    family, split, start, stop, seed, out, crop, figures, face_mix, reindex, index_styles, big_pip, ink = args
    cv2.setNumThreads(1)
    designs = _split_designs_cached(family, split)
    count = 0
    for i in range(start, stop):
        rng = np.random.default_rng([seed, i, 2 if split == "train" else 3])
        scene = render_crop_scene(rng, family, designs, figures, face_mix, reindex, index_styles, big_pip, ink)
        count += write_crops(scene.image, _in_view(scene), Path(out) / split, f"c{family[:2]}{i:07d}", crop, rng)
    return count


def build_crops(family: str, n: int, out: str | Path, split: str = "train", seed: int = 0, workers: int = 1,
                crop: int = CROP, start: int = 0, figures: bool = False, face_mix: float = 0.0,
                reindex: float = 0.0, index_styles: tuple[str, ...] = ("stacked",), big_pip: float = 0.0,
                ink: float = 0.0) -> int:
    """Render ``n`` small scenes and write classifier crops to ``out/<split>/<CARD>/``; returns the count.

    ``figures``/``face_mix``/``reindex``/``index_styles``/``big_pip``/``ink``: see :func:`render_crop_scene`
    (figure-only scenes, mixed pictures, redrawn indices and how they are laid out, other inks).
    """
    designs_for(family, split, workers)
    step = max(1, (n + workers * 8 - 1) // (workers * 8))
    chunks = [(family, split, a, min(a + step, start + n), seed, str(out), crop, figures, face_mix, reindex,
               tuple(index_styles), big_pip, ink)
              for a in range(start, start + n, step)]
    if workers <= 1:
        return sum(_crop_worker(c) for c in chunks)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return sum(pool.map(_crop_worker, chunks))


def _recrop_worker(args: tuple[str, list[str], str, str, int, int, bool, bool, float | None, float, float]
                   ) -> tuple[int, list[str]]:
    root, lines, split, out, seed, crop, backs, covered, edge_grown, edge_cut, upright_share = args
    cv2.setNumThreads(1)
    count = 0
    unreadable: list[str] = []
    for line in lines:
        rec = json.loads(line)
        image = cv2.imread(str(Path(root) / rec["image"]))
        if image is None:
            unreadable.append(str(Path(root) / rec["image"]))
            continue
        stem = Path(rec["image"]).stem
        rng = np.random.default_rng([seed, int("".join(ch for ch in stem if ch.isdigit()) or 0), 4])
        count += write_crops(image, [(c["card"], c["box"], c["visible"], c["index_visible"]) for c in rec["cards"]],
                             Path(out) / split, stem, crop, rng, backs, covered, edge_grown, edge_cut,
                             [c.get("corners") for c in rec["cards"]], upright_share)
    return count, unreadable


def recrop_problem(edge_cut: float, edge_grown: bool, upright_share: float = 0.0) -> str | None:
    """What is wrong with asking :func:`recrop_dataset` for ``edge_cut`` or ``upright_share`` (None: nothing): the one
    check the library raises on and ``companion dataset recrop`` reports before any scene is read (named
    ``edge_cut_problem`` before session 102 checked the upright share too)."""
    if not 0.0 <= upright_share <= 1.0:
        return f"upright-share must be a share in [0, 1], got {upright_share!r}"
    if not 0.0 <= edge_cut <= 1.0:
        return f"edge-cut must be a share in [0, 1], got {edge_cut!r}"
    if edge_cut and not edge_grown:
        return "edge-cut needs edge-grown: a card the frame cuts is read grown"
    return None


def recrop_dataset(root: str | Path, family: str, out: str | Path, split: str = "train", seed: int = 0,
                   workers: int = 1, crop: int = CROP, backs: bool = False, covered: bool = False,
                   edge_grown: bool = False, edge_cut: float = 0.0, upright_share: float = 0.0) -> int:
    """Cut classifier crops again from the scenes already rendered under ``root`` (``backs``, ``covered``,
    ``upright_share``: see :func:`write_crops`; ``edge_grown``: boxes the frame cuts grown to the family's card shape,
    ``CARD_SHORT_OVER_LONG``, as ``CardDetector(edge_crops=True)`` reads them; ``edge_cut``, with it: the share of
    cards also cut as if the frame's edge cut them, :func:`edge_cut_crop`).

    When the crop recipe changes (:func:`crop_card`), the rendered scenes and their
    ground truth (``scenes/<split>-<family>.jsonl``) stay valid: re-cutting them takes
    a minute where rendering took most of an hour.  Returns the number of crops.
    """
    if problem := recrop_problem(edge_cut, edge_grown, upright_share):
        raise ValueError(problem)
    root = Path(root)
    lines = (root / "scenes" / f"{split}-{family}.jsonl").read_text().splitlines()
    step = max(1, (len(lines) + workers * 8 - 1) // (workers * 8))
    shape = CARD_SHORT_OVER_LONG[family] if edge_grown else None
    chunks = [(str(root), lines[a:a + step], split, str(out), seed, crop, backs, covered, shape, edge_cut,
               upright_share)
              for a in range(0, len(lines), step)]
    if workers <= 1:
        results = [_recrop_worker(c) for c in chunks]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_recrop_worker, chunks))
    unreadable = [name for _, names in results for name in names]
    if unreadable:  # a scene image gone or damaged: say which, the count alone would hide it
        shown = ", ".join(unreadable[:5]) + (f" and {len(unreadable) - 5} more" if len(unreadable) > 5 else "")
        print(f"warning: {len(unreadable)} scene image(s) unreadable, skipped: {shown}", file=sys.stderr)
    return sum(count for count, _ in results)


def build_corners(src: str | Path, out: str | Path, splits: tuple[str, ...] = ("train", "val")) -> dict[str, int]:
    """Cut both index corners of every classifier crop under ``src`` (SPLIT/CARD/*.jpg) into ``out``.

    The corner classifier learns from the very crops the whole-card classifier
    does, cut by :func:`companion.vision.crops.corner_views` as at inference, so the
    two see the same cards; backs are kept (their corners are a back's pattern).
    Returns the number of corner images written per split.  Raises FileNotFoundError
    when ``src`` holds none of the splits.
    """
    from companion.vision.crops import corner_views

    src, out = Path(src), Path(out)
    present = [s for s in splits if (src / s).is_dir()]
    if not present:
        raise FileNotFoundError(f"no {' or '.join(splits)} folder of classifier crops under {src}")
    counts: dict[str, int] = {}
    for split in present:
        n = 0
        for folder in sorted(p for p in (src / split).iterdir() if p.is_dir()):
            target = out / split / folder.name
            target.mkdir(parents=True, exist_ok=True)
            for f in sorted(folder.glob("*.jpg")):
                crop = cv2.imread(str(f))
                if crop is None:
                    print(f"warning: unreadable crop skipped: {f}", file=sys.stderr)
                    continue
                tl, br = corner_views(crop[None])
                cv2.imwrite(str(target / f"{f.stem}_tl.jpg"), tl, [cv2.IMWRITE_JPEG_QUALITY, 92])
                cv2.imwrite(str(target / f"{f.stem}_br.jpg"), br, [cv2.IMWRITE_JPEG_QUALITY, 92])
                n += 2
        counts[split] = n
    return counts
