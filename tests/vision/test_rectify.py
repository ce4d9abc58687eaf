"""Cards turned upright before their corners are read (crops.card_quad, crops.rectified_crop)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.vision import crops
from companion.vision.crops import card_quad, rectified_crop


def _table_with_card(angle: float, size=(60, 84)) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A brown table with a white card, a black bar in its top-left index corner, turned ``angle`` degrees."""
    rng = np.random.default_rng(3)
    table = np.clip(np.array([40, 70, 120], np.float32) + rng.normal(0, 4, (240, 320, 3)), 0, 255).astype(np.uint8)
    w, h = size
    card = np.full((h, w, 3), 245, np.uint8)
    card[6:22, 5:11] = 20  # the index: a dark mark near the top-left corner only
    cx, cy = 160, 120
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += (cx - w / 2, cy - h / 2)
    warped = cv2.warpAffine(card, m, (320, 240), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (320, 240)) > 127
    table[inside] = warped[inside]
    ys, xs = np.nonzero(inside)
    return table, (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))


@pytest.mark.parametrize("angle", [0.0, 20.0, 35.0, -30.0, 60.0])
def test_a_tilted_card_is_found_and_turned_upright(angle):
    image, box = _table_with_card(angle)
    quad = card_quad(image, box)
    assert quad is not None
    (cx, cy), (rw, rh), _ = quad
    assert abs(cx - 160) < 3 and abs(cy - 120) < 3
    assert sorted((rw, rh)) == pytest.approx([60, 84], abs=4)
    crop = rectified_crop(image, box, 96)
    assert crop.shape == (96, 96, 3)
    grey = crop.mean(axis=2)
    assert np.median(grey) > 200  # the card's paper fills the crop, no table
    # the mark lies in an index corner (top-left, or bottom-right: a half turn is the same card),
    # not along the sides: the long side is up and the card is not mirrored
    dark = grey < 100
    dark[:8], dark[-8:], dark[:, :8], dark[:, -8:] = False, False, False, False  # the 3 % of table around it
    top_left, bottom_right = dark[:48, :48].sum(), dark[48:, 48:].sum()
    top_right, bottom_left = dark[:48, 48:].sum(), dark[48:, :48].sum()
    assert max(top_left, bottom_right) > 40 and top_right + bottom_left < 5


def test_no_card_gives_no_rectangle():
    image, _ = _table_with_card(20.0)
    empty = np.full_like(image, (40, 70, 120))
    assert card_quad(empty, (130.0, 80.0, 190.0, 160.0)) is None
    assert rectified_crop(empty, (130.0, 80.0, 190.0, 160.0)) is None
    assert rectified_crop(image, (10.0, 10.0, 15.0, 14.0)) is None  # too small to tell


def test_a_card_touching_the_deck_is_found_by_its_paper():
    """The vira lies against the deck: the table's colour alone sees one blob of vira and deck, no card
    rectangle.  The card's paper (light, grey; the deck's back is blue) still gives it, at its own size
    though the detector's box takes in a strip of the deck."""
    image, box = _table_with_card(25.0)
    # the deck: a blue card against the vira's right side
    deck = np.zeros(image.shape[:2], np.uint8)
    m = cv2.getRotationMatrix2D((0, 0), 25.0, 1.0)
    m[:, 2] += (160 + 27, 120 - 52)
    cv2.fillConvexPoly(deck, cv2.transform(np.array([[[0, 0], [60, 0], [60, 84], [0, 84]]], np.float32), m)
                       .astype(np.int32), 1)
    image[deck > 0] = (150, 90, 40)
    loose = (box[0], box[1], box[2] + 12.0, box[3])  # the detector's box reaches into the deck
    quad = card_quad(image, loose)
    assert quad is not None
    (cx, cy), (rw, rh), _ = quad
    assert abs(cx - 160) < 4 and abs(cy - 120) < 4
    assert sorted((rw, rh)) == pytest.approx([60, 84], abs=6)
    grey = rectified_crop(image, loose, 96).mean(axis=2)
    assert np.median(grey) > 200



def test_specks_of_paper_give_no_rectangle():
    """A box over bare cloth with a few light specks (crumbs, glare): the paper fallback finds only pieces
    too small to be a card and says so, rather than failing."""
    image = np.full((240, 320, 3), (40, 70, 120), np.uint8)
    for x, y in ((140, 90), (170, 130), (150, 150)):
        image[y:y + 2, x:x + 2] = 250
    assert card_quad(image, (130.0, 80.0, 190.0, 164.0)) is None


