"""Classifier crops cut from rendered table sessions of the training designs.

Why: the corner classifier learned its letters from crops of still scenes and
from drawn glyphs.  At the table the letters are 6-8 pixels tall, blurred by a
hand moving over them, tilted, half covered, and the box they are cut from is
the detector's, not the truth's.  A one-pip deck it never saw is read right in
67-88 % of such frames (session 14, ``bench/table_card_frames.py``), and its
misreads are most of the hands the table still scores wrong.  Corners cut the
way the table cuts them, from frames drawn the way the table evaluation draws
them (``companion.table.render_session``), on the designs the classifier may
train on, are the data that matches.

Each face-up card of a sampled frame gives its box crop (the box jittered as a
detector's box is) and, where its outline is found, its upright crop: the two
views the table reads and averages (``RECTIFY = "blend"``).  They are written as
classifier crops (``train/CARD/*.jpg``), so ``companion dataset corners`` cuts
their corners as for any other crops.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

VARIANTS = {"french": ("paulista", "mineiro", "clean-28"), "spanish": ("argentino",)}


def session_plan(family: str, seed: int, hands: int) -> tuple[Any, Any, random.Random]:
    """The script and render options of table session ``seed`` (a training design; camera, light and
    players drawn as the table evaluation draws them), and the random source its crops go on with."""
    from companion.table.render_session import random_look
    from companion.table.script import make_script

    rng = random.Random(seed)
    variant = rng.choice(VARIANTS[family])
    opts, players = random_look(rng, (640, 480), seed, split="train")
    return make_script(variant, hands, players, seed), opts, rng


def _session_crops(job: tuple[str, int, str, float, float, int]) -> dict[str, int]:
    """Render one session of a training design and cut its crops; the number written per card."""
    import cv2

    from companion.table.render_session import SessionRenderer
    from companion.vision.crops import CROP, crop_card, rectified_crop

    family, seed, out, every, min_visible, hands = job
    script, opts, rng = session_plan(family, seed, hands)
    renderer = SessionRenderer(script, opts)
    counts: dict[str, int] = {}
    t, k = rng.uniform(0.0, every), 0
    while t < script.duration:
        image, truth = renderer.frame(t)
        h, w = image.shape[:2]
        for i, card in enumerate(truth):
            name = card["card"]
            if name == "back" or not card.get("labelled", True) or card.get("visible", 1.0) < min_visible:
                continue
            x1, y1, x2, y2 = card["box"]
            bw, bh = x2 - x1, y2 - y1
            # a detector's box: a few per cent off the true one on each side
            box = (x1 + rng.uniform(-0.06, 0.06) * bw, y1 + rng.uniform(-0.06, 0.06) * bh,
                   x2 + rng.uniform(-0.06, 0.06) * bw, y2 + rng.uniform(-0.06, 0.06) * bh)
            box = (max(0.0, box[0]), max(0.0, box[1]), min(w - 1.0, box[2]), min(h - 1.0, box[3]))
            folder = Path(out) / name
            folder.mkdir(parents=True, exist_ok=True)
            stem = f"t{seed}_{k:04d}_{i}"
            for suffix, crop in (("box", crop_card(image, box, CROP)), ("up", rectified_crop(image, box, CROP))):
                if crop is None:
                    continue
                cv2.imwrite(str(folder / f"{stem}_{suffix}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
                counts[name] = counts.get(name, 0) + 1
        t += every * rng.uniform(0.7, 1.3)
        k += 1
    return counts


def build_table_crops(family: str, sessions: int, out: str | Path, seed: int = 0, every: float = 0.5,
                      min_visible: float = 0.5, hands: int = 3, workers: int = 1) -> dict[str, int]:
    """Render ``sessions`` table sessions of ``family``'s training designs and write their crops to
    ``out`` (CARD/*.jpg, e.g. DATA/french/cls-table/train): a frame every ``every`` seconds or so,
    each face-up card at least ``min_visible`` in view.  Returns the crops written per card.
    Raises the art layer's ArtError when no card art is installed."""
    jobs = [(family, seed * 100_000 + k, str(out), every, min_visible, hands) for k in range(sessions)]
    total: dict[str, int] = {}
    if workers <= 1:
        results: Any = map(_session_crops, jobs)
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        results = pool.map(_session_crops, jobs)
    for counts in results:
        for name, n in counts.items():
            total[name] = total.get(name, 0) + n
    if workers > 1:
        pool.shutdown()
    return total
