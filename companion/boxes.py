"""Axis-aligned boxes, the one geometry every layer shares.

Vision scores its detections against labelled boxes and the table matches
detections frame to frame by the same measure; both read it from here, so
neither layer has to import the other's module for it.
"""

from __future__ import annotations

Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels


def box_area(a: Box) -> float:
    """A box's area (0 for an empty or inverted one)."""
    return max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1])


def box_intersection(a: Box, b: Box) -> float:
    """The area two boxes share (0 when apart)."""
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    return max(0.0, x2 - x1) * max(0.0, y2 - y1)


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes: how far two detections are the same card."""
    inter = box_intersection(a, b)
    if inter <= 0:
        return 0.0
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area if area > 0 else 0.0


def inside_share(a: Box, b: Box) -> float:
    """How much of box ``a`` lies inside box ``b`` (0..1; 0 for an empty ``a``)."""
    area = (a[2] - a[0]) * (a[3] - a[1])
    return box_intersection(a, b) / area if area > 0 else 0.0


def scaled_box(a: Box, factor: float) -> Box:
    """``a`` with its width and height times ``factor``, about the same centre."""
    cx, cy = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
    half_w, half_h = (a[2] - a[0]) * factor / 2, (a[3] - a[1]) * factor / 2
    return (cx - half_w, cy - half_h, cx + half_w, cy + half_h)
