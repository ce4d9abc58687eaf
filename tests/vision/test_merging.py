"""One card boxed twice and named alike in a photo is one detection (companion.vision.merging)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.detector import CardDetector, Detection, photo_settings, read_image
from companion.vision.evaluate import iou
from companion.vision.merging import MERGE_IOU, merge_same_cards

FIXTURES = Path(__file__).resolve().parents[2] / "datasets" / "fixtures"


def _face(card: str, score: float, box: tuple[float, float, float, float], p: float = 0.9) -> Detection:
    return Detection(card, score * p, box, p, score, (("7C", score * 0.05),))


def test_boxes_named_alike_that_overlap_become_one_at_their_weighted_mean():
    """The surest box keeps its name, confidence and runners-up; the box is the confidence-weighted mean."""
    loose = _face("QH", 0.9, (0.0, 0.0, 60.0, 90.0))
    tight = _face("QH", 0.3, (6.0, 9.0, 54.0, 81.0))
    assert iou(loose.box, tight.box) >= MERGE_IOU
    (one,) = merge_same_cards([tight, loose])
    assert (one.card, one.confidence, one.alternatives) == ("QH", loose.confidence, loose.alternatives)
    w = np.array([loose.confidence, tight.confidence])
    expected = (np.array([loose.box, tight.box]) * w[:, None]).sum(axis=0) / w.sum()
    assert one.box == pytest.approx(tuple(expected))
    assert one.box != loose.box  # nearer the tight box than the surest alone


def test_other_cards_backs_and_boxes_apart_are_left_as_they_are():
    """Two names on one place are two readings the tracker or the user can weigh; the same name in two places
    is two boxes, left as found; backs are all alike, and each is a card."""
    found = [_face("QH", 0.9, (0.0, 0.0, 60.0, 90.0)), _face("KH", 0.8, (2.0, 2.0, 62.0, 92.0)),
             _face("QH", 0.7, (200.0, 0.0, 260.0, 90.0)),
             Detection("back", 0.8, (300.0, 0.0, 360.0, 90.0)), Detection("back", 0.7, (302.0, 2.0, 362.0, 92.0))]
    assert merge_same_cards(found) == sorted(found, key=lambda d: -d.confidence)
    # ... and a looser threshold does merge two that overlap less
    near = [_face("QH", 0.9, (0.0, 0.0, 60.0, 90.0)), _face("QH", 0.5, (30.0, 0.0, 90.0, 90.0))]
    assert len(merge_same_cards(near)) == 2 and len(merge_same_cards(near, 0.3)) == 1
    with pytest.raises(ValueError, match="iou_min"):
        merge_same_cards(near, 0.0)


def test_a_photo_merges_a_card_boxed_twice_and_the_table_does_not():
    """Through the detector's reading: one fixture card given to it as a tight and a loose box (as the photo
    settings' two views and faint boxes often box one card) is named alike in both, and a photo reports it
    once, the table twice (its tracker weighs twin boxes over frames)."""
    record = next(r for r in json.loads((FIXTURES / "fixtures.json").read_text()) if r["image"] == "french-dondorf.jpg")
    card = record["cards"][0]
    image = read_image(FIXTURES / record["image"])
    x1, y1, x2, y2 = card["box"]
    boxes = np.array([[x1, y1, x2, y2], [x1 - 8, y1 - 10, x2 + 8, y2 + 10]], dtype=np.float64)
    found = {}
    for name, settings in (("photo", photo_settings(scales=[1.0])), ("table", {})):
        det = CardDetector("french", **settings)
        found[name] = det.read_boxes(image, boxes, np.array([0.9, 0.6]), np.array([0, 0]))
    assert [d.card for d in found["table"]] == [card["card"]] * 2  # the same card read in both boxes
    (one,) = found["photo"]
    assert one.card == card["card"] and iou(one.box, card["box"]) > iou(boxes[1], card["box"])
    assert photo_settings()["merge_iou"] == MERGE_IOU and photo_settings(merge_iou=0)["merge_iou"] is None
    with pytest.raises(ValueError, match="merge_iou"):
        CardDetector("french", merge_iou=1.5)
