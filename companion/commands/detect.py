"""``companion detect``: find the cards in images or video frames."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"}
# Listed by default where a photo's detections are rescored: Spanish photos are read without an output floor (rule
# 186: every floor cost mAP50, which ranks every candidate), so their weakest candidates, twins of a surer box among
# them, are left to the listing; French photos drop theirs under 0.1 already (``rescored_min``, rule 184).  On 100
# Spanish scenes (val6681, 543 labelled cards) the listing before rule 186 gave 8.6 lines a scene naming 490 cards
# right; rule 186's reading gives 15.3 and 492 in full, 7.2 and 488 from 0.02, 6.5 and 483 from 0.05, 6.0 and 480 from
# 0.1.  0.02 is the fewest lines that keeps within 1 % of the cards listed before (`bench/detect_listing.py`).
LISTED_RESCORED_MIN = 0.02


def _frames(path: Path, every: float):
    """Yield (label, BGR image) for an image, or sampled frames of a video."""
    import cv2

    from companion.vision.detector import ImageError, read_image

    if path.suffix.lower() in VIDEO_SUFFIXES:
        if not path.is_file():
            raise ImageError(f"video not found: {path}")
        cap = cv2.VideoCapture(str(path))
        if not cap.isOpened():
            raise ImageError(f"cannot open video: {path}")
        fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
        step = max(1, int(round(fps * every)))
        index = 0
        try:
            while True:
                ok, frame = cap.read()
                if not ok:
                    break
                if index % step == 0:
                    yield f"{path}#{index}", frame
                index += 1
        finally:
            cap.release()
        if index == 0:
            raise ImageError(f"cannot decode video: {path}")
    else:
        yield str(path), read_image(path)


def draw(image, detections):
    """Annotated copy of ``image`` (boxes and labels)."""
    import cv2

    out = image.copy()
    scale = max(0.5, out.shape[1] / 1280)
    for d in detections:
        x1, y1, x2, y2 = (int(round(v)) for v in d.box)
        colour = (255, 120, 0) if d.card == "back" else (0, 200, 0)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, max(1, int(2 * scale)))
        label = f"{d.card} {d.confidence:.2f}"
        cv2.putText(out, label, (x1 + 2, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, colour,
                    max(1, int(2 * scale)), cv2.LINE_AA)
    return out


def _run(args: argparse.Namespace) -> int:
    import cv2

    from companion.vision.detector import CardDetector, ImageError, ModelError
    from companion.vision.settings import photo_settings

    try:
        settings = photo_settings(args.conf, args.scales, args.outlines, rows=args.rows,
                                  face_min_prob=args.min_prob, outline_model=args.outline_model, zoom=args.zoom,
                                  family=args.family, outlined_min_prob=None if args.outlined else -1,
                                  size_check=None if args.size_check else 0,
                                  box_shrink=None if args.box_calibration else 0)
        detector = CardDetector(args.family, models_dir=args.models, **settings)
    except (ModelError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    floor = args.min_confidence
    if floor is None:  # a rescored confidence is the probability that the box is right: under 0.02, not worth a line
        floor = LISTED_RESCORED_MIN if detector.rescorer is not None else 0.0
    if not 0.0 <= floor < 1.0:
        print(f"error: --min-confidence must be in [0, 1), got {floor!r}", file=sys.stderr)
        return 2
    if warning := detector.missing_models_warning():
        print(f"warning: {warning}", file=sys.stderr)
    save = Path(args.save) if args.save else None
    if save:
        save.mkdir(parents=True, exist_ok=True)
    status = 0
    for raw in args.paths:
        path = Path(raw)
        try:
            for label, image in _frames(path, args.every):
                dets = [d for d in detector.detect(image) if d.confidence >= floor]
                h, w = image.shape[:2]
                if args.json:
                    print(json.dumps({"image": label, "width": w, "height": h,
                                      "detections": [d.to_dict() for d in dets]}), flush=True)
                else:
                    cards = ", ".join(f"{d.card} ({d.confidence:.2f})" for d in dets) or "no cards"
                    print(f"{label}: {cards}")
                if save:
                    name = label.replace("#", "_frame")
                    out = save / (Path(name).stem + Path(name).suffix.replace(".", "_") + ".jpg")
                    cv2.imwrite(str(out), draw(image, dets))
        except ImageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("detect", help="recognise the cards in images or videos")
    p.add_argument("paths", nargs="+", metavar="PATH", help="image files (jpg, png, ...) or videos")
    p.add_argument("--family", choices=("french", "spanish"), default="french")
    p.add_argument("--json", action="store_true", help="one JSON object per image or sampled video frame")
    p.add_argument("--save", metavar="DIR", help="write annotated images to DIR")
    p.add_argument("--models", metavar="DIR", default=None, help="folder with the ONNX weights (default: models/)")
    p.add_argument("--conf", type=float, default=None,
                   help="minimum detector score (default 0.35 with the shrunk view, 0.3 with --scales 1)")
    p.add_argument("--every", type=float, default=1.0, help="video: seconds between sampled frames")
    p.add_argument("--scales", type=float, nargs="+", default=None, metavar="F",
                   help="detector scales: 1 0.65 (default) also finds cards that fill most of a photo; "
                        "1 alone is faster (and looks for no outlines unless --outlines)")
    p.add_argument("--outlines", action=argparse.BooleanOptionalAction, default=None,
                   help="also name the bright card-shaped outlines the detector missed (default: with the shrunk "
                        "view)")
    p.add_argument("--rows", action=argparse.BooleanOptionalAction, default=None,
                   help="split a box around a row of overlapping cards into its cards (default: with the shrunk "
                        "view)")
    p.add_argument("--min-prob", type=float, default=None, metavar="P",
                   help="leave out faces the classifier names under this probability (default with the shrunk "
                        "view: the family's own where PHOTO_FAMILY sets one, else 0.2; 0 with --scales 1; 0 keeps "
                        "every face found); a face under it is still kept where the outline model outlines a card "
                        "around it, unless --no-outlined")
    p.add_argument("--min-confidence", type=float, default=None, metavar="P",
                   help="list only the detections of confidence P or more (default: 0.02 where the family's photo "
                        "settings rescore them, their confidence then being the probability that the box is right, "
                        "else 0; 0 lists every candidate, as the mAP reads them)")
    p.add_argument("--outlined", action=argparse.BooleanOptionalAction, default=True,
                   help="keep a face named under --min-prob where the outline model outlines a card around its box "
                        "and the classifier names it the family's outlined_min_prob or more (PHOTO_FAMILY: 0.1 for "
                        "both families' photos; --no-outlined: --min-prob alone decides)")
    p.add_argument("--size-check", action=argparse.BooleanOptionalAction, default=True,
                   help="leave out a weakly named face whose box is far smaller or larger than the surer faces' (a "
                        "pip, a letter, a box around several cards) where the family's photo settings ask for it "
                        "(PHOTO_FAMILY's size_check; --no-size-check: not)")
    p.add_argument("--outline-model", action=argparse.BooleanOptionalAction, default=None,
                   help="turn each card upright by the outline model's outline (card-outlines.onnx, or the family's "
                        "card-outlines-<family>-photo.onnx, where shipped) "
                        "before the outline finders' (default: every box of Spanish photos, the covered boxes of "
                        "French ones: PHOTO_FAMILY, else PHOTO_OUTLINE_MODEL)")
    p.add_argument("--zoom", type=float, default=None, metavar="F",
                   help="with the shrunk view, also read the image through the detector's input F times larger, "
                        "for small cards (default: PHOTO_ZOOM, 1.7; 0: not, faster)")
    p.add_argument("--box-calibration", action=argparse.BooleanOptionalAction, default=True,
                   help="report the detector's sure boxes drawn in where the family's photo settings ask for it "
                        "(PHOTO_FAMILY's box_shrink and covered_box_shrink, for a detector that boxes cards too wide; "
                        "none asks since session 95's D5; --no-box-calibration: as boxed)")
    p.set_defaults(func=_run)
