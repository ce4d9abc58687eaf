"""One card boxed twice and named alike in a photo is one detection (companion.vision.merging)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.boxes import iou
from companion.vision.detector import CardDetector, Detection, read_image
from companion.vision.merging import (MERGE_IOU, NAMESAKE_SHARE, SIZE_LARGE, SIZE_SMALL, drop_faint_twins,
                                      drop_misfit_sizes, merge_same_cards, one_of_each, renamed_namesakes)
from companion.vision.settings import photo_settings

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


def test_a_faint_box_named_as_a_surer_one_it_overlaps_or_lies_in_is_dropped():
    """A faint face (scored under the threshold) named as a surer face is that card again where their boxes overlap
    by ``iou_min`` (under MERGE_IOU, so merging left it) or it lies in the surer box; the surer box keeps its place.
    A faint face named otherwise, or lying elsewhere, or a surer twin, stays."""
    sure = _face("KS", 0.8, (0.0, 0.0, 60.0, 90.0))
    half = _face("KS", 0.06, (0.0, 0.0, 60.0, 40.0))  # half the card: IoU 0.44, wholly inside
    beside = _face("KS", 0.1, (40.0, 0.0, 100.0, 90.0))  # the card and its neighbour: IoU 0.2
    other = _face("9D", 0.1, (0.0, 0.0, 60.0, 40.0))  # another name: another reading, the user weighs it
    apart = _face("KS", 0.1, (300.0, 0.0, 360.0, 90.0))
    sure_twin = _face("KS", 0.5, (0.0, 0.0, 60.0, 40.0))  # scored above the threshold: not faint
    found = [sure, half, beside, other, apart, sure_twin, Detection("back", 0.2, (0.0, 0.0, 60.0, 40.0), 1.0, 0.2)]
    assert iou(half.box, sure.box) < MERGE_IOU
    kept = drop_faint_twins(found, threshold=0.35, iou_min=0.3)
    assert kept == [sure, beside, other, apart, sure_twin, found[-1]]
    assert drop_faint_twins(found, threshold=0.35, iou_min=0.15) == [sure, other, apart, sure_twin, found[-1]]
    with pytest.raises(ValueError, match="iou_min"):
        drop_faint_twins(found, 0.35, 0.0)


def test_a_weakly_named_face_far_off_the_surer_faces_size_is_dropped():
    """A face named under ``below`` whose box is under SIZE_SMALL or over SIZE_LARGE times the median area of the
    faces surer than it (named ``ref_min`` or more) is dropped: a pip or a letter, a box around several cards.  A
    face named surely, one near the cards' size, a back, and a face with no surer face to measure by, stay."""
    cards = [_face("QH", 0.9, (0.0, 0.0, 60.0, 90.0)), _face("7S", 0.8, (100.0, 0.0, 160.0, 90.0)),
             _face("2D", 0.7, (200.0, 0.0, 262.0, 94.0))]
    pip = _face("AH", 0.5, (20.0, 20.0, 32.0, 32.0), p=0.15)  # 144 px against 5,400: 0.03 of a card
    loose = _face("10C", 0.3, (0.0, 0.0, 170.0, 120.0), p=0.2)  # 3.8 cards
    card_sized = _face("5C", 0.3, (300.0, 0.0, 340.0, 70.0), p=0.2)  # 0.52 of a card
    sure_pip = _face("9S", 0.5, (120.0, 20.0, 132.0, 32.0), p=0.9)  # named surely: the classifier is trusted
    back = Detection("back", 0.6, (400.0, 0.0, 410.0, 10.0), 1.0, 0.6)
    found = [*cards, pip, loose, card_sized, sure_pip, back]
    assert drop_misfit_sizes(found, below=0.5) == [*cards, card_sized, sure_pip, back]
    assert drop_misfit_sizes(found, below=0.5, large=4.0) == [*cards, loose, card_sized, sure_pip, back]
    assert drop_misfit_sizes(found, below=0.1) == found  # nothing named under 0.1
    # measured only against surer faces named ref_min or more: here none is, so nothing says how big a card is
    assert drop_misfit_sizes(found, below=0.5, ref_min=0.95) == found
    alone = [pip, loose]  # the pip is surer than the loose box (0.075 > 0.06) but named under ref_min
    assert drop_misfit_sizes(alone, below=0.5) == alone
    assert 0.0 < SIZE_SMALL < 1.0 < SIZE_LARGE
    with pytest.raises(ValueError, match="small"):
        drop_misfit_sizes(found, 0.5, small=1.5)


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


