"""A box around a row of overlapping cards, split into its cards (companion.vision.rows)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.boxes import iou
from companion.vision.crops import paper_box, paper_reach
from companion.vision.detector import CardDetector, Detection, read_image
from companion.vision.rows import (BESIDE_SHARES, MAX_STRIPS, MIN_ROW, ROW_ASPECT, STRIP_MIN_PROB, Cutting, beside, choose,
                                   cuttings, strips_sure)
from companion.vision.settings import photo_settings

FIXTURES = Path(__file__).resolve().parents[2] / "datasets" / "fixtures"


@pytest.fixture(scope="module")
def photo() -> CardDetector:
    return CardDetector("french", **photo_settings())


@pytest.fixture(scope="module")
def rows_reader() -> CardDetector:
    """The photo settings reading corners with the table's corner model, which the row rules (a cutting's
    top card at p >= 0.6, each strip at ``STRIP_MIN_PROB``) were chosen with.  The tests of how a row box is
    cut use it: the photo corner model (session 38) is less sure of some of these held-back decks' cards (the
    neoclassical KS read at p 0.5 as a row's top card, under the 0.6 a cutting needs) and better on the real
    photos' rows (strips read with the table's model instead: 487 -> 483 of 527, bench/evaluation-history.md,
    session 38), which the real-photo tests below and the real-photo figure check.  No index bands either
    (session 50): the rules were chosen without them, and with them these rows are still read as both cards
    but the neoclassical 10D's strip is cut at another line (IoU 0.43 with its visible strip); what the bands
    do to the photos' rows is in the real-photo figure (496 -> 494 of 527).  And the outline found paper
    first, as the table finds it (session 54 turned the photos' order to the sides first): with the sides
    first these rows are still read as both cards, but the same 10D's strip is again cut at another line (IoU
    0.43); the real-photo figure has what that order does to the photos (494 -> 496 of 527)."""
    return CardDetector("french", **photo_settings(photo_corners=False, band_weight=0.0, quad_methods=ROW_QUAD))


ROW_QUAD = ("paper", "table", "edges")  # the outline finders' order the row rules were chosen with


def _row(image_name: str, cards: list[str], share: float, top_left: bool = False
         ) -> tuple[np.ndarray, list[tuple], tuple]:
    """A row laid from a fixture's upright cards (held-back designs), each covering all but ``share``
    of the one before it (``top_left``: of the one after it), twice the fixture's size: (image, each
    card's visible box, the row's box)."""
    record = next(r for r in json.loads((FIXTURES / "fixtures.json").read_text()) if r["image"] == image_name)
    image = cv2.imread(str(FIXTURES / image_name))
    boxes = {c["card"]: [int(v) for v in c["box"]] for c in record["cards"]}
    crops = [image[boxes[c][1] + 4:boxes[c][3] - 4, boxes[c][0] + 4:boxes[c][2] - 4] for c in cards]
    h = min(c.shape[0] for c in crops)
    crops = [cv2.resize(c, (2 * int(c.shape[1] * h / c.shape[0]), 2 * h)) for c in crops]
    canvas = cv2.resize(image[:60, :60], (sum(c.shape[1] for c in crops) + 200, 2 * h + 200))
    x, placed = 100, []
    for i, crop in enumerate(crops):
        placed.append((x, 100, x + crop.shape[1], 100 + 2 * h))
        if i + 1 < len(crops):
            x += int(share * crop.shape[1])
    for i in (reversed(range(len(crops))) if top_left else range(len(crops))):
        b = placed[i]
        canvas[b[1]:b[3], b[0]:b[2]] = crops[i]
    if top_left:
        visible = [placed[0]] + [(placed[i - 1][2], b[1], b[2], b[3]) for i, b in enumerate(placed) if i]
    else:
        visible = [(b[0], b[1], placed[i + 1][0], b[3]) for i, b in enumerate(placed[:-1])] + [placed[-1]]
    return canvas, visible, (placed[0][0], 100, placed[-1][2], 100 + 2 * h)


def test_a_box_one_card_wide_is_no_row():
    h = 300.0
    assert cuttings((0.0, 0.0, ROW_ASPECT * h, h), 1000) == []
    assert cuttings((0.0, 0.0, MIN_ROW * ROW_ASPECT * h * 0.99, h), 1000) == []
    assert cuttings((0.0, 0.0, MIN_ROW * ROW_ASPECT * h * 1.01, h), 1000)


def test_cuttings_tile_the_box_with_the_top_card_at_either_end():
    box, width = (100.0, 50.0, 500.0, 350.0), ROW_ASPECT * 300.0
    cuts = cuttings(box, 640)
    assert {c.corner for c in cuts} == {0, 1}
    assert max(len(c.strips) for c in cuts) == MAX_STRIPS
    for c in cuts:
        parts = sorted([c.end, *c.strips])
        assert parts[0][0] == pytest.approx(100.0) and parts[-1][2] == pytest.approx(500.0)
        assert all(a[2] == pytest.approx(b[0]) for a, b in zip(parts, parts[1:]))  # no gap, no overlap
        assert c.end[2] - c.end[0] == pytest.approx(width)
        assert (c.end[2] == 500.0) == (c.corner == 0)  # top card on the right: strips show top-left corners
        for strip, whole in zip(c.strips, c.reaching):
            assert whole[2] - whole[0] <= width + 1e-9 and whole[3] - whole[1] == 300.0
            assert (whole[0] == strip[0]) if c.corner == 0 else (whole[2] == strip[2])
    # a card reaching past the image's edge is cut there
    assert all(w[2] <= 520 for c in cuttings(box, 520) for w in c.reaching)


def test_the_surest_cutting_wins_and_no_card_is_read_twice():
    end_a, end_b = (0.0, 0.0, 1.0, 1.0), (2.0, 0.0, 3.0, 1.0)
    cuts = [Cutting(end_a, ((1.0, 0.0, 2.0, 1.0),), ((1.0, 0.0, 2.0, 1.0),), 1),
            Cutting(end_b, ((0.0, 0.0, 1.0, 1.0),), ((0.0, 0.0, 1.0, 1.0),), 0),
            Cutting(end_b, ((0.0, 0.0, 0.5, 1.0), (0.5, 0.0, 1.0, 1.0)), ((0.0, 0.0, 1.0, 1.0),) * 2, 0)]
    ends = {end_a: ("QH", 0.9), end_b: ("7C", 0.95)}
    assert choose(cuts, ends, [[("AS", 0.85)], [("QH", 0.99)], [("QH", 0.9), ("5S", 0.9)]]) == 1
    # the same card twice (one card in a wide box, cut in strips) is no row
    assert choose(cuts, ends, [[("QH", 0.99)], [("7C", 0.99)], [("QH", 0.9), ("QH", 0.9)]]) is None
    # a strip or the top card read unsurely, or the top card a back, rules a cutting out
    assert choose(cuts[:2], ends, [[("AS", 0.5)], [("QH", 0.7)]]) is None
    assert choose(cuts[:2], {end_a: ("back", 0.99), end_b: ("7C", 0.4)}, [[("AS", 0.9)], [("QH", 0.9)]]) is None
    # on a tie, fewer strips
    assert choose(cuts[1:], ends, [[("QH", 0.95)], [("QH", 0.95), ("5S", 0.95)]]) == 0


def test_strips_are_checked_before_the_top_card_is_read():
    assert strips_sure([("QH", 0.9), ("7C", STRIP_MIN_PROB)])
    assert not strips_sure([("QH", 0.9), ("7C", STRIP_MIN_PROB - 0.01)])
    assert not strips_sure([("QH", 0.9), ("QH", 0.95)])


@pytest.mark.parametrize("image_name, cards, share", [
    ("french-dondorf.jpg", ["QH", "7C"], 0.4),
    ("french-dondorf.jpg", ["AS", "7C"], 0.5),
    ("french-neoclassical.jpg", ["10D", "KS"], 0.4),
    ("french-neoclassical.jpg", ["KS", "3H"], 0.4),
])
def test_a_row_of_two_cards_in_one_box_is_read_as_both(rows_reader, image_name, cards, share):
    image, visible, row = _row(image_name, cards, share)
    loose = Detection(cards[-1], 0.5, tuple(float(v) for v in row), 0.6, 0.8)
    found = rows_reader.split_rows(image, [loose])
    assert sorted(d.card for d in found) == sorted(cards)
    for card, box in zip(cards, visible):
        (d,) = [d for d in found if d.card == card]
        assert iou(d.box, box) > 0.6 and d.detector_confidence == 0.8


def test_a_box_shrinks_to_the_card_paper_it_holds():
    image = np.full((300, 400, 3), (40, 60, 90), np.uint8)  # a brown table
    image[100:250, 120:330] = 235  # white paper
    image[150:200, 150:180] = (30, 30, 200)  # a red pip on it: a row of paper around it is still paper
    assert paper_box(image, (80.0, 40.0, 360.0, 280.0)) == (120.0, 100.0, 330.0, 250.0)
    assert paper_box(image, (0.0, 0.0, 100.0, 90.0)) is None  # no paper in it
    assert paper_box(image, (10.0, 10.0, 11.0, 11.0)) is None


def test_a_box_grows_over_the_paper_that_goes_on_past_its_sides():
    image = np.full((300, 500, 3), (40, 60, 90), np.uint8)  # a brown table
    image[100:250, 120:330] = 235  # white paper
    image[150:200, 250:280] = (30, 30, 200)  # a red pip on it: a column through it is still mostly paper
    image[100:250, 350:420] = 235  # another card past a gap of table: not reached
    assert paper_reach(image, (150.0, 100.0, 240.0, 250.0)) == (120.0, 100.0, 330.0, 250.0)
    assert paper_reach(image, (150.0, 100.0, 240.0, 250.0), reach=0.2) == (132.0, 100.0, 258.0, 250.0)
    assert paper_reach(image, (110.0, 100.0, 340.0, 250.0)) is None  # table on both sides: nothing to grow over
    assert paper_reach(image, (10.0, 10.0, 11.0, 11.0)) is None


def _loose(row: tuple, visible: list[tuple]) -> tuple[float, float, float, float]:
    """A row's box taking in a margin of table above the cards."""
    return float(row[0]), row[1] - 0.25 * (row[3] - row[1]), float(row[2]), float(row[3])


