"""The photo gate's data and training: is a detector's box a card, or something else on the table?

Why: the whole-card classifier names every crop one of the cards, so a picture, a book's cover or a printed page the
detector boxes comes out as some card, and the real photos' false detections are such things (rule 194, session 116).
The gate (``card-gate-<family>-photo.onnx``, read by ``CardDetector(gate_max=...)``) is a two-class classifier of the
same crop (:func:`companion.vision.crops.crop_card`), trained on the photo detector's own candidate boxes
(:meth:`CardDetector.find_boxes`, faint ones too) in rendered training scenes with printed things and photographed
clutter: ``card`` where a box overlaps a drawn card (IoU 0.5 or more, face or back, covered or not), ``other`` where
it overlaps none (IoU under 0.1 with every card, at most 30 % of it on cards); the boxes in between are left out.

    python -m companion.training.gate crops DATA OUT --split train [--part K/M] [--card-keep 0.35]
    python -m companion.training.gate train OUT RUNS GATE.onnx --epochs 4     # needs the training extra (torch)

``crops`` needs only the companion (the shipped detector reads the scenes); ``train`` starts from the shipped photo
classifier's checkpoint, its last layer drawn afresh for the two classes (rule 196, session 117).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

CARD, OTHER = "card", "other"
CARD_IOU = 0.5  # a box this close to a drawn card is that card
OTHER_IOU = 0.1  # a box under this with every card ...
OTHER_ON_CARDS = 0.3  # ... and at most this share of it on cards is something else


def share_on_cards(box: np.ndarray, cards: np.ndarray) -> float:
    """The share of ``box``'s area that the card boxes ``cards`` (N x 4) cover, counted once where they overlap."""
    x1, y1, x2, y2 = (int(round(float(v))) for v in box)
    w, h = max(1, x2 - x1), max(1, y2 - y1)
    mask = np.zeros((h, w), dtype=bool)
    for a1, b1, a2, b2 in np.round(cards).astype(int):
        a1, b1, a2, b2 = max(a1, x1) - x1, max(b1, y1) - y1, min(a2, x2) - x1, min(b2, y2) - y1
        if a2 > a1 and b2 > b1:
            mask[b1:b2, a1:a2] = True
    return float(mask.mean())


def kind_of(box: np.ndarray, cards: np.ndarray) -> str | None:
    """``CARD``, ``OTHER`` or None (neither surely: left out) for a candidate box among the scene's card boxes."""
    from companion.vision.crops import box_iou

    best = float(box_iou(box, cards).max()) if len(cards) else 0.0
    if best >= CARD_IOU:
        return CARD
    if best < OTHER_IOU and share_on_cards(box, cards) <= OTHER_ON_CARDS:
        return OTHER
    return None


def write_crops(data: Path, out: Path, family: str, split: str, part: tuple[int, int] = (0, 1),
                card_keep: float = 0.35, limit: int | None = None) -> dict[str, int]:
    """Cut the gate's crops from the scenes of ``data`` (``dataset build``) into ``out/split/{card,other}``: the
    scenes at ``part`` (k of m) of the first ``limit``; ``card_keep``, the share of card boxes kept (they outnumber
    the others).  Returns the counts written."""
    import cv2
    from tqdm import tqdm

    from companion.vision.crops import crop_card
    from companion.vision.detector import CardDetector
    from companion.vision.settings import photo_settings

    lines = (data / "scenes" / f"{split}-{family}.jsonl").read_text().splitlines()[:limit]
    k, m = part
    detector = CardDetector(family, **photo_settings(family=family, rescorer=False, gate_max=0))
    rng = np.random.default_rng([196, k])
    counts = {CARD: 0, OTHER: 0}
    for name in counts:
        (out / split / name).mkdir(parents=True, exist_ok=True)
    for line in tqdm(lines[k::m], desc=f"{data.name} {split} {k}/{m}", unit="scene"):
        rec = json.loads(line)
        image = cv2.imread(str(data / rec["image"]))
        if image is None:
            print(f"warning: unreadable scene skipped: {data / rec['image']}", file=sys.stderr)
            continue
        boxes, _, _ = detector.find_boxes(image)
        cards = np.array([c["box"] for c in rec["cards"]], dtype=np.float64).reshape(-1, 4)
        stem = Path(rec["image"]).stem
        for j, box in enumerate(boxes):
            kind = kind_of(box, cards)
            if kind is None or (kind == CARD and rng.random() > card_keep):
                continue
            crop = crop_card(image, tuple(float(v) for v in box))
            if crop is not None:
                cv2.imwrite(str(out / split / kind / f"{stem}_{j}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
                counts[kind] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("crops", help="cut card / other crops from rendered scenes")
    c.add_argument("data", type=Path, help="a folder written by `companion dataset build`")
    c.add_argument("out", type=Path, help="the gate's classifier folder (crops go to OUT/SPLIT/{card,other})")
    c.add_argument("--family", choices=("french", "spanish"), default="french")
    c.add_argument("--split", choices=("train", "val"), default="train")
    c.add_argument("--part", default="0/1", help="K/M: the scenes K, K+M, K+2M, ... (to run M processes)")
    c.add_argument("--card-keep", type=float, default=0.35, help="share of the card boxes kept (default 0.35)")
    c.add_argument("--limit", type=int, default=None, help="only the first N scenes")
    t = sub.add_parser("train", help="train the gate from the shipped photo classifier's checkpoint and export it")
    t.add_argument("data", type=Path, help="the crops folder (train/ and val/)")
    t.add_argument("runs", type=Path)
    t.add_argument("out", type=Path, help="the ONNX file to write, e.g. models/card-gate-french-photo.onnx")
    t.add_argument("--family", choices=("french", "spanish"), default="french")
    t.add_argument("--epochs", type=int, default=4)
    t.add_argument("--lr0", type=float, default=0.0005)
    t.add_argument("--init", default=None, help="checkpoint to start from (default: the family's photo classifier)")
    t.add_argument("--resume", action="store_true", help="continue RUNS/gate-FAMILY from its last.pt")
    args = p.parse_args(argv)
    if args.command == "crops":
        k, _, m = args.part.partition("/")
        print(json.dumps(write_crops(args.data, args.out, args.family, args.split, (int(k), int(m or 1)),
                                     args.card_keep, args.limit)))
        return 0
    from companion.paths import models_dir
    from companion.training.train import export_onnx, train_classifier

    init = args.init or str(models_dir() / "checkpoints" / f"card-classifier-{args.family}-photo.pt")
    name = f"gate-{args.family}"
    train_classifier(args.data, args.runs, name, epochs=args.epochs, imgsz=96, batch=64, resume=args.resume,
                     init=init, lr0=args.lr0, save_period=1)
    print(export_onnx(args.runs / name / "weights" / "last.pt", args.out, 96, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