def test_a_name_held_twice_goes_to_the_surer_box_and_the_other_takes_its_free_runner_up():
    """A card half under the QH read as QH from the index beside it, its own name (5D) next: the surer QH keeps
    the name and the covered card becomes 5D at 5D's confidence; a runner-up already held (KH) is passed over,
    a face with no free runner-up keeps its name, backs are left alone, and the result is surest first."""
    upper = Detection("QH", 0.9 * 0.95, (0.0, 0.0, 60.0, 90.0), 0.95, 0.9, (("QD", 0.02),))
    king = Detection("KH", 0.8 * 0.9, (100.0, 0.0, 160.0, 90.0), 0.9, 0.8, ())
    covered = Detection("QH", 0.8 * 0.5, (30.0, 40.0, 90.0, 130.0), 0.5, 0.8, (("KH", 0.3), ("5D", 0.2), ("5H", 0.1)))
    stuck = Detection("KH", 0.1, (300.0, 0.0, 360.0, 90.0), 0.2, 0.5, (("QH", 0.05),))
    backs = [Detection("back", 0.7, (400.0, 0.0, 460.0, 90.0)), Detection("back", 0.6, (500.0, 0.0, 560.0, 90.0))]
    out = one_of_each([covered, stuck, upper, king, *backs])
    assert [d.confidence for d in out] == sorted((d.confidence for d in out), reverse=True)
    by_box = {d.box: d for d in out}
    assert by_box[upper.box] == upper and by_box[king.box] == king
    moved = by_box[covered.box]
    assert (moved.card, moved.confidence, moved.detector_confidence) == ("5D", 0.2, 0.8)
    assert moved.rank_confidence == pytest.approx(0.25)
    assert moved.alternatives == (("QH", 0.4), ("KH", 0.3), ("5H", 0.1))
    assert by_box[stuck.box] == stuck  # KH and QH both held: nothing free to take
    assert [d for d in out if d.card == "back"] == backs
    assert one_of_each([]) == []


def test_a_covered_card_misread_surely_does_not_take_the_name_from_the_card_in_view():
    """The card in view reads KS at 0.7 with nothing else likely; the covered one misreads KS at 0.8 with its
    own 7H at 0.15.  Surest-first would rename the card in view; the likeliest naming of the frame keeps its
    KS and gives the covered card 7H.  With nothing else likely for either, both keep KS (a second deck, or a
    misread the table asks about) -- unless a duplicate is made dear."""
    in_view = Detection("KS", 0.7, (0.0, 0.0, 60.0, 90.0), 0.7, 1.0, (("KC", 0.01),))
    covered = Detection("KS", 0.8, (40.0, 30.0, 100.0, 120.0), 0.8, 1.0, (("7H", 0.15), ("KC", 0.02)))
    out = {d.box: d for d in one_of_each([in_view, covered])}
    assert out[in_view.box] == in_view
    assert (out[covered.box].card, out[covered.box].confidence) == ("7H", 0.15)
    alone = Detection("KS", 0.8, (40.0, 30.0, 100.0, 120.0), 0.8, 1.0, (("7H", 0.01),))
    assert [d.card for d in one_of_each([in_view, alone])] == ["KS", "KS"]
    dear = {d.box: d.card for d in one_of_each([in_view, alone], duplicate_cost=10.0)}
    assert dear == {alone.box: "KS", in_view.box: "KC"}  # the less sure of the two gives way


def test_the_photo_settings_carry_the_one_deck_naming_and_the_joint_term_and_the_table_goes_without():
    from companion.vision.settings import ONE_DECK

    assert photo_settings()["one_deck"] is ONE_DECK
    assert photo_settings(one_deck=True)["one_deck"] is True and photo_settings(one_deck=False)["one_deck"] is False
    assert CardDetector("french").one_deck is False  # the table's tracker weighs names over frames
    from companion.vision.settings import JOINT_WEIGHT

    assert photo_settings()["joint_weight"] == JOINT_WEIGHT and photo_settings(joint_weight=0.3)["joint_weight"] == 0.3
    assert CardDetector("french").joint_weight == 0.0  # the table's reading is the product of rank and suit


