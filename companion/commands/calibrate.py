"""``companion calibrate``: mark the table centre and seat 0, once.

    companion calibrate --camera 0 --players 4          # click on a live frame
    companion calibrate --image table.jpg --players 4   # click on a photo
    companion calibrate --image table.jpg --centre 320,240 --seat0 320,420   # no clicks
    companion calibrate --auto --image table.jpg        # guess: deck as centre, seat 0 at the bottom
    companion calibrate --show                          # print the saved calibration

Click first the middle of the table (where the deck and the vira lie), then
the place where seat 0 (the first seat in the order of play) puts its cards;
a third click on where seat 1 puts its cards tells the direction of play
(only needed when the camera image is mirrored).  The calibration is saved
as JSON in the user data folder (or ``--out``) and used by ``run`` and
``replay``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("calibrate", help="mark the table centre and seat 0 for the seat zones",
                                   description=__doc__.split("\n\n")[0].split(": ", 1)[-1])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--camera", type=int, help="take a frame from this camera")
    source.add_argument("--image", help="an image of the table as the camera sees it")
    parser.add_argument("--players", type=int, default=4, choices=[2, 4, 6])
    parser.add_argument("--centre", help="x,y of the table centre (no clicking)")
    parser.add_argument("--seat0", help="x,y of seat 0's cards (no clicking)")
    parser.add_argument("--seat1", help="x,y of seat 1's cards (optional: sets the direction of play)")
    parser.add_argument("--auto", action="store_true", help="guess the zones from the image (deck = centre)")
    parser.add_argument("--out", help="where to save (default: the user data folder)")
    parser.add_argument("--show", action="store_true", help="print the saved calibration and exit")
    parser.set_defaults(func=run)


def _point(text: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise SystemExit(f"error: expected x,y, got {text!r}") from None
    return (x, y)


def clockwise_from(centre: tuple[float, float], seat0: tuple[float, float], seat1: tuple[float, float]) -> bool:
    """Whether seat 1 follows seat 0 clockwise in the image (a mirrored view)."""
    a0 = math.atan2(centre[1] - seat0[1], seat0[0] - centre[0])
    a1 = math.atan2(centre[1] - seat1[1], seat1[0] - centre[0])
    return ((a1 - a0) % (2 * math.pi)) > math.pi


def _grab(args: argparse.Namespace) -> Any:
    import cv2

    if args.image:
        from companion.vision.detector import read_image

        return read_image(args.image)
    if args.camera is not None:
        from companion.table.session import open_camera

        cap = open_camera(args.camera)
        for _ in range(5):  # let the exposure settle
            ok, frame = cap.read()
        cap.release()
        if not ok:
            raise RuntimeError(f"camera {args.camera} gave no image")
        return frame
    return cv2.imread("")  # None


def _deck_centre(image: Any) -> tuple[float, float] | None:
    """The back of the deck near the image centre, if the detector sees one."""
    try:
        from companion.vision.detector import CardDetector
    except ImportError:
        return None
    try:
        detector = CardDetector("french")
    except Exception:  # noqa: BLE001 - no weights: fall back to the image centre
        return None
    h, w = image.shape[:2]
    backs = [d for d in detector.detect(image) if d.card == "back"]
    if not backs:
        return None
    best = min(backs, key=lambda d: math.dist(((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2), (w / 2, h / 2)))
    return ((best.box[0] + best.box[2]) / 2, (best.box[1] + best.box[3]) / 2)


def _click(image: Any, players: int) -> list[tuple[float, float]]:
    import cv2

    from companion.commands.run import window_problem

    problem = window_problem()
    if problem:
        raise RuntimeError(f"{problem}; pass --centre and --seat0 instead")
    points: list[tuple[float, float]] = []
    prompts = ["click the table centre", "click where seat 0 puts its cards",
               "click where seat 1 puts its cards (or press Enter)"]

    def on_mouse(event: int, x: int, y: int, *_: Any) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(points) < 3:
            points.append((float(x), float(y)))

    cv2.namedWindow("calibrate")
    cv2.setMouseCallback("calibrate", on_mouse)
    while True:
        view = image.copy()
        for p in points:
            cv2.circle(view, (int(p[0]), int(p[1])), 6, (0, 0, 255), -1)
        if len(points) >= 2:
            from companion.table.zones import Calibration, Zones

            zones = Zones(Calibration(points[0], points[1], players))
            for poly in zones.polygons(view.shape[1::-1]).values():
                cv2.polylines(view, [poly.reshape(-1, 1, 2)], True, (200, 120, 40), 1)
        text = prompts[min(len(points), 2)] + "   (Enter: done, Esc: cancel)"
        cv2.putText(view, text, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 255), 2)
        cv2.imshow("calibrate", view)
        key = cv2.waitKey(30) & 0xFF
        if key == 27:
            cv2.destroyAllWindows()
            raise RuntimeError("cancelled")
        if (key in (13, 10) and len(points) >= 2) or len(points) == 3:
            break
    cv2.destroyAllWindows()
    return points


def run(args: argparse.Namespace) -> int:
    from companion.table.zones import (Calibration, auto_calibration, default_calibration_path,
                                       load_calibration, save_calibration)

    if args.show:
        try:
            cal = load_calibration(args.out)
        except (FileNotFoundError, ValueError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        if cal is None:
            print(f"no calibration saved ({default_calibration_path()}); zones are guessed", file=sys.stderr)
            return 1
        print(json.dumps(cal.to_dict(), indent=2))
        return 0
    try:
        image = _grab(args) if (args.image or args.camera is not None) else None
    except Exception as err:  # noqa: BLE001 - CameraError, ImageError: say it plainly
        print(f"error: {err}", file=sys.stderr)
        return 2
    size = (image.shape[1], image.shape[0]) if image is not None else None
    try:
        if args.centre and args.seat0:
            centre, seat0 = _point(args.centre), _point(args.seat0)
            clockwise = clockwise_from(centre, seat0, _point(args.seat1)) if args.seat1 else False
            cal = Calibration(centre, seat0, args.players, size, None, clockwise, "manual")
        elif args.auto:
            if size is None:
                print("error: --auto needs --image or --camera", file=sys.stderr)
                return 2
            cal = auto_calibration(size, args.players, _deck_centre(image))
        else:
            if image is None:
                print("error: give --camera or --image to click on (or --centre and --seat0)", file=sys.stderr)
                return 2
            points = _click(image, args.players)
            clockwise = clockwise_from(points[0], points[1], points[2]) if len(points) > 2 else False
            cal = Calibration(points[0], points[1], args.players, size, None, clockwise, "manual")
    except (RuntimeError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path = save_calibration(cal, args.out)
    print(f"saved {path}: centre {cal.centre}, seat 0 at {cal.seat0}, {cal.players} players"
          + (", mirrored (clockwise)" if cal.clockwise else ""))
    return 0
