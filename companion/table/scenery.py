"""Scenery: what the detector reads in the bare table itself, learned from the stream's first frame.

Why: a patterned cloth can look like a card to the detector.  On a rendered checked cloth it read
the same card, the 1E, at five places of the empty table before anyone dealt, and went on reading
it there and at new places all session; the tracker took one for the first play of the first hand
and every seat of that hand was one off (rendered seed 16, an Argentine session lost three hands).

A deck holds each card once, so one face read at two places or more of the opening frame is not
cards but the table.  Those readings are dropped for the rest of the stream: at the places it was
read, and anywhere no surer than the table was ever read as it (a real card of that name, put down
later, is read surer than a pattern).  Nothing else is learned: a card already lying on the table
when the stream starts (a vira turned before the companion was started) is a card, not scenery.

A face barely seen and barely named in the opening frame, at one place only, is the table's at that
place too (not elsewhere).  Why: on a rendered Argentine session a small box of the bare table
(a third of a card's size, seen at presence 0.2) was read 4E at 0.09 from the first frame; it
became the first card of a hand nobody dealt, and the dealer was one off for the rest of the
session (rendered seed 123, all four hands lost).  A card lying there when the stream starts is
boxed and named surer than that, and a surer reading there later is kept.

Such a place is the table whatever face it is read as later: a reading there no surer than the
opening frame's reading of it is dropped too.  Why: a weak reading of a pattern wanders between
faces.  On rendered seed 37 (an Argentine session, the Spanish corner model tried in session 23) a
spot read 4E at three places of the first frame was read 10E at 0.02 from the next second; as
another face it was kept, became a seat's play, and every seat after it was one off.

A card the outline model outlines, read where (or as what) the table was read with no outline
fitting, is a card put down on the cloth, not the cloth: it is kept.  Why: on a small checked
cloth (rendered seed 531, an Argentine session for six) the opening frame read 1E at 17 places and
4E at 3, every square outlined at 0; seat 0's real 4E, outlined at 0.56 but named only 0.28, lay
over one of those places and was dropped as the table, so the hand was scored on a square read
4E in another seat's zone.  Where the table's own readings were outlined (not measured, or
measured at ``bare_outline`` or more), nothing is spared: the outline cannot tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from companion.boxes import Box, iou
from companion.table.observations import BACK, Detection, FrameDetections


@dataclass
class Scenery:
    """Learns from the first frame it is given; then :meth:`filter` drops the table's own readings.

    ``places``: a face read this many times or more in the opening frame, at places apart, is the
    table's; ``apart_iou``: boxes overlapping less than this are two places; ``place_iou``: a later
    reading of that face overlapping one of its places this much is that place again; ``margin``:
    a reading elsewhere is the table's while no surer than its surest reading plus this;
    ``weak_presence``/``weak_name``: a face read at one place only, boxed under that presence and
    named under that probability, is the table's at that place (None: never); ``spare_outline``: a
    reading outlined this much or more is kept where every reading of the table it would be taken
    for was outlined under ``bare_outline`` (None: never kept so)."""

    places: int = 2
    apart_iou: float = 0.1
    place_iou: float = 0.3
    margin: float = 0.05
    weak_presence: float | None = 0.3
    weak_name: float = 0.2
    spare_outline: float | None = 0.3
    bare_outline: float = 0.05
    learned: bool = False
    # face -> where the bare table reads it, how surely, and how surely a card outline fits there
    places_read: dict[str, list[tuple[Box, float, float | None]]] = field(default_factory=dict)
    surest: dict[str, float] = field(default_factory=dict)  # face -> the surest of those readings
    weak_places: list[tuple[Box, float, float | None]] = field(default_factory=list)  # faint faces of the opening frame

    def learn(self, frame: FrameDetections) -> None:
        """Take the opening frame's faces read at ``places`` places or more as the table's."""
        self.learned = True
        by_label: dict[str, list[Detection]] = {}
        for det in frame.detections:
            if det.label != BACK:
                by_label.setdefault(det.label, []).append(det)
        for label, dets in by_label.items():
            apart: list[Detection] = []
            for det in sorted(dets, key=lambda d: -d.confidence):
                if all(iou(det.box, other.box) < self.apart_iou for other in apart):
                    apart.append(det)
            if len(apart) >= self.places:
                self.places_read[label] = [(d.box, d.confidence, d.outline) for d in apart]
                self.surest[label] = max(d.confidence for d in dets)
            elif self.weak_presence is not None:
                self.weak_places += [(d.box, d.confidence, d.outline) for d in dets
                                     if d.seen < self.weak_presence and d.confidence < self.weak_name]

    def _spared(self, outline: float | None, table_outlines: list[float | None]) -> bool:
        """Whether a reading outlined ``outline`` is a card put down on the table, whose readings it would be
        taken for were outlined ``table_outlines``."""
        if self.spare_outline is None or outline is None or outline < self.spare_outline:
            return False
        return all(o is not None and o < self.bare_outline for o in table_outlines)

    def is_scenery(self, label: str, confidence: float, box: Box, outline: float | None = None) -> bool:
        """Whether a reading is the table's: its face at one of its places, or anywhere no surer;
        any face at one of the table's places no surer than the opening frame read that place.
        Not a reading the outline model outlines where the table was not outlined (spare_outline)."""
        if label != BACK and any(confidence <= read + self.margin and iou(box, place) >= self.place_iou
                                 and not self._spared(outline, [o])
                                 for places in (*self.places_read.values(), self.weak_places)
                                 for place, read, o in places):
            return True
        places = self.places_read.get(label)
        if not places:
            return False
        if self._spared(outline, [o for _, _, o in places]):
            return False
        if confidence <= self.surest[label] + self.margin:
            return True
        return any(iou(box, place) >= self.place_iou for place, _, _ in places)

    def filter(self, frame: FrameDetections) -> FrameDetections:
        """``frame`` without the table's own readings (learning from it if it is the first)."""
        if not self.learned:
            self.learn(frame)
        if not self.places_read and not self.weak_places:
            return frame
        kept = tuple(d for d in frame.detections if not self.is_scenery(d.label, d.confidence, d.box, d.outline))
        if len(kept) == len(frame.detections):
            return frame
        return replace(frame, detections=kept)