def test_a_face_inside_a_surer_namesake_is_read_again_with_that_name_discounted():
    """Rule 210: a card half under the 5E read as 5E (its corner window sees the 5E's index) takes its own 7E once
    5E counts 0.2 of itself; one read so surely that 5E still leads keeps it, as does a namesake elsewhere in the
    photo, the surer 5E itself, and every back.  The renamed face keeps its box and detector score, its old name
    discounted among its runner-ups; the result is surest first."""
    upper = Detection("5E", 0.9 * 0.95, (0.0, 0.0, 60.0, 90.0), 0.95, 0.9, (("5O", 0.02),))
    covered = Detection("5E", 0.8 * 0.5, (30.0, 40.0, 90.0, 130.0), 0.5, 0.8, (("7E", 0.15), ("7C", 0.1)))
    sure = Detection("5E", 0.8 * 0.6, (10.0, 50.0, 70.0, 140.0), 0.6, 0.8, (("3E", 0.05),))
    apart = Detection("5E", 0.3, (300.0, 0.0, 360.0, 90.0), 0.5, 0.6, (("4E", 0.2),))
    back = Detection("back", 0.2, (20.0, 20.0, 50.0, 60.0))
    from companion.boxes import inside_share

    assert inside_share(covered.box, upper.box) >= NAMESAKE_SHARE and inside_share(sure.box, upper.box) >= NAMESAKE_SHARE
    out = renamed_namesakes([covered, back, sure, apart, upper], 0.2)
    assert [d.confidence for d in out] == sorted((d.confidence for d in out), reverse=True)
    by_box = {d.box: d for d in out}
    moved = by_box[covered.box]
    assert (moved.card, moved.confidence, moved.detector_confidence) == ("7E", 0.15, 0.8)
    assert moved.rank_confidence == pytest.approx(0.15 / 0.8)
    assert moved.alternatives == (("7C", 0.1), ("5E", pytest.approx(0.08)))
    assert by_box[sure.box] == sure  # 0.48 * 0.2 = 0.096 still over its 3E at 0.05
    assert by_box[upper.box] == upper and by_box[apart.box] == apart and by_box[back.box] == back
    # a box hardly inside the surer one is not read as it
    assert renamed_namesakes([upper, covered], 0.2, share=0.9) == [upper, covered]
    assert renamed_namesakes([], 0.2) == []
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="discount"):
            renamed_namesakes([upper], bad)
    with pytest.raises(ValueError, match="share"):
        renamed_namesakes([upper], 0.2, share=0.0)


def test_the_namesakes_step_is_an_option_off_by_default():
    """Rules 210 and 213 did not ship: no family reads namesakes again unless asked (0 turns it off again, the
    table's one view without it too); a detector refuses a factor outside (0, 1)."""
    for family in ("spanish", "french"):
        assert photo_settings(family=family)["namesake_discount"] is None
        assert photo_settings(family=family, scales=(1.0,))["namesake_discount"] is None
        assert photo_settings(family=family, namesake_discount=0.2)["namesake_discount"] == 0.2
        assert photo_settings(family=family, namesake_discount=0)["namesake_discount"] is None
    assert CardDetector("spanish").namesake_discount is None
    for bad in (0.0, 1.0, 2.0):
        with pytest.raises(ValueError, match="namesake_discount"):
            CardDetector("spanish", namesake_discount=bad)
    with pytest.raises(ValueError, match="namesake_share"):
        CardDetector("spanish", namesake_share=0.0)


def test_the_namesakes_step_runs_before_the_rescorer_on_a_photo():
    """With the step asked for, :meth:`CardDetector.read_stages` lists it just before the rescoring, and the
    rescored detections are the renamed ones, rescored."""
    rec = json.loads((FIXTURES / "fixtures.json").read_text())[0]
    image = read_image(FIXTURES / rec["image"])
    detector = CardDetector("french", **photo_settings(family="french", namesake_discount=0.2))
    stages = detector.read_stages(image, *detector.find_boxes(image))
    names = [n for n, _ in stages]
    assert names[-2:] == ["namesakes", "rescored"]
    assert sorted(d.card for d in stages[-2][1]) == sorted(d.card for d in stages[-1][1])
