"""Boxes the frame cuts, read grown to a card's shape (companion.vision.crops.edge_grown_boxes, CardDetector's
``edge_crops``): the part of the card in the frame stays where it is, only the cut side grows, and the crop shows
grey where the frame cut the card off instead of the visible part squashed square."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.vision.crops import CROP_JITTER, CROP_PAD, crop_card, edge_grown_boxes, pad_frame

SHAPE = (480, 640, 3)


def test_a_box_cut_at_one_edge_grows_past_it_to_a_cards_shape():
    boxes = np.array([
        [0, 100, 40, 190],      # cut at the left, 40 wide for 90 tall: grows left to 63
        [300, 0, 360, 30],      # cut at the top, 30 tall for 60 wide: grows up to 42
        [610, 300, 640, 400],   # cut at the right: grows right to 70
        [200, 100, 260, 140],   # inside the frame: as it is
        [577, 10, 640, 100],    # cut at the right but already a card's width for its height: as it is
        [0, 0, 30, 30],         # cut at a corner: no whole side to size it by
        [0, 0, 640, 50],        # cut at both sides: as it is
        [0, 300, 65, 370],      # cut at the left, 65 wide for 70 tall: a card lying across or one cut short, no
                                # telling which: as it is
    ], dtype=float)
    grown, margin = edge_grown_boxes(boxes, SHAPE, 0.7)
    np.testing.assert_allclose(grown[0], [40 - 90 * 0.7, 100, 40, 190])
    np.testing.assert_allclose(grown[1], [300, 30 - 60 * 0.7, 360, 30])
    np.testing.assert_allclose(grown[2], [610, 300, 610 + 100 * 0.7, 400])
    np.testing.assert_allclose(grown[3:], boxes[3:])
    # the furthest a grown box's crop reaches past the frame: the right one, 40 px, and crop_card's margin and
    # training jitter (9 % of its long side, 100 px; the left one reaches 23 + 8.1, the top one 12 + 5.4)
    assert margin == 49


def test_nothing_to_grow_needs_no_padding():
    boxes = np.array([[10, 10, 80, 110], [100, 100, 170, 200]], dtype=float)
    grown, margin = edge_grown_boxes(boxes, SHAPE, 0.7)
    np.testing.assert_array_equal(grown, boxes)
    assert margin == 0 and pad_frame(np.zeros(SHAPE, np.uint8), 0).shape == SHAPE
    assert edge_grown_boxes(np.zeros((0, 4)), SHAPE, 0.7)[1] == 0


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 600), st.floats(0, 440), st.floats(5, 300), st.floats(5, 300))
def test_growing_keeps_what_the_frame_shows_and_the_padding_holds_it(x, y, w, h):
    box = np.array([[x, y, min(640.0, x + w), min(480.0, y + h)]])
    grown, margin = edge_grown_boxes(box, SHAPE, 0.7)
    g = grown[0]
    # clipped to the frame, the grown box is the box (a box within a pixel of the edge counts as cut by it): the
    # card's visible part is read where it is
    np.testing.assert_allclose([max(g[0], 0), max(g[1], 0), min(g[2], 640), min(g[3], 480)], box[0], atol=1.0)
    assert g[0] >= -margin and g[1] >= -margin and g[2] <= 640 + margin and g[3] <= 480 + margin
    grew = not np.allclose(g, box[0])
    if grew:  # only a box cut on one side of one axis grows, to a card's short side for its other side
        width, height = g[2] - g[0], g[3] - g[1]
        assert np.isclose(width, height * 0.7) or np.isclose(height, width * 0.7)
        # and its crop, margin and training jitter included, lies inside the padded image: never clipped
        slack = (CROP_PAD + CROP_JITTER) * max(width, height)
        assert min(g[0], g[1]) - slack >= -margin - 1e-6
        assert g[2] + slack <= 640 + margin + 1e-6 and g[3] + slack <= 480 + margin + 1e-6
    else:
        assert margin == 0


def test_the_crop_of_a_grown_box_shows_grey_where_the_frame_cut_the_card():
    image = np.full(SHAPE, 255, np.uint8)  # a white card filling the frame's left edge
    box = np.array([[0, 100, 35, 200]], dtype=float)  # 35 of its 70 pixels' width in the frame
    grown, margin = edge_grown_boxes(box, SHAPE, 0.7)
    crop = crop_card(pad_frame(image, margin), tuple(grown[0] + margin), 96)
    assert crop is not None
    row = crop[48, :, 0]
    assert (row[:40] == 114).all() and (row[56:] == 255).all()  # grey on the cut half, the card on the other
    squashed = crop_card(image, tuple(box[0]), 96)
    assert (squashed[48, 5:, 0] == 255).all()  # read as it was, the half card fills the crop


def test_the_detector_reads_cut_boxes_grown_and_the_rest_as_before():
    """With ``edge_crops`` a box inside the frame is read exactly as without it, and a box the frame cuts is read
    from its grown crop: a fixture card cut in half by the frame is read differently, and still read."""
    import json
    from pathlib import Path

    from companion.vision.detector import CardDetector, read_image

    fixtures = Path(__file__).resolve().parents[2] / "datasets" / "fixtures"
    rec = json.loads((fixtures / "fixtures.json").read_text())[0]
    image = read_image(fixtures / rec["image"])
    plain, grown = CardDetector("french"), CardDetector("french", edge_crops=True)
    inside = np.array([c["box"] for c in rec["cards"]], dtype=float)
    assert not edge_grown_boxes(inside, image.shape, 0.68)[1]  # no fixture card touches the frame
    assert plain.readings(image, inside) == grown.readings(image, inside)
    x1, y1, x2, y2 = inside[0]
    half = image[:, int((x1 + x2) / 2):]  # the frame now cuts the first card down its middle
    cut = np.array([[0.0, y1, x2 - int((x1 + x2) / 2), y2]])
    a, b = plain.readings(half, cut), grown.readings(half, cut)
    assert a and b and a[0] and b[0] and a != b


def test_training_crops_of_cut_cards_can_be_cut_grown_as_the_detector_reads_them(tmp_path):
    """``write_crops(edge_grown=...)`` (``companion dataset recrop --edge-grown``): a card the frame cuts is cut
    from its box grown past the frame, grey where the frame ends, the crop ``CardDetector(edge_crops=True)``
    reads; a card inside the frame is cut as before, the same pixels."""
    import cv2

    from companion.synth.build import write_crops

    image = np.full((240, 320, 3), 255, np.uint8)
    cards = [("QH", (0.0, 20.0, 35.0, 120.0), 1.0, 1.0),     # cut by the left edge: 35 of its 70 pixels
             ("7S", (150.0, 20.0, 220.0, 120.0), 1.0, 1.0)]  # inside the frame
    for name, grown in (("plain", None), ("grown", 0.7)):
        assert write_crops(image, cards, tmp_path / name, "s", 96, np.random.default_rng(0), edge_grown=grown) == 2
    read = {(name, card): cv2.imread(str(tmp_path / name / card / f"s_{k}.jpg"))
            for name in ("plain", "grown") for k, card in enumerate(("QH", "7S"))}
    assert (read["plain", "QH"][48, 10:86, 0] > 200).all()  # squashed: the half card fills the crop
    assert (np.abs(read["grown", "QH"][48, 5:30, 0].astype(int) - 114) < 20).all()  # grown: grey where cut
    assert np.array_equal(read["plain", "7S"], read["grown", "7S"])


def test_a_card_can_be_cut_as_if_the_frame_cut_it_and_is_read_grown():
    """``edge_cut_crop`` (``recrop --edge-cut``): the scene's card with a frame edge moved through it, its box
    clipped and grown back as the detector's ``edge_crops`` reads it: grey on one side where the frame would end,
    the card's own pixels on the rest, at most half of it gone along the cut axis."""
    from companion.synth.build import EDGE_CUT_SHARE, edge_cut_crop

    image = np.zeros((240, 320, 3), np.uint8)
    image[20:120, 150:220] = 255  # a white card 70 x 100 on a black table
    greys = []
    for seed in range(40):
        crop = edge_cut_crop(image, (150.0, 20.0, 220.0, 120.0), 0.7, 96, np.random.default_rng(seed))
        assert crop is not None and crop.shape == (96, 96, 3)
        grey = np.abs(crop[..., 0].astype(int) - 114) < 8
        white = crop[..., 0] > 200
        assert white.mean() > 0.35  # at least half the card stays in view (less the margins and jitter)
        greys.append(grey.mean())
    # cut across its long side the card's short side is grown back (grey shows); cut across its short side, the
    # box keeps a card's short side, looks like a card lying across, and is not grown
    assert max(greys) > 0.1 and min(greys) < 0.02
    assert 8 < sum(g > 0.05 for g in greys) < 32
    assert EDGE_CUT_SHARE[1] <= 0.5


