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
                                  Detection("1E", 0.8, ELSEWHERE), Detection("4C", 0.3, B)))
    # at its places whatever the confidence; elsewhere only while no surer than the table ever was (0.45 + 0.05)
    assert _labels(later) == [("1E", 0.8), ("4C", 0.3)]


def test_a_card_lying_on_the_table_when_the_stream_starts_is_a_card():
    scenery = Scenery()
    vira = Detection("5H", 0.4, A)
    boxed_twice = Detection("5H", 0.3, (65.0, 365.0, 140.0, 440.0))  # the same card boxed again: one place
    assert len(scenery.filter(_frame(0.0, vira, boxed_twice, Detection(BACK, 0.9, B))).detections) == 3
    assert not scenery.boxes
    assert len(scenery.filter(_frame(0.1, vira, Detection("5H", 0.3, ELSEWHERE))).detections) == 2
