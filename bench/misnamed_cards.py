"""Where do the photo readings go wrong on synthetic scenes: unboxed, wrong rank, wrong suit only, or named a back?
Where was an unboxed card's box lost?  And is a covered card given the name of a card its box overlaps?

Why: session 100 found the French photo settings at their optimum (rules 132-133) while only 0.56 of the partly
covered faces are named right against 0.85 in full view, 0.58 even where the card's index corner is in view.  This
splits every labelled face by how much of it shows (in full view, covered with its index in view, covered with the
index hidden) and by what happened to it: the detection boxing it (as ``evaluate``'s ``readings``,
:func:`companion.vision.evaluate.boxing_detection`: one of its own, not the box of a card over it) names it right,
names another rank, names only the suit wrong, names a back, or there is none.  For each unboxed face it says where
its last box of its own went: the detector never gave one (at any scale, down to the faint boxes' floor), the views'
boxes were weighed against each other (:meth:`CardDetector.find_boxes`), or a step of the naming dropped it
(:meth:`CardDetector.read_stages`: a weak name, a merge, a misfit size...).  For the covered cards boxed with another
rank it counts how many were given the rank, or the very name, of a face (labelled or not) whose box overlaps theirs,
as a corner window or a whole-card view that sees the neighbour would.  The chance line is what a rank drawn at
random from the other twelve (a name from the other 51 faces) would give with the same neighbours.

    python bench/misnamed_cards.py VAL_DIR [--family french] [--limit N] [--models DIR] [--backs]

With ``--backs`` it splits the labelled backs instead (in full view or covered; right, unboxed or named a face), the
worst class on the French tune seeds (back AP50 0.58 on fr6613, session 103).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from companion.paths import models_dir
from companion.synth.scene import IN_FULL_VIEW
from companion.vision.detector import CardDetector
from companion.vision.evaluate import (INDEX_WHOLE, boxing_detection, iou, owns, parse_val_arguments, read_image,
                                       val_parser)
from companion.vision.settings import photo_settings

VIEWS = ("in full view", "covered, index in view", "covered, index hidden")
OUTCOMES = ("right", "unboxed", "rank wrong", "suit only wrong", "named back")
# A back has no index: only how much of it shows, and only one way to be named wrong
BACK_VIEWS = ("in full view", "covered")
BACK_OUTCOMES = ("right", "unboxed", "named a face")


def view_of(card: dict) -> str:
    """How much of a labelled card shows: ``visible`` and ``index_visible`` as the scene records them.  Every scene
    rendered since session 53 records both; a card without ``visible`` counts here as in full view (``evaluate``'s
    ``reading_shares`` counts it under "all" only), a covered one without ``index_visible`` as its index hidden."""
    if card.get("visible", 1.0) >= IN_FULL_VIEW:
        return VIEWS[0]
    if card["card"] == "back":
        return BACK_VIEWS[1]
    return VIEWS[1] if card.get("index_visible", 0.0) >= INDEX_WHOLE else VIEWS[2]


def rank_of(card: str) -> str:
    """The rank part of a face's name ("10H" -> "10"); a back has none."""
    return "" if card == "back" else card[:-1]


def outcome(truth: dict, dets: list[dict], others: list[dict] = ()) -> tuple[str, dict | None]:
    """What happened to one labelled face: one of ``OUTCOMES``, with the detection boxing it (None where none does;
    ``others``: the scene's other cards, :func:`companion.vision.evaluate.boxing_detection`)."""
    best = boxing_detection(truth, dets, others)
    if best is None:
        return "unboxed", None
    if best["card"] == truth["card"]:
        return "right", best
    if truth["card"] == "back":
        return "named a face", best
    if best["card"] == "back":
        return "named back", best
    return ("suit only wrong" if rank_of(best["card"]) == rank_of(truth["card"]) else "rank wrong"), best


def neighbours(truth: dict, cards: list[dict]) -> list[dict]:
    """The other faces of the scene (labelled or not) whose boxes overlap this one's."""
    return [c for c in cards if c is not truth and c["card"] != "back" and iou(c["box"], truth["box"]) > 0.0]


# Where an unboxed face's box was lost (:func:`lost_at`), besides the names of CardDetector.read_stages' steps
NEVER_BOXED = "never boxed"
VIEWS_WEIGHED = "views weighed"


def lost_at(truth: dict, others: list[dict], trace: dict) -> str:
    """The step after which no box of ``truth``'s own (:func:`owns`) is left: ``NEVER_BOXED`` where the detector gave
    none in any view (``trace["raw"]``), ``VIEWS_WEIGHED`` where :meth:`CardDetector.find_boxes` kept none
    (``trace["found"]``), else the name of the :meth:`CardDetector.read_stages` step that dropped the last one."""
    if not any(owns(b, truth, others) for b in trace["raw"]):
        return NEVER_BOXED
    if not any(owns(b, truth, others) for b in trace["found"]):
        return VIEWS_WEIGHED
    return next((name for name, boxes in trace["stages"] if not any(owns(b, truth, others) for b in boxes)), "kept")


