"""Bright card-shaped outlines (companion.vision.outlines): boxes for cards the detector missed."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.outlines import outline_boxes


def _iou(a, b) -> float:
    x1, y1, x2, y2 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _carpet(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = rng.normal(0, 18, (480, 640, 3))
    return np.clip(np.full((480, 640, 3), (70, 95, 120), float) + noise, 0, 255).astype(np.uint8)


def _paper(image: np.ndarray, centre, size, angle, colour=(235, 235, 235)) -> None:
    pts = cv2.boxPoints((centre, size, angle)).astype(np.int32)
    cv2.fillConvexPoly(image, pts, colour)
    cv2.circle(image, (int(centre[0]), int(centre[1])), int(min(size) * 0.15), (30, 30, 200), -1)  # a pip


def test_a_white_card_on_a_carpet_is_found_tilted_or_not():
    for angle in (0.0, 30.0):
        image = _carpet()
        _paper(image, (320, 240), (126, 176), angle)
        boxes = outline_boxes(image)
        true = cv2.boxPoints(((320, 240), (126, 176), angle))
        truth = [*true.min(axis=0), *true.max(axis=0)]
        assert len(boxes) == 1 and _iou(boxes[0], truth) > 0.85, (angle, boxes)


def test_shapes_that_are_no_card_are_not_found():
    image = _carpet(1)
    _paper(image, (160, 240), (150, 150), 0.0)  # square
    _paper(image, (480, 240), (60, 300), 0.0)  # a strip
    _paper(image, (320, 100), (40, 56), 0.0, colour=(60, 80, 100))  # card-shaped, not lighter than the carpet
    assert len(outline_boxes(image)) == 0


def test_a_coloured_patch_of_a_cards_shape_is_no_card_a_white_card_beside_it_is():
    """A chequered cloth: its pink squares, seen in perspective, are bright rectangles of a card's shape
    (a rendered session read one as 1E in every frame, and it went in as a play).  A card has paper."""
    image = _carpet(5)
    image[:] = (40, 110, 60)  # green squares
    _paper(image, (160, 240), (60, 84), 0.0, colour=(190, 170, 250))  # a pink one, card-shaped
    cv2.circle(image, (160, 240), 9, (190, 170, 250), -1)  # (no pip of another colour on it)
    _paper(image, (420, 240), (126, 176), 15.0)  # a white card with a red pip
    boxes = outline_boxes(image)
    true = cv2.boxPoints(((420, 240), (126, 176), 15.0))
    assert len(boxes) == 1 and _iou(boxes[0], [*true.min(axis=0), *true.max(axis=0)]) > 0.85, boxes


def test_boxes_come_back_in_the_pixels_of_a_large_image():
    image = cv2.resize(_carpet(2), (1920, 1440), interpolation=cv2.INTER_NEAREST)
    _paper(image, (960, 720), (378, 528), 10.0)
    (box,) = outline_boxes(image)
    true = cv2.boxPoints(((960, 720), (378, 528), 10.0))
    assert _iou(box, [*true.min(axis=0), *true.max(axis=0)]) > 0.85


def test_a_real_ace_the_detector_misses_is_found_and_named_through_its_outline(shared):
    """IMG_2390: an ace of diamonds alone on a carpet, which the shared detector does not box at its
    threshold (faint boxes off: since session 16 a faint box finds it too).  The French photo detector
    (session 97) boxes it itself; the photo settings find it either way."""
    from companion.vision.detector import CardDetector, read_image
    from companion.vision.settings import photo_settings

    image = read_image(shared / "real-photos" / "french-dev" / "IMG_2390.JPG")
    shared_only = {"photo_detector": False}
    without = CardDetector("french", **photo_settings(outlines=False, faint_conf=0, **shared_only)).detect(image)
    assert not [d for d in without if d.card != "back"]
    found = CardDetector("french", **photo_settings(**shared_only)).detect(image)
    assert [d.card[:-1] for d in found] == ["A"]
    assert [d.card[:-1] for d in CardDetector("french", **photo_settings()).detect(image)] == ["A"]


def test_a_loose_box_around_one_outline_takes_the_outlines_box():
    from companion.vision.detector import _tighter

    loose = np.array([100.0, 100.0, 300.0, 340.0])
    card = np.array([140.0, 130.0, 260.0, 300.0])  # 42 % of the box, inside it
    assert _tighter(loose, card[None]).tolist() == card.tolist()
    # two cards inside one box (a fan): the box stays; a box that already fits stays
    other = np.array([170.0, 140.0, 290.0, 330.0])
    assert _tighter(loose, np.stack([card, other])).tolist() == loose.tolist()
    assert _tighter(card + [-3, -3, 3, 3], card[None]).tolist() == (card + [-3, -3, 3, 3]).tolist()


def test_a_card_whose_big_pip_reaches_its_edge_is_found():
    """A one-pip deck's 3S: a dark spade from the middle to the edge cuts the paper's outline (it filled
    57 % of its rectangle); the outline's convex hull still fills it."""
    image = _carpet(3)
    image[:] = (60, 20, 50)  # a dark purple cloth, like the table's
    pts = cv2.boxPoints(((320, 240), (120, 160), 0.0)).astype(np.int32)
    cv2.fillConvexPoly(image, pts, (225, 225, 225))
    cv2.fillConvexPoly(image, np.array([[320, 190], [380, 320], [260, 320]], np.int32), (40, 40, 40))  # to the edge
    (box,) = outline_boxes(image)
    assert _iou(box, [260, 160, 380, 320]) > 0.85


def test_an_outline_named_weakly_counts_at_the_table_not_in_a_photo(monkeypatch):
    """A photo has one look: an outline named below 0.5 is more likely a pale object than a card.  At the
    table the tracker still wants it seen over frames in a seat's zone, so the table's detector keeps an
    outline named at 0.25 or more (a one-pip deck's 3S the detector never boxed was named at 0.27-0.31)."""
    from companion.table.session import table_detector
    from companion.vision.detector import CardDetector
    from companion.table.observations import OUTLINE
    from companion.table.session import adapt_detections
    from companion.vision.settings import FOUND_BY_OUTLINE, OUTLINE_SCORE, photo_settings

    image = _carpet(4)
    _paper(image, (320, 240), (126, 176), 0.0)
    table, photo = table_detector("french"), CardDetector("french", **photo_settings())
    for det in (table, photo):
        assert det.outlines
        # the detector finds nothing here; the classifier names the outline 3S at p 0.3
        monkeypatch.setattr(det, "_boxes_at", lambda image, f, conf=None, session=None, size=None:
                            (np.zeros((0, 4)), np.zeros(0), np.zeros(0, int)))
        index = {v: k for k, v in det.cls_names.items()}

        def weak(crops, corner_crops=None, upright=None, overlapped=None):
            out = np.full((len(crops), len(index)), 0.7 / (len(index) - 1))
            out[:, index["3S"]] = 0.3
            return out

        monkeypatch.setattr(det, "classify_crops", weak)
    (seen,) = table.detect(image)
    assert seen.card == "3S" and seen.detector_confidence == OUTLINE_SCORE
    # ... and says what boxed it, through to the tracker's detections (a face nothing outlines there is cloth)
    assert seen.found_by == FOUND_BY_OUTLINE
    (observed,) = adapt_detections([seen])
    assert observed.found_by == OUTLINE and observed.presence == OUTLINE_SCORE
    assert photo.detect(image) == []