def test_recrop_edge_cut_adds_cut_crops_and_needs_grown_boxes(tmp_path):
    """``write_crops(edge_cut=1.0)`` writes each card twice, itself and cut by a frame edge (``_<k>e.jpg``), in
    its own class folder; ``recrop --edge-cut`` without ``--edge-grown`` is refused, nothing written."""
    from companion.cli import main as cli
    from companion.synth.build import write_crops

    image = np.full((240, 320, 3), 60, np.uint8)
    image[20:120, 150:220] = 255
    cards = [("QH", (150.0, 20.0, 220.0, 120.0), 1.0, 1.0)]
    assert write_crops(image, cards, tmp_path / "c", "s", 96, np.random.default_rng(0), edge_grown=0.7,
                       edge_cut=1.0) == 2
    assert sorted(p.name for p in (tmp_path / "c" / "QH").iterdir()) == ["s_0.jpg", "s_0e.jpg"]
    assert write_crops(image, cards, tmp_path / "d", "s", 96, np.random.default_rng(0), edge_grown=0.7) == 1
    assert cli(["dataset", "recrop", "--family", "french", "--data", str(tmp_path), "--out", str(tmp_path / "o"),
                "--edge-cut", "0.5"]) == 2
    assert cli(["dataset", "recrop", "--family", "french", "--data", str(tmp_path), "--out", str(tmp_path / "o"),
                "--edge-cut", "1.5", "--edge-grown"]) == 2  # a share over 1: an error, not a traceback
    assert not (tmp_path / "o").exists()


