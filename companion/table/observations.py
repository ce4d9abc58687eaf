"""Plain data passed between the perception layers and the table tracker.

Everything here is serialisable to JSON so that a detection stream can be
recorded once (from a camera, a video or a rendered session) and replayed
into the tracker in tests without a detector, and so that a session's
proposals can be written beside its table log for evaluation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion.boxes import Box

BACK = "back"  # label of a face-down card (the deck, or a covered play)
# What boxed a card (Detection.found_by): the detector, or a card outline no detector box covered (the outline
# finders', or the outline model's: companion.vision.detector.CardDetector.find_boxes)
DETECTOR = "detector"
OUTLINE = "outline"
# Streams recorded before session 76 carry no ``found_by``: an outline's box was told by this presence alone (the
# vision layer's OUTLINE_SCORE then), and a stream read without the key is read so
LEGACY_OUTLINE_PRESENCE = 0.5


@dataclass(frozen=True)
class Detection:
    """One card seen in one frame: its notation (or ``"back"``), how sure the
    detector is, and where it lies.

    ``presence``: how sure the detector is that *a* card lies there, whatever it
    is (None: the same as ``confidence``).  A card surely there but hard to name
    must still be tracked, and asked about, not ignored: missing the vira or a
    play derails the whole hand.  ``alternatives``: the next readings of the same
    card, (label, confidence), best first, for when the best one is impossible.
    ``outline``: how surely the outline model outlines a card in that box (0.0: no outline fits it; None:
    not measured, as in streams recorded before session 67).  A back nothing outlines, away from the deck,
    is the cloth, not a card (:attr:`companion.table.tracker.TrackerConfig.back_outline`).
    ``found_by``: ``DETECTOR``, or ``OUTLINE`` for a box no detector box covered, boxed by a card outline
    alone: such a face the outline model does not outline is a square of the cloth
    (:attr:`companion.table.tracker.TrackerConfig.finder_outline`).
    """

    label: str
    confidence: float
    box: Box
    presence: float | None = None
    alternatives: tuple[tuple[str, float], ...] = ()
    outline: float | None = None
    found_by: str = DETECTOR

    def __post_init__(self) -> None:
        if self.found_by not in (DETECTOR, OUTLINE):
            raise ValueError(f"a detection is found by {DETECTOR!r} or {OUTLINE!r}, got {self.found_by!r}")

    @property
    def seen(self) -> float:
        """The detector's confidence that a card is there (what decides tracking)."""
        return self.confidence if self.presence is None else self.presence

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    @property
    def size(self) -> float:
        """A length scale for the card (geometric mean of the box sides)."""
        x1, y1, x2, y2 = self.box
        return max(1.0, ((x2 - x1) * (y2 - y1)) ** 0.5)

    def to_dict(self) -> dict[str, Any]:
        """As a recorded stream stores it: close enough that a replay decides what the live run did.

        Why not fewer digits: with confidences rounded to 4 decimals and boxes to 0.1 px, a replay of
        rendered seed 8's recorded stream kept a card the video run had renamed at a threshold, and
        scored one hand fewer; at 7 decimals and 0.0001 px it scores what the video run scored."""
        out: dict[str, Any] = {"label": self.label, "confidence": round(float(self.confidence), 7),
                               "box": [round(float(v), 4) for v in self.box]}
        if self.presence is not None:
            out["presence"] = round(float(self.presence), 7)
        if self.alternatives:
            out["alternatives"] = [[k, round(float(c), 7)] for k, c in self.alternatives]
        if self.outline is not None:
            out["outline"] = round(float(self.outline), 7)
        if self.found_by != DETECTOR or out.get("presence") == LEGACY_OUTLINE_PRESENCE:
            out["found_by"] = self.found_by  # (written where a reader of old streams would guess it wrong)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Detection:
        box = tuple(float(v) for v in data["box"])
        if len(box) != 4:
            raise ValueError(f"a detection box needs 4 numbers, got {data['box']!r}")
        presence = data.get("presence")
        alternatives = tuple((str(k), float(c)) for k, c in data.get("alternatives", ()))
        outline = data.get("outline")
        found_by = data.get("found_by")
        if found_by is None:  # a stream recorded before session 76 (or a detector box: the key is left out)
            found_by = OUTLINE if presence is not None and float(presence) == LEGACY_OUTLINE_PRESENCE else DETECTOR
        return cls(str(data["label"]), float(data["confidence"]), box,  # type: ignore[arg-type]
                   None if presence is None else float(presence), alternatives,
                   None if outline is None else float(outline), str(found_by))