def _short(row: tuple, visible: list[tuple]) -> tuple[float, float, float, float]:
    """A row's box stopping short of the covered card's far edge, in the middle of its visible strip."""
    return row[0] + 0.6 * (visible[0][2] - visible[0][0]), float(row[1]), float(row[2]), float(row[3])


@pytest.mark.parametrize("drawn, setting", [(_loose, "paper_rows"), (_short, "row_reach")])
def test_a_row_boxed_loosely_or_short_is_cut_as_the_cards_it_holds(rows_reader, drawn, setting):
    """The detector's box around a row often takes in a margin of table above the cards (real photos), or
    stops short of the covered card's far edge; either way no cutting finds a strip's index corner where it
    looks for it.  The box shrunk to its paper (``paper_rows``) and grown over the paper past its sides
    (``row_reach``) are cut too; without the one that fits, the row stays one card."""
    image, visible, row = _row("french-neoclassical.jpg", ["10D", "KS"], 0.4)
    box = drawn(row, visible)
    found = rows_reader.split_rows(image, [Detection("KS", 0.5, box, 0.6, 0.8)])
    assert sorted(d.card for d in found) == ["10D", "KS"]
    for card, seen in zip(["10D", "KS"], visible):
        (d,) = [d for d in found if d.card == card]
        assert iou(d.box, seen) > 0.6
    without = CardDetector("french", **photo_settings(photo_corners=False, band_weight=0.0, quad_methods=ROW_QUAD),
                           **{setting: None})
    assert [d.card for d in without.split_rows(image, [Detection("KS", 0.5, box, 0.6, 0.8)])] == ["KS"]


