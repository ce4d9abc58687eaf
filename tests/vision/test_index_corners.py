"""Where a printed deck shows its rank: the measurement, and the table the scenes label by."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.synth import index_corners
from companion.synth.art import Design, list_designs
from companion.synth.index_corners import (CORNERS, DESIGN_INDEX_CORNERS, FAMILY_CORNERS, corner_region,
                                           design_corners, measured_corners, rank_change)


def _drawn_deck(monkeypatch, where: tuple[str, ...], pips: bool = True) -> Design:
    """A French stand-in deck drawn here: its rank written in the corners ``where`` (turned with them), one
    pip per rank down the middle when ``pips``, a suit sign alone in the other corners."""

    def face(design, card):
        rank = card[:-1]
        img = np.full((360, 250, 4), 255, np.uint8)
        if pips:
            for k in range(int(rank) if rank.isdigit() else 1):
                cv2.circle(img, (125, 110 + 15 * k), 5, (0, 0, 0, 255), -1)
        for corner in CORNERS:
            turned = corner.startswith("bottom")
            patch = np.full((80, 48, 4), 255, np.uint8)
            if corner in where:
                cv2.putText(patch, rank, (2, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (0, 0, 0, 255), 3)
            else:
                cv2.circle(patch, (24, 40), 8, (0, 0, 0, 255), -1)  # a suit sign, the same on every card
            patch = patch[::-1, ::-1] if turned else patch
            y = 4 if corner.startswith("top") else 360 - 84
            x = 4 if corner.endswith("left") else 250 - 52
            img[y:y + 80, x:x + 48] = patch
        return img

    monkeypatch.setattr(index_corners, "card_image", face)
    return Design("drawn", "french", "aisleriot", None)  # type: ignore[arg-type]


@pytest.mark.parametrize("where", [("top-left", "bottom-right"), ("top-left",), ("top-right",), CORNERS])
def test_the_corners_whose_pixels_change_with_the_rank_are_found(monkeypatch, where):
    design = _drawn_deck(monkeypatch, where)
    assert measured_corners(design) == tuple(c for c in CORNERS if c in where)
    change = rank_change(design)
    assert all(change[c] < 1e-9 for c in CORNERS if c not in where)  # a suit sign alone does not change


def test_corner_regions_mirror_the_familys_top_left_one():
    top_left = corner_region("french", "top-left")
    assert np.allclose(top_left, [[0, 0], [0.2, 0], [0.2, 0.27], [0, 0.27]])
    assert np.allclose(corner_region("french", "bottom-right"), 1 - top_left)
    assert np.allclose(corner_region("french", "top-right").min(axis=0), [0.8, 0.0])
    assert np.allclose(corner_region("french", "bottom-left").max(axis=0), [0.2, 1.0])
    with pytest.raises(ValueError, match="unknown corner"):
        corner_region("french", "middle")
    assert design_corners("aisleriot-anglo") == FAMILY_CORNERS


# the decks the table names, the held-out ones, and those whose second index measures nearest the line
_CHECKED = sorted({*DESIGN_INDEX_CORNERS, "aisleriot-ornamental", "aisleriot-neoclassical_4_color",
                   "kde-jolly-royal", "kde-ancient-egyptians", "aisleriot-anglo"})


@pytest.mark.parametrize("name", _CHECKED)
def test_the_table_says_what_the_debian_art_measures(name):
    """The scenes label by the table (data, read at once); the art, measured, agrees with it."""
    design = next((d for d in list_designs("french") if d.name == name), None)
    if design is None:
        pytest.skip(f"{name} not installed (Debian gnome-cards-data / kdegames-card-data-kf5)")
    assert set(measured_corners(design)) == set(design_corners(name))


def test_the_dataset_command_reports_the_corners_and_marks_a_deck_the_table_gets_wrong(monkeypatch, capsys):
    from companion.cli import main

    deck = _drawn_deck(monkeypatch, ("top-right",))
    monkeypatch.setattr(index_corners, "list_designs", lambda family: (deck,))
    assert main(["dataset", "index-corners"]) == 1  # "drawn" is not in the table: the family's corners assumed
    assert "top-right:1.00" in capsys.readouterr().out
    monkeypatch.setitem(DESIGN_INDEX_CORNERS, "drawn", ("top-right",))
    assert main(["dataset", "index-corners", "--designs", "drawn"]) == 0
    assert "differs" not in capsys.readouterr().out


def test_a_deck_name_not_on_this_machine_is_a_clear_error_not_a_silent_pass(monkeypatch, capsys):
    from companion.cli import main

    deck = _drawn_deck(monkeypatch, ("top-left", "bottom-right"))
    monkeypatch.setattr(index_corners, "list_designs", lambda family: (deck,))
    assert main(["dataset", "index-corners", "--designs", "drawn", "kde-oxygen-whte"]) == 2
    out = capsys.readouterr()
    assert "no French deck named kde-oxygen-whte" in out.err and "drawn" in out.err
    assert out.out == ""  # nothing measured