def _card_against_its_twin(angle: float, pip: bool = True, seed: int = 3
                           ) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A white card with an index mark and (``pip``) a big red pip, turned ``angle`` degrees, with a card of
    the same paper against its right side (an index mark too without the pip): the two papers run together,
    and the pip splits the first card's.  The box is the first card's alone, as the detector draws it."""
    rng = np.random.default_rng(seed)
    image = np.clip(np.array([40, 70, 120], np.float32) + rng.normal(0, 4, (240, 320, 3)), 0, 255).astype(np.uint8)
    w, h = 60, 84
    box = (0.0, 0.0, 0.0, 0.0)
    for dx, face in ((60, False), (0, True)):
        card = np.full((h, w, 3), 245, np.uint8)
        cv2.rectangle(card, (0, 0), (w - 1, h - 1), (150, 150, 150), 1)  # a printed border line
        if face or not pip:
            card[6:22, 5:11] = 20
        if face and pip:
            cv2.circle(card, (30, 42), 20, (30, 30, 200), -1)
        a = np.radians(angle)
        cx, cy = 160 + dx * np.cos(a), 120 - dx * np.sin(a)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        m[:, 2] += (cx - w / 2, cy - h / 2)
        warped = cv2.warpAffine(card, m, (320, 240))
        inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (320, 240)) > 127
        image[inside] = warped[inside]
        ys, xs = np.nonzero(inside)
        box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
    return image, box


@pytest.mark.parametrize("angle", [15.0, 25.0])
def test_a_card_against_one_of_its_own_paper_is_found_by_its_sides(angle):
    """Neither the paper (one piece across both cards, split by the pip) nor the table's colour gives the card;
    its four straight sides do, at its own size."""
    image, box = _card_against_its_twin(angle)
    region = crops._quad_region(image, box, 0.08)
    assert crops._paper_quad(region) is None and crops._table_quad(region) is None
    quad = card_quad(image, box)
    assert quad is not None
    (cx, cy), (rw, rh), _ = quad
    assert abs(cx - 160) < 4 and abs(cy - 120) < 4
    assert sorted((rw, rh)) == pytest.approx([60, 84], abs=6)


def _outline(drawn: float) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A card-shaped rectangle (40 x 56, small enough that ``card_quad`` works at the image's own scale) of
    dark lines on light cloth, each side drawn for ``drawn`` of its length in dashes 28 pixels apart."""
    image = np.full((240, 320, 3), 235, np.uint8)
    x1, y1, x2, y2 = 140, 92, 180, 148
    on = int(round(28 * drawn))
    for start in range(0, 56, 28):
        cv2.line(image, (x1, y1 + start), (x1, y1 + min(56, start + on)), (40, 40, 40), 1)
        cv2.line(image, (x2, y1 + start), (x2, y1 + min(56, start + on)), (40, 40, 40), 1)
    for start in range(0, 40, 28):
        cv2.line(image, (x1 + start, y1), (x1 + min(40, start + on), y1), (40, 40, 40), 1)
        cv2.line(image, (x1 + start, y2), (x1 + min(40, start + on), y2), (40, 40, 40), 1)
    return image, (x1 - 1.0, y1 - 1.0, x2 + 2.0, y2 + 2.0)


def test_a_rectangle_is_a_card_only_where_its_sides_lie_on_edges():
    """Session 32, seed 112: the straightest card-shaped rectangle ran along a vira's lower side, across the
    dealer's fingers and over the deck, on edges for 0.56 of its length, and the vira was read as a back.
    Sides drawn for half their length (on edges for about 0.6, with the blur at each dash's ends) make no card;
    drawn for 0.9, they do, at the drawn size."""
    for drawn, found in ((0.5, False), (0.9, True)):
        image, box = _outline(drawn)
        region = crops._quad_region(image, box, 0.08)
        assert region.fx == 1.0  # the cover is measured at the image's own scale
        quad = crops._edge_quad(region)
        assert (quad is not None) == found, drawn
        if found:
            assert sorted(quad[1]) == pytest.approx([40, 56], abs=2)


def test_a_pips_straight_edge_is_no_side_of_a_card_its_box_clips():
    """Session 32, seed 10: an ace whose detector box left out its top third; the club's straight lower edge,
    with the card's other three sides, made a card-shaped rectangle turned a quarter inside the box, and the
    ace was read as a 2.  A rectangle whose own bounding box is not the detector's box is refused."""
    image = np.clip(np.full((240, 320, 3), (40, 70, 120), np.float32), 0, 255).astype(np.uint8)
    x1, y1 = 130, 60
    image[y1:y1 + 84, x1:x1 + 60] = 245
    image[y1 + 30:y1 + 42, x1 + 4:x1 + 56] = 20  # the pip's band, its straight lower edge 42 px down
    clipped = (float(x1), float(y1 + 28), float(x1 + 60), float(y1 + 84))  # the box leaves out the top third
    region = crops._quad_region(image, clipped, 0.08)
    assert crops._edge_quad(region) is None
    whole = crops._quad_region(image, (float(x1), float(y1), float(x1 + 60), float(y1 + 84)), 0.08)
    quad = crops._edge_quad(whole)  # in the region's pixels: the card 60 x 84 at the region's scale
    assert quad is not None and sorted(quad[1]) == pytest.approx([60 * whole.fx, 84 * whole.fy], abs=4)


