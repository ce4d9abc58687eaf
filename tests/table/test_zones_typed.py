"""Seat zones from a calibration, and events typed at the table."""

from __future__ import annotations


import pytest

from companion.commands.calibrate import clockwise_from
from companion.table.typed import TypedEventError, parse_typed
from companion.table.zones import (CENTRE, Calibration, Zones, auto_calibration, load_calibration,
                                   save_calibration)


def test_four_seats_anticlockwise_from_the_bottom():
    zones = Zones(Calibration((320, 240), (320, 400), 4, (640, 480)))
    assert zones.zone_of((320, 420)) == 0
    assert zones.zone_of((520, 240)) == 1  # anticlockwise seen from above = to the right of seat 0
    assert zones.zone_of((320, 40)) == 2
    assert zones.zone_of((100, 240)) == 3
    assert zones.zone_of((330, 250)) == CENTRE


def test_mirrored_camera_and_six_players():
    zones = Zones(Calibration((0, 0), (0, 100), 6, None, None, True))
    for seat in range(6):
        x, y = zones.seat_point(seat)
        assert zones.zone_of((x, y)) == seat
    assert zones.zone_of((87, 50)) == 5  # clockwise: seat 1 is on the left of seat 0


def test_angular_offset_tells_the_border_from_the_middle():
    zones = Zones(Calibration((0, 0), (0, 100), 4))
    assert zones.angular_offset((0, 100), 0) == pytest.approx(0.0)
    assert zones.angular_offset((100, 100), 0) == pytest.approx(0.5)


def test_calibration_round_trip_and_scaling(tmp_path):
    cal = Calibration((320, 240), (320, 400), 4, (640, 480))
    path = save_calibration(cal, tmp_path / "cal.json")
    assert load_calibration(path) == cal
    big = cal.scaled_to((1280, 960))
    assert big.centre == (640, 480) and big.seat0 == (640, 800)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid"):
        load_calibration(tmp_path / "bad.json")
    with pytest.raises(FileNotFoundError):
        load_calibration(tmp_path / "missing.json")


def test_auto_calibration_uses_the_deck_and_the_bottom_edge():
    cal = auto_calibration((640, 480), 4, deck_center=(300, 250))
    assert cal.centre == (300, 250) and cal.seat0[1] > 250 and cal.source == "auto"


def test_polygons_cover_each_seat_point():
    import cv2

    zones = Zones(Calibration((320, 240), (320, 400), 4, (640, 480)))
    polys = zones.polygons()
    for seat in range(4):
        x, y = zones.seat_point(seat)
        assert cv2.pointPolygonTest(polys[seat].reshape(-1, 1, 2).astype("float32"), (x, y), False) > 0


def test_calibrate_direction_of_play_from_three_clicks():
    assert not clockwise_from((0, 0), (0, 100), (100, 0))  # seat 1 to the right: anticlockwise
    assert clockwise_from((0, 0), (0, 100), (-100, 0))


@pytest.mark.parametrize("text,event", [
    ("play 2 4c", {"type": "play", "seat": 2, "card": "4C"}),
    ("play 1 covered", {"type": "play", "seat": 1, "covered": True}),
    ("raise 0", {"type": "raise", "seat": 0}),
    ("raise 3 6", {"type": "raise", "seat": 3, "to": 6}),
    ("points 1 28", {"type": "points", "seat": 1, "points": 28}),
    ("envido 0 real_envido", {"type": "envido", "seat": 0, "kind": "real_envido"}),
    ("eleven 1 run", {"type": "eleven", "team": 1, "decision": "run"}),
    ("hand 3 7h", {"type": "hand", "dealer": 3, "vira": "7H"}),
    ("undo", {"type": "undo"}),
    ('{"type": "fold", "seat": 2}', {"type": "fold", "seat": 2}),
])
def test_typed_short_forms(text, event):
    assert parse_typed(text) == event


@pytest.mark.parametrize("text", ["", "play", "play x 4C", "dance 1", "eleven 0 maybe", "{oops"])
def test_typed_mistakes_are_explained(text):
    with pytest.raises(TypedEventError):
        parse_typed(text)
