"""The one box geometry the vision and table layers share."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.boxes import box_area, box_intersection, iou, scaled_box


def test_iou_of_known_boxes():
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0.0
    assert iou((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0  # touching edges share no area
    assert iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)
    assert iou((0, 0, 10, 10), (2, 2, 4, 4)) == pytest.approx(4 / 100)  # one inside the other
    assert box_intersection((0, 0, 10, 10), (5, 5, 20, 20)) == 25
    assert iou((0, 0, 0, 0), (0, 0, 0, 0)) == 0.0  # empty boxes are no match, not a division by zero


def test_box_area_is_zero_for_an_empty_or_inverted_box():
    assert box_area((2, 3, 12, 8)) == 50
    assert box_area((0, 0, 0, 10)) == 0.0
    assert box_area((10, 10, 0, 0)) == 0.0  # inverted: no area, not a positive product of two negatives


coord = st.floats(0, 1000, allow_nan=False)


@st.composite
def boxes(draw):
    x1, x2 = sorted((draw(coord), draw(coord)))
    y1, y2 = sorted((draw(coord), draw(coord)))
    return (x1, y1, x2, y2)


@given(boxes(), boxes())
def test_iou_is_symmetric_and_between_zero_and_one(a, b):
    assert iou(a, b) == pytest.approx(iou(b, a))
    assert 0.0 <= iou(a, b) <= 1.0 + 1e-9
    assert box_intersection(a, b) <= min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1])) + 1e-6


@given(coord, coord, st.floats(1, 500), st.floats(1, 500), st.floats(0.5, 1.0))
def test_a_scaled_box_keeps_its_centre_and_scales_its_sides(x, y, w, h, factor):
    a = (x, y, x + w, y + h)
    b = scaled_box(a, factor)
    assert (b[0] + b[2]) / 2 == pytest.approx((a[0] + a[2]) / 2)
    assert (b[1] + b[3]) / 2 == pytest.approx((a[1] + a[3]) / 2)
    assert b[2] - b[0] == pytest.approx(w * factor) and b[3] - b[1] == pytest.approx(h * factor)
    assert box_intersection(a, b) == pytest.approx(box_area(b))  # drawn in, it lies inside the box it came from