FIXTURES = Path(__file__).resolve().parents[2] / "datasets" / "fixtures"


def test_a_one_pip_card_lying_on_another_is_read_by_its_sides():
    """A rendered table frame (seed 0, session s13, frame 870; held-out `tango_nuevo` deck): a 3D lies over a
    JD, their papers touching, and its big diamond splits its own paper.  Neither its paper nor the table's
    colour gives its outline, so its corners are read from the tilted box crop (3H in every tenth frame from
    850 to 940).  With the sides as an outline finder (``crops.QUAD_METHODS``, since session 35) they give the
    card, and turned upright it reads 3D."""
    from companion.engine.variants import resolve
    from companion.table.session import table_detector

    image = cv2.imread(str(FIXTURES / "table-3d-on-a-jack.png"))
    box = (40.4, 40.3, 138.1, 123.8)  # the detector's box, recorded in the frame's stream
    region = crops._quad_region(image, box, 0.08)
    assert crops._paper_quad(region) is None and crops._table_quad(region) is None
    (cx, cy), (rw, rh), _ = card_quad(image, box)
    assert abs(cx - 87) < 4 and abs(cy - 82) < 4
    assert sorted((rw, rh)) == pytest.approx([52, 73], abs=4)
    detector = table_detector("french", tuple(resolve("clean-28").deck_cards))
    (reading,) = detector.readings(image, np.array([box], np.float32), 1)
    assert reading[0][0] == "3D"


def test_the_outline_finders_can_be_chosen_for_a_measurement():
    """The shipped order tries the sides last; ``--quad paper,table`` (evaluation) leaves them out for that
    reading alone; an unknown name is a clear error."""
    image, box = _card_against_its_twin(25.0)
    assert crops.QUAD_METHODS == ("paper", "table", "edges") and card_quad(image, box) is not None
    methods = crops.quad_methods("paper,table")
    assert methods == ("paper", "table") and card_quad(image, box, methods=methods) is None
    assert crops.QUAD_METHODS == ("paper", "table", "edges") and card_quad(image, box) is not None
    with pytest.raises(ValueError, match="unknown outline finder.*choose from paper, table, edges"):
        crops.quad_methods("paper,sides")


def _strip(ends_at_line: bool) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A white card-wide strip on cloth, crossed by a picture's edge a card's length from its top, and a box
    a little taller than that card's length: the strip ends at the line (a card), or runs on past it, its
    picture below (a longer shape, as a face card's frame inside a card lying sideways)."""
    rng = np.random.default_rng(5)
    image = np.clip(np.array([40, 70, 120], np.float32) + rng.normal(0, 4, (240, 320, 3)), 0, 255).astype(np.uint8)
    end = 104 if ends_at_line else 220
    image[20:end, 130:190] = 245
    if not ends_at_line:
        image[104:end, 136:184] = (60, 90, 200)
    return image, (130.0, 20.0, 190.0, 112.0)


def test_a_rectangle_whose_sides_run_on_past_it_is_no_card():
    """The sides that close a card-shaped rectangle must end there: where both long sides run on past the line
    that closes it, the rectangle is a piece of something longer and the sides give no outline; the card that
    ends at that line is found."""
    image, box = _strip(ends_at_line=True)
    region = crops._quad_region(image, box, 0.08)
    (cx, cy), (rw, rh), _ = crops._edge_quad(region)
    # the card's own 60 x 84 pixels (x 130..190, y 20..104), in the region's shrunk pixels
    assert sorted((rw, rh)) == pytest.approx(sorted((60 * region.fx, 84 * region.fy)), abs=2)
    assert (cx / region.fx + region.x0, cy / region.fy + region.y0) == pytest.approx((160, 62), abs=3)
    image, box = _strip(ends_at_line=False)
    region = crops._quad_region(image, box, 0.08)
    assert crops._edge_quad(region) is None
    assert crops._runs_on(crops._SideSums(np.ones((40, 40), bool), np.ones((40, 40), bool)), 5, 5, 20, 25)
    one_side = np.zeros((40, 40), bool)
    one_side[:, 5] = True  # only the left side runs on (a neighbour's side in line with it)
    assert not crops._runs_on(crops._SideSums(one_side, np.zeros((40, 40), bool)), 5, 5, 20, 25)


def test_the_evaluation_refuses_an_unknown_outline_finder(capsys):
    from companion.table.evaluate import main

    with pytest.raises(SystemExit):
        main(["--quad", "corners", "--hands", "1", "--out", "/nonexistent/never-made"])
    assert "unknown outline finder" in capsys.readouterr().err
    assert not Path("/nonexistent/never-made").exists()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(8, 40), st.integers(8, 40), st.floats(0.05, 0.95))