def tally(records: list[tuple[dict, list[dict], dict | None]], backs: bool = False
          ) -> tuple[dict[str, Counter], Counter, dict[str, Counter]]:
    """Per view, the count of each outcome; for the covered faces boxed with another rank, how many took a
    neighbour's rank or name, beside what chance would give (sums of probabilities); and per view, where the unboxed
    faces' boxes were lost (:func:`lost_at`; only for records with a trace, :func:`trace_of`).  With ``backs`` the
    labelled backs are counted instead of the faces (``BACK_VIEWS``, ``BACK_OUTCOMES``; nothing borrowed)."""
    views = BACK_VIEWS if backs else VIEWS
    per_view: dict[str, Counter] = {v: Counter() for v in views}
    borrowed: Counter = Counter()
    lost: dict[str, Counter] = {v: Counter() for v in views}
    for rec, dets, trace in records:
        faces = [c for c in rec["cards"] if c["card"] != "back"]
        counted = [c for c in rec["cards"] if c["card"] == "back"] if backs else faces
        for truth in (c for c in counted if c["labelled"]):
            view = view_of(truth)
            others = [c for c in rec["cards"] if c is not truth]
            what, best = outcome(truth, dets, others)
            per_view[view][what] += 1
            if what == "unboxed" and trace is not None:
                lost[view][lost_at(truth, others, trace)] += 1
            if backs or what != "rank wrong" or view == VIEWS[0]:
                continue
            near = neighbours(truth, faces)
            other_ranks = {rank_of(c["card"]) for c in near} - {rank_of(truth["card"])}
            borrowed["covered, rank wrong"] += 1
            borrowed["took a neighbour's rank"] += rank_of(best["card"]) in other_ranks
            borrowed["took a neighbour's name"] += any(c["card"] == best["card"] for c in near)
            borrowed["chance: a neighbour's rank"] += len(other_ranks) / 12
            borrowed["chance: a neighbour's name"] += len({c["card"] for c in near} - {truth["card"]}) / 51
    return per_view, borrowed, lost


def trace_of(detector: CardDetector, image) -> tuple[list[dict], dict]:
    """The image's detections (as ``detect`` gives them) and the boxes each step held (:func:`lost_at`'s trace).  The
    raw boxes are every scale's (the small cards' detector's where it reads the image) and what
    :meth:`CardDetector.find_boxes` kept (the zoomed view's and the outlines' boxes are only there); the scales are
    read a second time for them, a bench's cost."""
    boxes, scores, classes = detector.find_boxes(image)
    stages = detector.read_stages(image, boxes, scores, classes)
    views, _ = detector.routed_scale_boxes(image)
    raw = [b.tolist() for view_boxes, _, _ in views for b in view_boxes] + boxes.tolist()
    trace = {"raw": raw, "found": boxes.tolist(), "stages": [(n, [list(d.box) for d in ds]) for n, ds in stages]}
    return [d.to_dict() for d in stages[-1][1]], trace


def main(argv: list[str] | None = None) -> int:
    parser = val_parser(__doc__, "french")
    parser.add_argument("--backs", action="store_true", help="count the labelled backs instead of the faces")
    args, scenes = parse_val_arguments(parser, argv)
    if scenes is None:
        return 2
    detector = CardDetector(args.family, models_dir=args.models or models_dir(),
                            **photo_settings(family=args.family))
    records = [(rec, *trace_of(detector, read_image(args.data / rec["image"]))) for rec in scenes]
    per_view, borrowed, lost = tally(records, backs=args.backs)
    outcomes, what = (BACK_OUTCOMES, "backs") if args.backs else (OUTCOMES, "faces")
    console = Console(width=120)
    table = Table(title=f"labelled {what} by view and outcome ({args.data.name}, {len(scenes)} scenes, photo settings)")
    table.add_column("view")
    table.add_column("cards", justify="right")
    for name in outcomes:
        table.add_column(name, justify="right")
    for view, counts in per_view.items():
        n = sum(counts.values())
        table.add_row(view, str(n), *(f"{counts[o] / n:.3f}" if n else "-" for o in outcomes))
    console.print(table)
    steps = [NEVER_BOXED, VIEWS_WEIGHED, *(name for name, _ in records[0][2]["stages"])] if records else []
    where = Table(title=f"unboxed {what}: after which step no box of their own was left (counts)")
    where.add_column("view")
    for name in steps:
        where.add_column(name, justify="right")
    for view, counts in lost.items():
        where.add_row(view, *(str(counts[n]) for n in steps))
    console.print(where)
    if args.backs:
        return 0
    side = Table(title="covered faces boxed with another rank: whose rank did they take?")
    side.add_column("count")
    side.add_column("value", justify="right")
    for key in ("covered, rank wrong", "took a neighbour's rank", "chance: a neighbour's rank",
                "took a neighbour's name", "chance: a neighbour's name"):
        side.add_row(key, f"{borrowed[key]:.1f}" if key.startswith("chance") else str(borrowed[key]))
    console.print(side)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