@dataclass(frozen=True)
class FrameDetections:
    """Everything the detector found in the frame taken at stream time ``t``
    (seconds from the start of the session)."""

    t: float
    detections: tuple[Detection, ...] = ()
    frame_index: int | None = None
    image_size: tuple[int, int] | None = None  # (width, height)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": round(self.t, 4), "detections": [d.to_dict() for d in self.detections]}
        if self.frame_index is not None:
            out["frame"] = self.frame_index
        if self.image_size is not None:
            out["size"] = list(self.image_size)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FrameDetections:
        size = data.get("size")
        return cls(
            t=float(data["t"]),
            detections=tuple(Detection.from_dict(d) for d in data.get("detections", ())),
            frame_index=data.get("frame"),
            image_size=(int(size[0]), int(size[1])) if size else None,
        )


@dataclass(frozen=True)
class VoiceObservation:
    """Something heard at stream time ``t``.

    ``words`` is what the recogniser (or a timed transcript) gave.  ``events``
    are table-log events the speech layer matched, each with its own
    ``confidence`` and ``decision`` (``apply`` / ``confirm`` / ``ignore``);
    ``answer`` is ``"yes"`` / ``"no"`` when the words were a confirmation
    word (sim / não, sí / no) rather than a call.
    """

    t: float
    words: str = ""
    events: tuple[dict[str, Any], ...] = ()
    answer: str | None = None
    t_end: float | None = None
    source: str = "transcript"  # "audio" | "transcript"

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if v not in (None, (), "")}
        out["t"] = round(self.t, 4)
        out["events"] = list(self.events)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VoiceObservation:
        return cls(
            t=float(data["t"]),
            words=str(data.get("words", data.get("text", ""))),
            events=tuple(data.get("events", ())),
            answer=data.get("answer"),
            t_end=data.get("t_end"),
            source=str(data.get("source", "transcript")),
        )


@dataclass
class Proposal:
    """A table-log event someone (the tracker, the speech layer, a key) says
    happened at stream time ``t``, with how sure it is and why it may need a
    human's word before it goes into the log.

    ``flags`` name the doubts: ``low_confidence``, ``wrong_seat``, ``no_turn``,
    ``duplicate``, ``not_in_deck``, ``vira_outside_centre``, ``table_cleared``,
    ``new_deal`` (a hand closed because the next deal began), ``after_hand`` (a
    card put down once the hand was over), ``by_deck`` (a barely readable face-up
    card by the deck during a hand: a ghost of the deck or the vira, shown only),
    ``pile`` (a box over or inside cards already played, shown only), ``twin_box`` (a second box of a card
    being put down, shown only), ``ghost`` (a back where none may lie face down, out of turn, with no face
    read in it, shown only),
    ``reread`` (decided on a runner-up reading), ``speech_confirm``, ``illegal``, ``unseen``
    (a covered play the camera never saw, put in by fusion before the next card: Fusion._unseen_covered),
    ``inferred`` (a decision nobody was heard making that the next card implies: Fusion._implied_by_play).  A
    *blocking* proposal holds every later one until it is confirmed or rejected
    (the log never goes out of order);
    a non-blocking one (an impossible card) is only shown.
    """

    event: dict[str, Any]
    t: float
    confidence: float = 1.0
    source: str = "vision"
    flags: list[str] = field(default_factory=list)
    reason: str = ""
    blocking: bool = True
    emitted_t: float | None = None
    id: int = 0
    box: Box | None = None
    words: Any = None  # heard words not yet interpreted (``event`` is then {"type": "words"})
    zone: int | None = None  # seat zone a card lies in (-1: the middle), for the seat check
    said: Any = None  # the words a voice proposal was interpreted from (to interpret them again)
    alternatives: list[str] = field(default_factory=list)  # other readings of the card, best first
    settled: bool = False  # applied or rejected (set by fusion): its event can no longer change
    rejected_by: str | None = None  # the table rejected it, by this means ("key", "voice"...; set by fusion.reject)
    # a card applied while it still settles (see Fusion.settling): until this stream time the tracker
    # keeps reading it, and a reading that changes renames it in the log (None: closed)
    open_until: float | None = None
    # a card read as one already in the hand, which the other card gives up (see companion.table.amend):
    # (the name the card applied earlier takes, this card's own name should that not go in -- None: none)
    retakes: tuple[str, str | None] | None = None

    @property
    def sure(self) -> bool:
        return not self.flags

    def describe(self) -> str:
        text = describe_event(self.event)
        if self.reason:
            text += f" ({self.reason})"
        if self.alternatives:
            text += " [or " + ", ".join(f"{k}: {card}" for k, card in enumerate(self.alternatives, 1)) + "]"
        return text

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["words"] = None if self.words is None else str(self.words)
        out["said"] = None if self.said is None else str(self.said)
        out["t"] = round(self.t, 4)
        out["confidence"] = round(self.confidence, 4)
        if self.emitted_t is not None:
            out["emitted_t"] = round(self.emitted_t, 4)
        return out


