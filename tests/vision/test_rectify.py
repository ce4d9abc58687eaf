"""Cards turned upright before their corners are read (crops.card_quad, crops.rectified_crop)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

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