def test_side_sums_count_what_the_slices_hold(seed, h, w, density):
    """The prefix sums the sides finder counts with give, for any run of a column or a row (clipped as a
    slice is, past either end too), what summing the pixels gives; and the rectangles it keeps are the
    card-shaped ones whose sides are covered as summing them says, in the order the pairs are tried."""
    rng = np.random.default_rng(seed)
    upright, level = rng.random((h, w)) < density, rng.random((h, w)) < density
    sides = crops._SideSums(upright, level)
    for _ in range(40):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        a, b = sorted(int(v) for v in rng.integers(-5, max(h, w) + 5, 2))
        col, row = upright[max(a, 0):max(b, 0), x], level[y, max(a, 0):max(b, 0)]
        assert sides.down(x, a, b) == (int(col.sum()), len(col))
        assert sides.across(y, a, b) == (int(row.sum()), len(row))
    cols = [int(v) for v in rng.choice(w, size=min(6, w), replace=False)]
    rows = [int(v) for v in rng.choice(h, size=min(6, h), replace=False)]
    expected = []
    for x1, x2 in ((a, b) for a in cols for b in cols if a < b):
        for y1, y2 in ((a, b) for a in rows for b in rows if a < b):
            cw, ch = x2 - x1, y2 - y1
            if min(cw, ch) < 6 or not crops.EDGE_ASPECT[0] <= min(cw, ch) / max(cw, ch) <= crops.EDGE_ASPECT[1]:
                continue
            covered = (upright[y1:y2 + 1, x1].sum() + upright[y1:y2 + 1, x2].sum()
                       + level[y1, x1:x2 + 1].sum() + level[y2, x1:x2 + 1].sum())
            cover = float(covered) / float(2 * (cw + ch + 2))
            if cover > 0.3:
                expected.append((x1, y1, x2, y2, cover))
    assert sides.rectangles(cols, rows, 0.3) == expected


@pytest.mark.parametrize("angle", [30.0, 40.0, -30.0])
def test_photos_find_a_card_touching_its_twin_by_its_sides_first(angle):
    """Session 54: the paper of two touching cards is one piece, and its rectangle (card-shaped at these
    angles: about 100 x 82) is taken for the card, which is then cut across both. The photo settings try the
    card's sides first (``PHOTO_QUAD_METHODS``) and find the card the box holds; the table's order (paper
    first) is unchanged."""
    from companion.vision.settings import PHOTO_QUAD_METHODS, photo_settings

    image, box = _card_against_its_twin(angle, pip=False, seed=7)
    assert photo_settings()["quad_methods"] == PHOTO_QUAD_METHODS == ("edges", "paper", "table")
    assert crops.QUAD_METHODS == ("paper", "table", "edges")
    (cx, cy), (rw, rh), _ = card_quad(image, box, methods=PHOTO_QUAD_METHODS)
    assert abs(cx - 160) < 4 and abs(cy - 120) < 4
    assert sorted((rw, rh)) == pytest.approx([60, 84], abs=5)
    (px, py), (pw, ph), _ = card_quad(image, box)  # paper first: both cards' paper, not this card
    assert abs(px - 160) > 10 and max(pw, ph) > 95
    # turned upright by the photo order, the index mark lies in an index corner, not along a side
    grey = rectified_crop(image, box, 96, PHOTO_QUAD_METHODS).mean(axis=2)
    dark = grey < 100
    dark[:8], dark[-8:], dark[:, :8], dark[:, -8:] = False, False, False, False
    assert max(dark[:48, :48].sum(), dark[48:, 48:].sum()) > 40 and dark[:48, 48:].sum() + dark[48:, :48].sum() < 5


def test_a_detector_takes_its_own_outline_order():
    """The photo settings give the detector their order; a detector built without one (the table's) follows
    ``crops.QUAD_METHODS``; an unknown finder is a clear error at construction."""
    from companion.vision.detector import CardDetector
    from companion.vision.settings import photo_settings

    assert CardDetector("french", **photo_settings()).quad_methods == ("edges", "paper", "table")
    assert CardDetector("french").quad_methods is None
    assert CardDetector("french", quad_methods="paper,edges").quad_methods == ("paper", "edges")
    with pytest.raises(ValueError, match="unknown outline finder"):
        CardDetector("french", quad_methods=("paper", "sides"))


def test_the_photo_evaluation_refuses_an_unknown_outline_finder(capsys):
    from companion.vision.evaluate import main

    with pytest.raises(SystemExit):
        main(["synthetic", "--quad", "corners", "--data", "/nonexistent"])
    assert "unknown outline finder" in capsys.readouterr().err
