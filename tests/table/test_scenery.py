"""Scenery: the bare table's own readings, learned from the first frame (companion.table.scenery)."""

from __future__ import annotations

from companion.table.observations import BACK, Detection, FrameDetections
from companion.table.scenery import Scenery

A = (60.0, 360.0, 140.0, 440.0)
B = (540.0, 40.0, 620.0, 120.0)
ELSEWHERE = (300.0, 30.0, 360.0, 116.0)


def _frame(t: float, *dets: Detection) -> FrameDetections:
    return FrameDetections(t, dets, None, (640, 480))


def _labels(frame: FrameDetections) -> list[tuple[str, float]]:
    return [(d.label, d.confidence) for d in frame.detections]


def test_one_face_at_two_places_of_the_first_frame_is_the_table():
    scenery = Scenery()
    first = scenery.filter(_frame(0.0, Detection("1E", 0.45, A), Detection("1E", 0.3, B),
                                  Detection(BACK, 0.9, ELSEWHERE)))
    assert _labels(first) == [(BACK, 0.9)]
    later = scenery.filter(_frame(5.0, Detection("1E", 0.9, A), Detection("1E", 0.5, ELSEWHERE),
                                  Detection("1E", 0.8, ELSEWHERE), Detection("4C", 0.4, B)))
    # at its places whatever the confidence; elsewhere only while no surer than the table ever was (0.45 + 0.05);
    # another face at one of its places once surer than the table was read there (0.3 + 0.05)
    assert _labels(later) == [("1E", 0.8), ("4C", 0.4)]


def test_a_place_of_the_table_read_as_another_face_is_still_the_table():
    # rendered seed 37: a spot read 4E at three places of the first frame, then 10E at 0.02 at one of them,
    # which became a seat's play
    scenery = Scenery()
    scenery.filter(_frame(0.0, Detection("4E", 0.06, A), Detection("4E", 0.045, B)))
    over_b = (490.0, 0.0, 640.0, 170.0)  # a card put down over the spot boxes it whole: a place apart
    later = scenery.filter(_frame(0.6, Detection("10E", 0.02, B), Detection("5O", 0.08, A),
                                  Detection("7C", 0.5, A), Detection("2B", 0.08, over_b),
                                  Detection("10E", 0.02, ELSEWHERE), Detection(BACK, 0.05, B)))
    assert _labels(later) == [("7C", 0.5), ("2B", 0.08), ("10E", 0.02), (BACK, 0.05)]


def test_a_card_lying_on_the_table_when_the_stream_starts_is_a_card():
    scenery = Scenery()
    vira = Detection("5H", 0.4, A)
    boxed_twice = Detection("5H", 0.3, (65.0, 365.0, 140.0, 440.0))  # the same card boxed again: one place
    assert len(scenery.filter(_frame(0.0, vira, boxed_twice, Detection(BACK, 0.9, B))).detections) == 3
    assert not scenery.places_read
    assert len(scenery.filter(_frame(0.1, vira, Detection("5H", 0.3, ELSEWHERE))).detections) == 2


def test_a_face_barely_seen_and_barely_named_in_the_first_frame_is_the_table_there():
    # rendered seed 123: a small box of the bare table read 4E at 0.09 (presence 0.2) became the first card
    # of a hand nobody dealt, and the dealer was one off for the whole session
    scenery = Scenery()
    spot = Detection("4E", 0.09, A, 0.2)
    assert _labels(scenery.filter(_frame(0.0, spot))) == []
    later = scenery.filter(_frame(0.6, Detection("4E", 0.07, A, 0.17), Detection("10E", 0.1, A, 0.2),
                                  Detection("4E", 0.07, ELSEWHERE, 0.2), Detection("7C", 0.5, A, 0.6)))
    # at that place only, and only while no surer than the table was read there (0.09 + 0.05)
    assert _labels(later) == [("4E", 0.07), ("7C", 0.5)]


def test_a_card_boxed_surely_or_named_surely_in_the_first_frame_is_a_card():
    for card in (Detection("5H", 0.1, A, 0.5), Detection("5H", 0.4, A, 0.25)):
        scenery = Scenery()
        assert len(scenery.filter(_frame(0.0, card)).detections) == 1
        assert len(scenery.filter(_frame(0.1, Detection("5H", 0.1, A, 0.5))).detections) == 1


def test_a_card_outlined_where_the_table_was_not_is_a_card_put_down_on_the_cloth():
    # rendered seed 531: a small checked cloth read 1E at 17 places and 4E at 3 in the first frame, every square
    # outlined at 0; seat 0's real 4E (outlined 0.56, named 0.28) lay over one of them and was dropped as the table
    scenery = Scenery()
    scenery.filter(_frame(0.0, Detection("4E", 0.3, A, 0.5, (), 0.0), Detection("4E", 0.25, B, 0.5, (), 0.0)))
    later = scenery.filter(_frame(5.0, Detection("4E", 0.28, A, 0.3, (), 0.56), Detection("4E", 0.2, A, 0.5, (), 0.0),
                                  Detection("4E", 0.2, ELSEWHERE, 0.5, (), 0.6),
                                  Detection("4E", 0.2, ELSEWHERE, 0.5, (), 0.1),
                                  Detection("4E", 0.2, ELSEWHERE, 0.5, (), None),
                                  Detection("7C", 0.05, B, 0.3, (), 0.5), Detection("7C", 0.05, B, 0.3, (), 0.2)))
    # outlined (0.3 or more) is a card, at the table's places or elsewhere, as that face or another;
    # outlined less, or not measured, is the table as before
    assert [(d.label, d.outline) for d in later.detections] == [("4E", 0.56), ("4E", 0.6), ("7C", 0.5)]


def test_where_the_table_itself_was_outlined_an_outline_tells_nothing():
    for table_outline in (0.4, None):  # a pattern the outline model outlines; a stream recorded before outlines
        scenery = Scenery()
        scenery.filter(_frame(0.0, Detection("4E", 0.3, A, 0.5, (), table_outline),
                              Detection("4E", 0.25, B, 0.5, (), 0.0)))
        later = scenery.filter(_frame(5.0, Detection("4E", 0.28, A, 0.3, (), 0.9),
                                      Detection("4E", 0.2, ELSEWHERE, 0.5, (), 0.9),
                                      Detection("4E", 0.28, B, 0.3, (), 0.9),
                                      Detection("4E", 0.5, ELSEWHERE, 0.5, (), 0.9)))
        # one of the face's places was outlined (or not measured): the outline cannot tell a 4E from the table,
        # anywhere; a 4E surer than the table ever was, away from its places, is a card as before
        assert [(d.box, d.confidence) for d in later.detections] == [(ELSEWHERE, 0.5)]
    scenery = Scenery(spare_outline=None)  # the setting off: as before
    scenery.filter(_frame(0.0, Detection("4E", 0.3, A, 0.5, (), 0.0), Detection("4E", 0.25, B, 0.5, (), 0.0)))
    assert scenery.filter(_frame(5.0, Detection("4E", 0.28, A, 0.3, (), 0.9))).detections == ()