CARD_EVENTS = ("play", "hand")  # the events a camera card goes in with (see card_key)


def card_key(event: dict[str, Any]) -> str:
    """Where a camera card sits in its event: a new hand's ``vira``, or a play's ``card``."""
    return "vira" if event.get("type") == "hand" else "card"


def seat_choice(seat: int) -> str:
    """How a seat is offered among a call's alternatives ("seat 2": both teams could have made the call,
    see ``Fusion.choose``)."""
    return f"seat {seat}"


def chosen_seat(choice: str) -> int:
    """The seat a :func:`seat_choice` names."""
    return int(choice.removeprefix("seat "))


def describe_event(event: dict[str, Any]) -> str:
    """A short human reading of a table-log event, for screens and prints."""
    kind = event.get("type", "?")
    seat = event.get("seat")
    who = f"seat {seat}" if seat is not None else (f"team {event['team']}" if "team" in event else "")
    if kind == "play":
        card = "a covered card" if event.get("covered") else event.get("card", "?")
        return f"{who} plays {card}"
    if kind == "hand":
        vira = f", vira {event['vira']}" if event.get("vira") else ""
        return f"new hand, dealer {event.get('dealer')}{vira}"
    if kind == "raise":
        return f"{who} raises" + (f" to {event['to']}" if "to" in event else "")
    if kind in ("envido", "flor"):
        return f"{who} calls {event.get('kind', kind).replace('_', ' ')}"
    if kind == "points":
        return f"{who} has {event.get('points')}"
    if kind == "eleven":
        return f"{who} decides to {event.get('decision')}"
    if kind == "note":
        return f"note: {event.get('text', '')}"
    if kind == "undo":
        return "undo"
    if kind == "rename":  # not a table-log event: the tracker reads a card of the hand again
        return f"{event.get('card')} read again as {event.get('name')}"
    return f"{who} {kind}".strip()


# --- recorded detection streams -------------------------------------------------------------

def write_stream(path: str | Path, frames: Iterable[FrameDetections], **header: Any) -> None:
    """Write a detection stream as JSON Lines: an optional header line
    (``{"stream": {...}}``) then one frame per line."""
    with open(path, "w", encoding="utf-8") as fh:
        if header:
            fh.write(json.dumps({"stream": header}) + "\n")
        for frame in frames:
            fh.write(json.dumps(frame.to_dict()) + "\n")


def read_stream(path: str | Path) -> tuple[dict[str, Any], list[FrameDetections]]:
    """Read a stream written by :func:`write_stream` (header, frames)."""
    header: dict[str, Any] = {}
    frames: list[FrameDetections] = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{lineno}: not JSON: {err}") from None
        if "stream" in data:
            header = data["stream"]
            continue
        try:
            frames.append(FrameDetections.from_dict(data))
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path}:{lineno}: not a frame of detections: {err!r}") from None
    return header, frames


def iter_timeline(frames: Sequence[FrameDetections],
                  voices: Sequence[VoiceObservation]) -> Iterator[FrameDetections | VoiceObservation]:
    """Frames and voice observations merged by time (voice first on ties, so
    a word said at the instant a frame is taken is known when it is read)."""
    items: list[tuple[float, int, int, FrameDetections | VoiceObservation]] = []
    items += [(v.t, 0, i, v) for i, v in enumerate(voices)]
    items += [(f.t, 1, i, f) for i, f in enumerate(frames)]
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    for *_, item in items:
        yield item