def test_one_card_lying_sideways_in_a_wide_box_stays_one_card(photo):
    image, (box,), _ = _row("french-dondorf.jpg", ["QH"], 0.5)
    x1, y1, x2, y2 = box
    card = cv2.rotate(np.ascontiguousarray(image[y1:y2, x1:x2]), cv2.ROTATE_90_CLOCKWISE)
    canvas = cv2.resize(image[:60, :60], (card.shape[1] + 200, card.shape[0] + 200))
    canvas[100:100 + card.shape[0], 100:100 + card.shape[1]] = card
    wide = (100.0, 100.0, 100.0 + card.shape[1], 100.0 + card.shape[0])
    assert cuttings(wide, canvas.shape[1])  # wide enough to be tried as a row
    found = photo.split_rows(canvas, [Detection("QH", 0.9, wide, 0.95, 0.95)])
    assert [d.card for d in found] == ["QH"] and found[0].box == wide


def test_backs_and_narrow_boxes_are_left_alone(photo):
    image, _, row = _row("french-dondorf.jpg", ["QH", "7C"], 0.4)
    back = Detection("back", 0.9, tuple(float(v) for v in row), 1.0, 0.9)
    narrow = Detection("QH", 0.9, (100.0, 100.0, 200.0, 260.0), 0.95, 0.95)
    assert photo.split_rows(image, [back, narrow]) == [back, narrow]


