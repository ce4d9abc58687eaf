"""How tight are the boxes a candidate names right that main does not?  Spanish or French synthetic scenes.

Why: session 94's P10 (a continued Spanish photo corner model) raised mAP50 on four fresh seeds but lowered
mAP50-95 on one.  mAP50-95 asks for tight boxes; if the cards a candidate adds are named on loose (faint) boxes, its
mAP50 gain comes with little mAP50-95.  This reads each labelled card's box IoU with the detection naming it right
(detections greedily by confidence, one per card, IoU >= 0.5), for main and for the candidate, and splits the cards
into named by both, by the candidate only and by main only.

    python bench/box_tightness.py VAL_DIR --models CAND [--family spanish] [--limit N]
"""

from __future__ import annotations

import statistics
from pathlib import Path

from rich.console import Console
from rich.table import Table

from companion.paths import models_dir
from companion.vision.detector import CardDetector
from companion.vision.evaluate import match_detections, parse_val_arguments, read_image, val_parser
from companion.vision.settings import photo_settings


def named_right(detector: CardDetector, data: Path, records: list[dict]) -> dict[tuple[int, int], float]:
    """(scene, card) -> IoU of the detection that names that labelled card right, for every card one does, matched
    as mAP50 matches them (:func:`companion.vision.evaluate.match_detections`)."""
    found: dict[tuple[int, int], float] = {}
    for k, rec in enumerate(records):
        truths = [c for c in rec["cards"] if c["labelled"]]
        dets = [d.to_dict() for d in detector.detect(read_image(data / rec["image"]))]
        for _, matched, overlap in match_detections(truths, dets, 0.5):
            if matched is not None:
                found[(k, matched)] = overlap
    return found


def main(argv: list[str] | None = None) -> int:
    args, records = parse_val_arguments(val_parser(__doc__, "spanish", candidate=True), argv)
    if records is None:
        return 2
    settings = photo_settings(family=args.family)
    main_found = named_right(CardDetector(args.family, models_dir=models_dir(), **settings), args.data, records)
    cand_found = named_right(CardDetector(args.family, models_dir=args.models, **settings), args.data, records)
    both = main_found.keys() & cand_found.keys()
    table = Table(title=f"cards named right, IoU with their box ({args.data.name}, {len(records)} scenes)")
    for col in ("cards", "boxes of", "n", "mean IoU", "median", "share >= 0.75"):
        table.add_column(col)
    for label, keys, found, whose in (("all", main_found.keys(), main_found, "main"),
                                      ("all", cand_found.keys(), cand_found, "candidate"),
                                      ("named by both", both, main_found, "main"),
                                      ("named by both", both, cand_found, "candidate"),
                                      ("candidate only", cand_found.keys() - main_found.keys(), cand_found, "candidate"),
                                      ("main only", main_found.keys() - cand_found.keys(), main_found, "main")):
        values = [found[k] for k in keys]
        if values:
            share = sum(v >= 0.75 for v in values) / len(values)
            table.add_row(label, whose, str(len(values)), f"{statistics.mean(values):.3f}",
                          f"{statistics.median(values):.3f}", f"{share:.3f}")
        else:
            table.add_row(label, whose, "0", "-", "-", "-")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
