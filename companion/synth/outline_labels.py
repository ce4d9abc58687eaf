"""Every card's whole outline, as oriented-box labels, from rendered scenes: data for an outline model.

Why (session 54): the reading turns each card upright by the rectangle ``crops.card_quad`` finds in the
picture, and a rectangle under 0.7 IoU with the card's true one turns it wrong. On a held-out tuning seed
(val108's first 200 scenes) the true rectangle of every card in place of the one found raised mAP50 from
0.7070 to 0.8110; two thirds of that is in the partly covered cards, whose hidden part no finder of the
picture sees. A model can learn where a covered card's hidden corners lie from the part that shows (a
card's shape, its index, the card above); the scenes know every card's four corners, covered or not.

Labels are in ultralytics' OBB format: one line per labelled card (faces and backs alike, one class,
``card``), ``0 x1 y1 x2 y2 x3 y3 x4 y4``, the scene's true corners as shares of the image, clipped to it.
Images are linked, not copied (a scene folder is hundreds of megabytes).

    companion dataset outlines --scenes DATA/french DATA/photo --out DATA/outlines --split train
    companion dataset outlines --scenes DATA/french-val108:300 --out DATA/outlines --split val
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2

CLASS_NAMES = ("card",)


class OutlineDataError(RuntimeError):
    """A scene folder that cannot be read (no scenes file, a missing image)."""


def outline_rows(cards: list[dict], width: int, height: int) -> list[str]:
    """The OBB label lines of one scene's labelled cards (``cards`` as a scenes file records them)."""
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    rows = []
    for card in cards:
        if not card.get("labelled"):
            continue
        points = [(min(max(x / width, 0.0), 1.0), min(max(y / height, 0.0), 1.0)) for x, y in card["corners"]]
        rows.append("0 " + " ".join(f"{x:.5f} {y:.5f}" for x, y in points))
    return rows


def _source(spec: str) -> tuple[Path, int | None]:
    """``DIR`` or ``DIR:N`` (the first N scenes only)."""
    folder, _, limit = spec.partition(":")
    if limit and (not limit.isdigit() or int(limit) < 1):
        raise ValueError(f"expected DIR or DIR:N with N >= 1, got {spec!r}")
    return Path(folder), int(limit) if limit else None


def write_outline_dataset(out: str | Path, split: str, scenes: list[str]) -> int:
    """Link the images of ``scenes`` (folders written by ``companion dataset build``, each ``DIR`` or
    ``DIR:N``) into ``out/images/<split>`` and write their labels to ``out/labels/<split>`` and
    ``out/data.yaml``; returns the number of images. Raises :class:`OutlineDataError` for a folder without a
    scenes file or an image it names that cannot be read."""
    if split not in ("train", "val"):
        raise ValueError(f"split must be train or val, got {split!r}")
    out = Path(out)
    images, labels = out / "images" / split, out / "labels" / split
    count = 0
    for spec in scenes:
        folder, limit = _source(spec)
        files = sorted((folder / "scenes").glob("*.jsonl")) if (folder / "scenes").is_dir() else []
        if not files:
            raise OutlineDataError(f"{folder}: no scenes/*.jsonl (a folder written by `companion dataset build`)")
        images.mkdir(parents=True, exist_ok=True)
        labels.mkdir(parents=True, exist_ok=True)
        lines = [line for f in files for line in f.read_text().splitlines() if line.strip()]
        for line in lines[:limit]:
            record = json.loads(line)
            source = (folder / record["image"]).resolve()
            picture = cv2.imread(str(source), cv2.IMREAD_UNCHANGED)
            if picture is None:
                raise OutlineDataError(f"{source}: missing or not an image")
            name = f"{folder.name}-{Path(record['image']).stem}"
            link = images / f"{name}{source.suffix}"
            if link.is_symlink() or link.exists():
                if link.resolve() != source:  # two scene folders of one name would mix their scenes
                    raise OutlineDataError(f"{link.name} is already another folder's image ({link.resolve()}): "
                                           f"give scene folders of one name their own --out")
                link.unlink()
            os.symlink(source, link)
            rows = outline_rows(record["cards"], picture.shape[1], picture.shape[0])
            (labels / f"{name}.txt").write_text("".join(f"{row}\n" for row in rows))
            count += 1
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    return count