def test_strips_beside_a_lone_card_stay_in_the_picture_and_clear_of_other_boxes():
    card = (200.0, 100.0, 270.0, 200.0)
    strips = beside(card, 640, [card])
    assert {(b.corner, round((b.strip[2] - b.strip[0]) / 70, 2)) for b in strips} == \
        {(c, s) for c in (0, 1) for s in BESIDE_SHARES}
    for b in strips:
        assert b.reaching[2] - b.reaching[0] == pytest.approx(70.0)
        assert (b.strip[2] == 200.0 and b.reaching[0] == b.strip[0]) if b.corner == 0 else \
            (b.strip[0] == 270.0 and b.reaching[2] == b.strip[2])
    assert beside((200.0, 100.0, 330.0, 200.0), 640, []) == []  # a wide box is no lone upright card
    assert {b.corner for b in beside(card, 280, [])} == {0}  # the right side runs out of the picture
    neighbour = (150.0, 100.0, 198.0, 200.0)  # a card boxed already on the left
    assert {b.corner for b in beside(card, 640, [card, neighbour])} == {1}


@pytest.mark.parametrize("cards, top_left", [(["QH", "7C"], False), (["7C", "AS"], False), (["QH", "AS"], True),
                                             (["AS", "7C"], True)])
def test_a_card_half_under_a_lone_box_is_found_beside_it(photo, cards, top_left):
    """The detector boxed the top card only: the strip of the card under it, on its left (top-left index
    showing) or on its right (bottom-right index), is read and boxed (at least as well as the real photos
    count a card found: IoU 0.5; the strip read surest may reach a little past the card's edge)."""
    image, visible, _ = _row("french-dondorf.jpg", cards, 0.35, top_left=top_left)
    top, under = (0, 1) if top_left else (1, 0)
    lone = Detection(cards[top], 0.8, tuple(float(v) for v in visible[top]), 0.9, 0.9)
    found = photo.split_rows(image, [lone])
    assert lone in found
    (new,) = [d for d in found if d is not lone]
    assert new.card == cards[under] and iou(new.box, visible[under]) > 0.5
    assert new.detector_confidence == lone.detector_confidence and new.rank_confidence >= STRIP_MIN_PROB
    # a card boxed elsewhere in the picture already is not found again, nor is a runner-up in its place
    elsewhere = Detection(cards[under], 0.5, (500.0, 300.0, 560.0, 390.0))
    assert photo.split_rows(image, [lone, elsewhere]) == [lone, elsewhere]


