"""Where do the photo readings go wrong on synthetic scenes: unboxed, wrong rank, wrong suit only, or named a back?
And is a covered card given the name of a card its box overlaps?

Why: session 100 found the French photo settings at their optimum (rules 132-133) while only 0.56 of the partly
covered faces are named right against 0.85 in full view, 0.58 even where the card's index corner is in view.  This
splits every labelled face by how much of it shows (in full view, covered with its index in view, covered with the
index hidden) and by what happened to it: the detection overlapping it most (IoU >= 0.5, as ``evaluate``'s
``readings``, :func:`companion.vision.evaluate.boxing_detection`) names it right, names another rank, names only the
suit wrong, names a back, or there is none.  For the covered cards boxed with another rank it counts how many were
given the rank, or the very name, of a face (labelled or not) whose box overlaps theirs, as a corner window or a
whole-card view that sees the neighbour would.  The chance line is what a rank drawn at random from the other twelve
(a name from the other 51 faces) would give with the same neighbours.

    python bench/misnamed_cards.py VAL_DIR [--family french] [--limit N] [--models DIR]
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from companion.paths import models_dir
from companion.vision.detector import CardDetector
from companion.vision.evaluate import (INDEX_WHOLE, boxing_detection, iou, parse_val_arguments, read_image,
                                       val_parser)
from companion.vision.settings import photo_settings

VIEWS = ("in full view", "covered, index in view", "covered, index hidden")
OUTCOMES = ("right", "unboxed", "rank wrong", "suit only wrong", "named back")


def view_of(card: dict) -> str:
    """How much of a labelled card shows: ``visible`` and ``index_visible`` as the scene records them.  Every scene
    rendered since session 53 records both; a card without ``visible`` counts here as in full view (``evaluate``'s
    ``reading_shares`` counts it under "all" only), a covered one without ``index_visible`` as its index hidden."""
    if card.get("visible", 1.0) >= 0.99:
        return VIEWS[0]
    return VIEWS[1] if card.get("index_visible", 0.0) >= INDEX_WHOLE else VIEWS[2]


def rank_of(card: str) -> str:
    """The rank part of a face's name ("10H" -> "10"); a back has none."""
    return "" if card == "back" else card[:-1]


def outcome(truth: dict, dets: list[dict]) -> tuple[str, dict | None]:
    """What happened to one labelled face: one of ``OUTCOMES``, with the detection overlapping it most where that
    overlap is at least 0.5 (else None)."""
    best = boxing_detection(truth, dets)
    if best is None:
        return "unboxed", None
    if best["card"] == truth["card"]:
        return "right", best
    if best["card"] == "back":
        return "named back", best
    return ("suit only wrong" if rank_of(best["card"]) == rank_of(truth["card"]) else "rank wrong"), best


def neighbours(truth: dict, cards: list[dict]) -> list[dict]:
    """The other faces of the scene (labelled or not) whose boxes overlap this one's."""
    return [c for c in cards if c is not truth and c["card"] != "back" and iou(c["box"], truth["box"]) > 0.0]


def tally(records: list[tuple[dict, list[dict]]]) -> tuple[dict[str, Counter], Counter]:
    """Per view, the count of each outcome; and for the covered faces boxed with another rank, how many took a
    neighbour's rank or name, beside what chance would give (sums of probabilities)."""
    per_view: dict[str, Counter] = {v: Counter() for v in VIEWS}
    borrowed: Counter = Counter()
    for rec, dets in records:
        faces = [c for c in rec["cards"] if c["card"] != "back"]
        for truth in (c for c in faces if c["labelled"]):
            view = view_of(truth)
            what, best = outcome(truth, dets)
            per_view[view][what] += 1
            if what != "rank wrong" or view == VIEWS[0]:
                continue
            near = neighbours(truth, faces)
            other_ranks = {rank_of(c["card"]) for c in near} - {rank_of(truth["card"])}
            borrowed["covered, rank wrong"] += 1
            borrowed["took a neighbour's rank"] += rank_of(best["card"]) in other_ranks
            borrowed["took a neighbour's name"] += any(c["card"] == best["card"] for c in near)
            borrowed["chance: a neighbour's rank"] += len(other_ranks) / 12
            borrowed["chance: a neighbour's name"] += len({c["card"] for c in near} - {truth["card"]}) / 51
    return per_view, borrowed


def main(argv: list[str] | None = None) -> int:
    args, scenes = parse_val_arguments(val_parser(__doc__, "french"), argv)
    if scenes is None:
        return 2
    detector = CardDetector(args.family, models_dir=args.models or models_dir(),
                            **photo_settings(family=args.family))
    records = [(rec, [d.to_dict() for d in detector.detect(read_image(args.data / rec["image"]))]) for rec in scenes]
    per_view, borrowed = tally(records)
    table = Table(title=f"labelled faces by view and outcome ({args.data.name}, {len(scenes)} scenes, photo settings)")
    table.add_column("view")
    table.add_column("cards", justify="right")
    for name in OUTCOMES:
        table.add_column(name, justify="right")
    for view, counts in per_view.items():
        n = sum(counts.values())
        table.add_row(view, str(n), *(f"{counts[o] / n:.3f}" if n else "-" for o in OUTCOMES))
    Console().print(table)
    side = Table(title="covered faces boxed with another rank: whose rank did they take?")
    side.add_column("count")
    side.add_column("value", justify="right")
    for key in ("covered, rank wrong", "took a neighbour's rank", "chance: a neighbour's rank",
                "took a neighbour's name", "chance: a neighbour's name"):
        side.add_row(key, f"{borrowed[key]:.1f}" if key.startswith("chance") else str(borrowed[key]))
    Console().print(side)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