def test_recrop_upright_share_adds_the_covered_card_turned_upright(tmp_path):
    """``write_crops(upright_share=1.0)`` also writes each partly covered card cut upright from its true outline
    (``_<k>u.jpg``: long side up, as ``whole_upright`` reads it), not a card in full view nor one with no outline;
    at 0 it draws no random number, so the crops are cut as before; a share outside [0, 1] is refused."""
    import cv2

    from companion.cli import main as cli
    from companion.synth.build import write_crops

    image = np.full((240, 320, 3), 60, np.uint8)
    quad = np.float32([[160, 40], [230, 80], [190, 150], [120, 110]])  # a card lying tilted
    cv2.fillPoly(image, [quad.astype(np.int32)], (255, 255, 255))
    box = (120.0, 40.0, 230.0, 150.0)
    cards = [("QH", box, 0.7, 1.0), ("KS", box, 1.0, 1.0), ("2C", box, 0.7, 1.0)]
    quads = [quad.tolist(), quad.tolist(), None]
    assert write_crops(image, cards, tmp_path / "c", "s", 96, np.random.default_rng(0), covered=True, quads=quads,
                       upright_share=1.0) == 4
    assert sorted(p.name for p in (tmp_path / "c" / "QH").iterdir()) == ["s_0.jpg", "s_0u.jpg"]
    assert sorted(p.name for p in (tmp_path / "c" / "KS").iterdir()) == ["s_1.jpg"]
    assert sorted(p.name for p in (tmp_path / "c" / "2C").iterdir()) == ["s_2.jpg"]
    turned = cv2.imread(str(tmp_path / "c" / "QH" / "s_0u.jpg"))
    assert turned.shape == (96, 96, 3) and turned[20:76, 20:76].mean() > 200  # the card fills it, upright
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    write_crops(image, cards, tmp_path / "d", "s", 96, rng_a, covered=True, quads=quads)
    write_crops(image, cards, tmp_path / "e", "s", 96, rng_b, covered=True)
    assert rng_a.random() == rng_b.random()  # no draw at 0
    assert cli(["dataset", "recrop", "--family", "french", "--data", str(tmp_path), "--out", str(tmp_path / "o"),
                "--upright-share", "1.5"]) == 2
    assert not (tmp_path / "o").exists()