def test_real_cards_under_one_box_are_each_named(shared):
    """IMG_2616: a ten of diamonds half under a jack, and a queen half under a nine, each pair in one
    loose box that the ten and the queen matched; the jack and the nine were missed before rows were
    split (session 17).  (Since session 38 the photo corner model reads the queen's loose box, two cards'
    corners, as a king at p 0.16 where the table's read a queen at 0.18: without rows the queen is
    missed too.)"""
    image = read_image(shared / "real-photos" / "french-dev" / "IMG_2616.JPG")
    labels = {"J": (139, 294, 181, 436), "10": (39, 295, 143, 436), "9": (126, 55, 171, 205), "Q": (16, 53, 126, 205)}

    def named(rows: bool) -> set[str]:
        found = CardDetector("french", **photo_settings(rows=rows)).detect(image)
        return {rank for rank, box in labels.items() if any(d.card[:-1] == rank and iou(d.box, box) >= 0.5
                                                             for d in found)}
    without = named(rows=False)
    assert "10" in without and not without & {"J", "9"}
    assert named(rows=True) == {"J", "10", "9", "Q"}


@pytest.mark.parametrize("name, top, under", [("IMG_2599.JPG", ("J", (149, 227, 317, 462)), ("K", (73, 221, 150, 453))),
                                             ("IMG_2602.JPG", ("J", (118, 205, 302, 449)), ("10", (61, 206, 149, 436)))])
def test_a_real_card_half_under_a_lone_box_is_found(shared, name, top, under):
    """A jack on top of a king (a ten), whose left strip shows its index: the detector boxes the jack
    alone, and the king (the ten) was missed before the strips beside a lone card were read.

    Read with the hidden share dropped ("drop"): with the default "overlap" (session 43) a faint box over the
    king and the jack is named KC weakly, so the jack is no longer alone and its strip is not read; that box
    misses the king's (IoU < 0.5), and the default loses this king; over all 527 real cards "overlap" with v15
    found 495 against 492 (models/README.md, "photo corners v15").  Without the index bands too (session 50):
    with them that faint box is named KC in "drop" as well, the jack is not alone, and the default reads this
    photo as it did without them (JD, and KC weakly on the faint box)."""
    image = read_image(shared / "real-photos" / "french-dev" / name)

    def named(rows: bool) -> set[str]:
        found = CardDetector("french", hidden="drop", **photo_settings(rows=rows, band_weight=0.0)).detect(image)
        return {rank for rank, box in (top, under) if any(d.card[:-1] == rank and iou(d.box, box) >= 0.5
                                                          for d in found)}
    assert named(rows=False) == {top[0]}
    assert named(rows=True) == {top[0], under[0]}


def test_photo_settings_split_rows_and_the_table_does_not():
    assert photo_settings()["rows"] is True
    assert photo_settings(scales=[1.0])["rows"] is False
    assert photo_settings(rows=False)["rows"] is False
    assert CardDetector("french").rows is False


def test_a_family_with_no_corner_reader_leaves_rows_as_they_are(models_copy):
    """A models folder without the family's index-corner classifier (the Spanish one shipped only from
    session 61): with rows asked for, a photo is still read (no strip can be read by its corner, so no box
    is cut), not an error."""
    from companion.vision.detector import corner_file

    (models_copy / corner_file("spanish")).unlink(missing_ok=True)
    (models_copy / corner_file("spanish", photo=True)).unlink(missing_ok=True)  # the photos' own (session 63)
    spanish = CardDetector("spanish", models_dir=models_copy, **photo_settings())
    assert spanish.rows and spanish.corners is None
    image, _, _ = _row("french-dondorf.jpg", ["QH", "7C"], 0.4)
    plain = CardDetector("spanish", models_dir=models_copy, **photo_settings(rows=False)).detect(image)
    assert [(d.card, d.box) for d in spanish.detect(image)] == [(d.card, d.box) for d in plain]


def test_a_paper_share_outside_0_to_1_is_one_clear_error(capsys):
    with pytest.raises(ValueError, match="paper_rows"):
        CardDetector("french", paper_rows=1.5)
    with pytest.raises(ValueError, match="row_reach"):
        CardDetector("french", row_reach=0.0)
    from companion.vision.evaluate import main as evaluate_main

    with pytest.raises(SystemExit) as exit_:
        evaluate_main(["classifier", "--crops", "unused", "--paper-rows", "2"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "paper_rows must be in (0, 1)" in err and "Traceback" not in err
