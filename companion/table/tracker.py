"""Table tracker: per-frame card detections become proposed table-log events.

The tracker is pure: it sees detection frames and a :class:`TableView` (what
the engine, with everything already proposed, says about the table: whose
turn it is, which cards are out, whether a hand is running) and hands
:class:`~companion.table.observations.Proposal` objects to a ``submit``
callback.  It never touches the engine, so it can be tested on recorded
detection streams with a fake view.

How a detection becomes an event:

* The bare table's own readings are dropped first (:mod:`companion.table.scenery`:
  one face read at two places of the first frame is a patterned cloth, not cards, and so are those
  places while read no surer, as whatever face, unless a card outline fits where it fitted none); so are
  the backs no card outline fits away from the deck, where a frame holds several (``back_outline``: a
  chequered cloth's pale squares, read as backs), and the faces only the outline finders boxed that no
  card outline fits (``finder_outline``: the same squares, found as card-shaped paper and named).
* Detections are associated with *tracks* frame to frame by box overlap,
  whatever label the detector gave this time; a track's label is the
  confidence-weighted vote of its detections.  A card counts once it was
  seen in ``min_frames`` frames (hysteresis: a single false positive never
  counts, a card flickering out for a few frames keeps its track).
* Weak detections (presence between ``weak_confidence`` and
  ``min_detection_confidence``) keep a card's track going; a card seen only
  weakly counts after ``weak_frames``, and a weak box mostly inside a surer one
  is part of that card, unless a card already tracked lies there (``still_there_iou``:
  the surer box is a new card put down over it).  A card the detector barely sees for seconds is still
  a card, and losing it gives every later card of the hand the wrong seat.
  A card read under ``settle_confidence`` is given ``2 x min_frames`` first.
* Every card accounted for in a hand leaves an *anchor* (label + place).  A
  track that becomes stable on an anchor is the same card seen again (after
  an occlusion, a flicker longer than the track's patience) and is silent.
* A stable face-up card then becomes, in order: the vira (no hand running,
  variant turns a vira, card in the middle of the table), the first play of a
  new hand (no vira in the variant), or a play of the seat whose turn the
  engine says it is.  A back in the middle is the deck; a back in a seat zone
  during a hand is a covered play, unless the rules forbid one there and then
  (``TableView.face_down_ok``): then it is a misread face, and its likeliest
  face is asked about (``reread``).  A barely readable face-up card by the
  deck during a hand is a ghost of the deck or the vira (``by_deck``: shown).
* Doubts become flags, never silent fixes: a card not in the variant's deck
  or already out in this hand (``not_in_deck``, ``duplicate``: shown, not
  applied), a card lying in another seat's zone than the turn says
  (``wrong_seat``), a card when no seat is due (``no_turn``), a weak vote
  (``low_confidence``), a vira outside the middle.
* Two boxes first seen in the same frame in one seat's zone are one card put
  down: the surer is the play, the other is shown (``twin_box``).  Should the
  play's box leave the view while the other stays, the one that stayed is the
  card (its reading renames the play).
* A hand ends when the engine says so; the table emptied while the engine
  still has the hand running proposes the hand's end (a fold, or a refusal of
  the open bet) for confirmation, since a camera cannot tell a fold from a
  hand sweeping over the table.  If a new deal then begins (a vira by the
  deck, or any card without a vira) while the engine still waits for plays, a
  card was missed: the hand is closed (``new_deal``, the team ahead on tricks
  taking the stake) so the new deal's cards are not taken for its missing
  plays and every later hand does not shift.
* A card put down in a seat's zone after the engine ended the hand, while
  that hand's cards still lie on the table, is never taken for the next
  vira: it is proposed as a late play of that hand (``after_hand``), which
  fusion lets in only when a card of the hand read otherwise lets the hand
  go on (a misread that ended it early), and shows otherwise.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.boxes import Box, inside_share, iou
from companion.table.observations import BACK, OUTLINE, Detection, FrameDetections, Proposal
from companion.table.scenery import Scenery
from companion.table.zones import CENTRE, Calibration, Zones, auto_calibration


@dataclass(frozen=True)
class TableView:
    """What the tracker needs to know about the game (see ``engine_view``)."""

    players: int
    deck: frozenset[str]
    uses_vira: bool
    in_hand: bool  # a hand was dealt and is not over
    turn: int | None  # seat due to play, None while a bet waits for an answer
    played: frozenset[str]  # face-up cards out in the current hand, the vira included
    next_dealer: int  # dealer of the next hand to start
    game_over: bool = False
    hand_number: int = 0  # how many hands were dealt so far
    answering_seat: int | None = None  # seat that must answer an open bet
    cards_this_hand: int = 0  # plays made in the current hand (covered ones too)
    mano: int | None = None
    turns: tuple[int, ...] = ()  # every seat due to play (several in a six-player pica-pica deal)
    trick_winners: tuple[int | None, ...] = ()  # team that won each finished trick of the hand (None: tie)
    face_down_ok: bool = True  # the seat due may play face down now (False: a "back" on its side is a misread)
    # (card, name, zone) -> whether renaming ``card`` to ``name`` in the running hand leaves at least two fewer
    # of the camera's plays after it, and a card now put down in ``zone``, outside their seats' zones (fusion answers it:
    # Fusion.retake_fits_zones; None: nobody can tell)
    retake_fits: Callable[[str, str, int | None], bool] | None = field(default=None, compare=False, repr=False)

    @property
    def seats_due(self) -> tuple[int, ...]:
        """Every seat due to play now (none while a bet waits for an answer, or between hands)."""
        return self.turns or ((self.turn,) if self.turn is not None else ())


# The detector's threshold for the table (see TrackerConfig.weak_confidence).  Measured on the 60
# rendered hands of ``python -m companion.table.evaluate``: a card the detector scores under 0.3 for
# seconds was lost and shifted every later seat.  Tracking down to 0.15 (weak-only cards after 8
# frames) raised hands scored right from 68 % to 77 %; 0.1 and 0.12 gave 68-73 %, 0.2 and 0.25 72-77 %.
WEAK_CONFIDENCE = 0.15
FACE_DOWN_REASON = "read as face down, which the rules forbid now"  # (see _read_face_down)
RECENT_FRAMES = 40  # detections a track keeps (see Track.recent): 4 s at the table's 10 frames a second


@dataclass
class TrackerConfig:
    min_frames: int = 3  # detections before a card counts
    fast_frames: int = 2  # ... or this many, when they agree and each is at least fast_confidence
    fast_confidence: float = 0.8
    min_detection_confidence: float = 0.3  # detections whose presence (a card is there) is weaker are weak:
    weak_confidence: float | None = WEAK_CONFIDENCE  # weak ones down to this keep a track going, and start
    weak_frames: int = 8  # one that counts as a card only after this many (a card the detector barely sees
    # for seconds is still a card; a fleeting weak box is not).  None: weak detections are ignored.
    weak_inside: float = 0.6  # a weak box with this share inside a surer box of the frame is dropped
    strong_inside: float = 0.8  # ... and any box with this share (a card boxed twice, not a trick pile)
    # ... unless the outline model fits the inner box as a whole card (Detection.outline at least the first) and
    # the surer box poorly (under the second): the surer box is then one around parts of several cards, the inner
    # box the card (see TableTracker._outlined_inside; None: dropped as before)
    inside_outline: tuple[float, float] | None = (0.6, 0.5)
    # two faces of a frame boxed surely, overlapping this much (IoU), each outlined as a whole card at least this
    # surely, are one card boxed twice: the one named less surely is dropped (see TableTracker._boxed_twice; None:
    # both kept)
    twice: tuple[float, float] | None = (0.6, 0.8)
    apply_confidence: float = 0.6  # below: proposal flagged low_confidence ...
    doubt_margin: float = 3.0  # ... and asked about when another possible reading has over 1/doubt_margin
    # of its support (else also flagged unrivalled: fusion applies it after FusionConfig.settle_timeout)
    min_vote_share: float = 0.6  # the winning label's share of a track's detections
    iou_match: float = 0.3  # association of a detection with a track
    # a weak box mostly inside a surer one is kept when a track lies where it lies (this IoU, and more than with the
    # surer box): the old card seen again under a new one put down partly over it (TableTracker._still_there;
    # None: dropped as before).  Judged in session 59 by a rule written before its seeds: fresh table seeds 312-319
    # 466 -> 468 of 480 hands scored right with nobody answering, 473 -> 473 answered; the recorded seeds 244-311
    # 3486 -> 3491 and 3527 -> 3533 (bench/evaluation-history.md, session 59)
    still_there_iou: float | None = 0.7
    track_patience: float = 0.8  # seconds a track survives unseen (a hand over the card, a flicker)
    replaced_missed: int = 3  # frames a finished hand's card goes unseen before another reading there is
    # another card (see TableTracker._replaced)
    anchor_iou: float = 0.25  # a stable track this close to an anchor is that card
    relabel_iou: float = 0.6  # ... even under another label when this close
    finished_seconds: float = 1.2  # none of a finished hand's cards seen this long: they were swept
    stale_seconds: float = 10.0  # a finished hand's card not seen this long is forgotten anyway
    reset_seconds: float = 0.6  # an empty table this long between hands: forget the finished hand's cards
    cleared_seconds: float = 1.2  # an empty table this long during a hand: it was cleared early
    swept_seconds: float = 0.3  # ... this long (after track_patience): a new deal that follows closes the hand
    # ... or frames with no card at all this long, the cards' tracks still in their patience (see _check_cleared)
    blank_seconds: float | None = 0.6
    zone_margin: float = 0.62  # sectors off the turn seat's axis before wrong_seat (0.5 = border)
    runner_up: bool = True  # an impossible reading: decide on the detector's next best reading instead
    vira_grace: float = 1.5  # seconds a card in a seat zone waits for the vira before it is taken for it
    settle_confidence: float = 0.2  # a card read below this waits 2 x min_frames (as a disputed reading)
    centre_play_confidence: float = 0.15  # a face-up card by the deck during a hand read below this is no play
    pile_share: float = 0.8  # ... nor one read below it with this share of its box over cards already played
    part_share: float = 0.9  # a box this much inside a played card unseen meanwhile, out of turn, is part of it
    # a back in a seat's zone during a hand is a covered play once seen this many frames.  Replays of every
    # recorded stream, nobody answers / answers: held-out 2742 -> 2746 / 2816 -> 2821, fresh (130-187)
    # 3319 -> 3324 / 3413 -> 3417, seeds 0-17 -1 / -1; lost: a real covered card seen only in bursts of
    # three or four frames (seed 120) is now left to Fusion._unseen_covered, which did not place it
    covered_frames: int = 8
    ghost_face_support: float = 0.03  # a forbidden back out of turn with its best face under this a frame is no card
    # a play read as another card in this share of its detections since it was decided, and at least in
    # late_frames of them, is renamed (see TableTracker._late_reread; None: never)
    late_share: float | None = 0.9
    late_frames: int = 10
    # a card accounted for whose box has been read as another card for moved_seconds, where it overlaps
    # the box it had when last read as itself under moved_iou, is another card put down on it: that card
    # leaves with its own detections as a new track (see TableTracker._moved_on; None: never)
    moved_seconds: float | None = 0.45
    moved_iou: float = 0.3
    twin_outlast: bool = True  # a twin box that outlasts the play it was flagged beside is that card (_twin_outlasts)
    reread_margin: float = 1.5  # a waiting card is renamed when another reading has this many times its votes
    quiet_rivals: bool = True  # a card asked about whose rival readings fade while it waits settles unasked
    # two cards of a hand read alike: the card applied earlier gives the name up (it is renamed, see
    # companion.table.amend) when the new card was read so in this share of its frames or more ...
    retake_share: float | None = 0.9
    retake_twin_share: float = 0.6  # ... and the earlier one in this share of its own frames or less,
    # or, the earlier one a play read as surely, when the renaming leaves fewer of the hand's later plays
    # outside their seats' zones (TableView.retake_fits)
    zone_retake: bool = True
    # a card read as one already out is a second physical card when that one is in view and their boxes
    # overlap less than this (IoU).  0.1 took a seat's next card laid over part of its earlier one in
    # its row for that card seen again; 0.3 (0.5 the same): recorded streams of seeds 0-8 one hand more
    # scored right unattended (+2 -1), two more with a table that answers, noise modes unchanged
    twin_overlap: float = 0.3
    # a young track read as a card already out, whose own track is seen elsewhere this very frame, is another
    # card, not that one found again, until it has been seen this many frames: a card put down over the same
    # seat's earlier card is read as it at first (TableTracker._seen_elsewhere; None: found again at once)
    elsewhere_frames: int | None = 10
    # the bare table's own readings (one face at two places of the first frame) dropped (companion.table.scenery)
    scenery: bool = True
    # a back read where the outline model outlines no card this surely (Detection.outline; streams recorded
    # before session 67 carry none: kept), away from the deck, is the cloth: dropped.  Why: a chequered cloth's
    # pale squares were boxed as backs at 0.15-0.5 all session, and went in as covered plays or as plays of
    # their next face (rendered Mineiro sessions, seeds 449 and 455: 0 and 1 of 4 hands); the outline model
    # outlined 391 of 423 sampled ones not at all, the rest mostly at 0.1-0.25, and a normal session's backs at
    # 0.5 or more in 43 of 50.  The deck (a stack, weakly outlined) keeps its backs.  Development (seeds 448-455
    # read again, bench/evaluation-history.md, session 67): 0.05 and 0.15 kept a square outlined at 0.1 (both
    # sessions 2 of 4); 0.25 and 0.35 4 of 4, no other session changed.  None: never dropped
    back_outline: float | None = 0.25
    # ... but only in a frame that holds at least this many such backs: the cloth reads as backs in many places at
    # once (the chequered sessions: frames with one alone none, with five or more 881 of 891), a real covered card
    # weakly outlined (0.14, half under another) alone.  Why: fresh seeds 480-495 lost three hands, each to one
    # covered card outlined under 0.25 in frames where it was the only such back (bench/evaluation-history.md,
    # session 67)
    back_outline_crowd: int = 2
    # a face boxed by the outline finders alone (``Detection.found_by`` ``OUTLINE``: no detector box behind
    # it) that the outline model outlines under this is the cloth, wherever it lies and even alone in its frame; it
    # counts in the crowd above (None: kept).  Why: checked cloths' squares are found as card-shaped paper by the
    # finders and named at 0.1-0.3, the outline model outlining them at 0.  A large pink-and-blue one's went in as
    # the first plays of every hand (seed 585 s04-argentino-4p, 0 of 4 hands; session 70); one alone, a 5E at 0.17,
    # opened a hand nobody dealt (seed 554 s09-argentino-2p, 1 of 4); one by the deck went in as the first play of
    # a hand (seed 705 s09-argentino-6p; session 71)
    finder_outline: float | None = 0.05
    # a face box flagged a second box of a play that went in from a back read as face down names that play when it
    # is named at least this surely (Track.sureness; see TableTracker._name_back_play; None: never).  Development
    # (bench/evaluation-history.md, session 73): 0.2 renamed seed 484's JH as AH (named at 0.235; both wrong, the
    # card a 7H) and the hand was lost; the faces named right were named at 0.59 and 0.63, the wrong ones at 0.15-0.35
    face_over_back: float | None = 0.3


def _center(box: Box) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0)


def _size(box: Box) -> float:
    return max(1.0, ((box[2] - box[0]) * (box[3] - box[1])) ** 0.5)


@dataclass
class Track:
    id: int
    box: Box
    first_t: float
    last_t: float
    hits: int = 0
    missed: int = 0
    votes: dict[str, float] = field(default_factory=dict)  # label -> summed confidence
    alt_votes: dict[str, float] = field(default_factory=dict)  # runner-up label -> summed confidence
    counts: dict[str, int] = field(default_factory=dict)
    decided: bool = False
    anchor: Anchor | None = None
    min_conf: float = 1.0
    strong_hits: int = 0  # detections at or above TrackerConfig.min_detection_confidence
    label_override: str | None = None  # a decision on the runner-up reading (see TableTracker._decide)
    relabel_reason: str = ""
    read_face_down: bool = False  # label_override is the face of a back, face down being forbidden (relabel)
    gave_way: str | None = None  # a reading this card gave up to a twin in its seat's zone (_give_way)
    proposed_play: bool = False  # this track itself was proposed as a play (not matched to an earlier card)
    decided_counts: dict[str, int] | None = None  # its counts when it was decided a play (see _late_reread)
    early_readings: frozenset[str] = frozenset()  # every reading it had by then
    twin_of: "Track | None" = None  # the play this track was flagged a second box of (see _twin_outlasts)
    named_by_face: float = 0.0  # the sureness of the face box that named this back's play (_name_back_play)
    named: dict[str, float] = field(default_factory=dict)  # best reading -> summed naming probability (sureness)
    last_read: str = ""  # its latest frame's best reading ...
    read_since: float = 0.0  # ... read so in every frame since this time (see TableTracker._part_of_unseen_play)
    box_read: dict[str, Box] = field(default_factory=dict)  # reading -> its box the last frame it was read so
    # its latest detections (time, detection, strong), for a card put down on it to leave with its own
    # (see TableTracker._moved_on)
    recent: deque[tuple[float, Detection, bool]] = field(default_factory=lambda: deque(maxlen=RECENT_FRAMES))

    def add(self, det: Detection, t: float, strong: bool = True) -> None:
        self.recent.append((t, det, strong))
        self.strong_hits += strong
        if det.label != self.last_read:
            self.last_read, self.read_since = det.label, t
        self.box_read[det.label] = det.box
        self.min_conf = min(self.min_conf, det.confidence)
        self.box = det.box
        self.last_t = t
        self.hits += 1
        self.missed = 0
        self.votes[det.label] = self.votes.get(det.label, 0.0) + det.confidence
        self.counts[det.label] = self.counts.get(det.label, 0) + 1
        self.named[det.label] = self.named.get(det.label, 0.0) + det.confidence / max(det.seen, 1e-6)
        for label, conf in det.alternatives:
            self.alt_votes[label] = self.alt_votes.get(label, 0.0) + conf

    def relabel(self, label: str, reason: str, face_down: bool = False) -> None:
        """Decide on ``label`` over the track's own best reading, saying why.  ``face_down``: the track was
        boxed as a back where the rules forbid a face-down card, so it stands for a face (see
        :func:`_read_face_down`).  Why one method: the three are one decision, and the tracker used to tell a
        face-down reading by the text of its reason.  The name alone changes by :meth:`rename` and
        :meth:`set_label`; nothing else writes these fields."""
        self.label_override, self.relabel_reason, self.read_face_down = label, reason, face_down

    def rename(self, label: str) -> None:
        """The same decision under another name (read again while it settled, or given way to a twin): why it
        was made and whether the track stands for a back's face stay as :meth:`relabel` set them."""
        self.label_override = label

    def set_label(self, label: str | None) -> None:
        """A name that is no decision on the track's readings (the deck's back, the vira by the deck), or none
        (its own best reading again): it no longer stands for a back's face.  Why a method: ``read_face_down``
        was once left set when the name was changed by hand, and the deck, taken from a back read as face down,
        counted as a play's surer twin (:meth:`TableTracker._same_moment_twin`)."""
        self.label_override, self.read_face_down = label, False

    def forget(self, moved: list[tuple[float, Detection, bool]]) -> None:
        """Take back detections :meth:`add` counted (they were another card's): its tallies as if
        it never had them."""
        for _, det, strong in moved:
            self.hits -= 1
            self.strong_hits -= strong
            self.counts[det.label] -= 1
            self.votes[det.label] -= det.confidence
            self.named[det.label] -= det.confidence / max(det.seen, 1e-6)
            for label, conf in det.alternatives:
                self.alt_votes[label] -= conf
            if self.counts[det.label] <= 0:
                for tally in (self.counts, self.votes, self.named):
                    del tally[det.label]
        self.alt_votes = {k: v for k, v in self.alt_votes.items() if v > 1e-9}

    def note_decided(self) -> None:
        """Keep what it has been read as so far, now that it is decided (see TableTracker._late_reread and
        TableTracker._twin_outlasts, which compare its later frames with these)."""
        self.decided_counts = dict(self.counts)
        self.early_readings = frozenset(self.votes) | frozenset(self.alt_votes)

    def since_decided(self) -> tuple[dict[str, int], int]:
        """Its frames since :meth:`note_decided`, by best reading, and how many in all."""
        before = self.decided_counts or {}
        later = {k: n - before.get(k, 0) for k, n in self.counts.items()}
        return later, sum(n for n in later.values() if n > 0)

    def support(self, label: str) -> float:
        """Summed confidence in ``label``, as the best reading or a runner-up."""
        return self.votes.get(label, 0.0) + self.alt_votes.get(label, 0.0)

    def other_readings(self, exclude: tuple[str, ...]) -> list[str]:
        """Every other label this card was read as (best or runner-up), most supported first."""
        labels = set(self.votes) | set(self.alt_votes)
        return sorted((k for k in labels if k not in exclude), key=lambda k: (-self.support(k), k))

    @property
    def label(self) -> str:
        if self.label_override is not None:
            return self.label_override
        return max(self.votes, key=lambda k: self.votes[k])

    @property
    def confidence(self) -> float:
        """Mean confidence of the winning label times its share of the hits."""
        label = self.label
        n = self.counts.get(label, 0)
        if n == 0:  # a runner-up reading decided on (label_override), never the best one of a frame
            return self.support(label) / max(1, self.hits)
        return (self.votes[label] / n) * (n / self.hits)

    @property
    def sureness(self) -> float:
        """How surely the card is named ``label``, whether or not a card is there: the classifier's mean
        probability of the label over the frames that read it so, the detector's presence divided out.
        Why: a deck whose back the classifier never saw is boxed surely and named some face at p 0.09
        (median over the held-out one-pip deck's deals; its vira 0.46), and a vira read otherwise in its
        first frames (3C, then 3S; JD, then KS) had its confidence cut by its share: the deck, read QC
        alone, looked the surer face and became the vira."""
        return self.sureness_of(self.label)

    def sureness_of(self, label: str) -> float:
        """How surely the card is named ``label`` over the frames that read it so (see :attr:`sureness`)."""
        n = self.counts.get(label, 0)
        return self.named.get(label, 0.0) / n if n else 0.0

    @property
    def share(self) -> float:
        return self.counts.get(self.label, 0) / max(1, self.hits)


@dataclass
class Anchor:
    """A card the tracker has accounted for: where it lay and what it was."""

    label: str
    box: Box
    kind: str  # vira | play | covered | deck | flagged | ignored | finished (of a hand that is over)
    epoch: int
    last_t: float
    track_id: int | None = None
    hand: int = 0  # the hand (engine's hand_number) the card belongs to
    kind_before: str | None = None  # its kind before its hand was over (a hand can go on again)


Submit = Callable[[Proposal], None]
ViewFn = Callable[[], TableView]


def _out_of_turn(zone: int | None, current: TableView) -> bool:
    """``zone`` is a seat's zone (not the middle, not unknown) and that seat is not due to play."""
    return zone not in (CENTRE, None) and zone not in current.seats_due


def _settling(prop: Proposal, now: float) -> bool:
    """``prop`` is in the log already and still settles (see Fusion.settling): its card may be renamed there."""
    return prop.settled and prop.open_until is not None and now <= prop.open_until


def _read_face_down(track: Track) -> bool:
    """``track`` went in as a face though it was boxed as a back, a face-down card being forbidden there (see
    TableTracker._decide): its confidence is its face's support as a runner-up, far under any box's, so it
    is never the "surer" of two boxes by confidence.  Why: seat 0's 3H, put down, was boxed as a back over its
    lower half and as a 2H at 0.04 over its upper half in the same frame (rendered seed 1019); the back went in
    as 3H at 0.01, the 2H, "surer", went in as seat 0's next play, and every later card took the wrong seat."""
    return track.label_override is not None and track.read_face_down


def _vote_share(track: Track, label: str) -> float:
    """The share of ``track``'s frames' best readings (weighted by confidence) that were ``label``."""
    total = sum(track.votes.values())
    return track.votes.get(label, 0.0) / total if total > 0 else 0.0


def _possible_readings(track: Track, exclude: tuple[str, ...], current: TableView,
                       still_free: str | None = None) -> list[str]:
    """``track``'s other readings (:meth:`Track.other_readings`) that could be this card now: in the
    variant's deck and not already out in the hand (``still_free``: an out card that counts as not
    out -- the card's own reading, which it gives up)."""
    out = current.played - {still_free} if still_free is not None else current.played
    return [k for k in track.other_readings(exclude) if k in current.deck and k not in out]


class TableTracker:
    """Feed frames with :meth:`update`; proposals go to ``submit``."""

    def __init__(self, zones: Zones | None = None, config: TrackerConfig | None = None,
                 players: int = 4) -> None:
        self.config = config or TrackerConfig()
        self.zones = zones
        self.players = players
        self.tracks: list[Track] = []
        self.anchors: list[Anchor] = []
        self.epoch = 0  # increases when the table is cleared
        self._next_id = 1
        self._empty_since: float | None = None
        self._had_cards = False
        self._cleared_reported = False
        self._stale_hand: int | None = None  # a hand the table was swept during (the engine still runs it)
        self._stale_cards: dict[str, Box] = {}  # where that hand's cards lay
        self._stale_since: float | None = None  # when the table emptied for that sweep
        self._stale_back = False  # a card of the swept hand was seen again where it lay since
        self._blank_since: float | None = None  # first of the frames in a row with no card read surely
        self._sweep_open: float | None = None  # _stale_since, until the next card seen says what the sweep was
        self._cleared_hand: int | None = None  # a hand the table stayed empty during (cleared_seconds)
        self._waiting: list[tuple[Track, Proposal, str]] = []  # doubtful card proposals still unanswered
        self._gave_way = False  # a waiting proposal changed in place this frame (_give_way, _swap_vira, ...)
        self._last_hand_number: int | None = None
        self._hand_live = False
        self._finished_seen = 0.0
        self._view_hand = 0
        self._view_in_hand = False
        self._zone_samples: list[tuple[int, tuple[float, float]]] = []
        self.scenery = Scenery() if self.config.scenery else None
        self.last_frame: FrameDetections | None = None
        self.events: list[str] = []  # human-readable log of what the tracker decided (for screens)

    # --- association --------------------------------------------------------------------
    def _associate(self, frame: FrameDetections) -> None:
        cfg = self.config
        floor = cfg.min_detection_confidence if cfg.weak_confidence is None else cfg.weak_confidence
        dets = []
        twice = self._boxed_twice(frame)
        for d in sorted((d for d in frame.detections if d.seen >= floor and not twice(d)), key=lambda d: -d.seen):
            # Under the detector's usual threshold its end-to-end head boxes one card several times
            # (a half, a corner): a weak box mostly inside a surer one is that card, not another.  So
            # is a strong box almost wholly inside one (a card's lower part boxed as a second card
            # went in as the next seat's play; measured on the recorded video streams: seed 1 one
            # hand more scored right, the others and --noise default/hard unchanged).
            share = cfg.weak_inside if d.seen < cfg.min_detection_confidence else cfg.strong_inside
            if all(inside_share(d.box, k.box) < share or self._still_there(d, k) or self._outlined_inside(d, k)
                   for k in dets):
                dets.append(d)
        strong = [d.seen >= cfg.min_detection_confidence for d in dets]
        pairs = []
        for ti, track in enumerate(self.tracks):
            for di, det in enumerate(dets):
                overlap = iou(track.box, det.box)
                if overlap >= cfg.iou_match and not self._replaced(track, det):
                    # prefer the same label when two detections overlap one track
                    bonus = 0.05 if det.label in track.votes else 0.0
                    pairs.append((overlap + bonus, ti, di))
        pairs.sort(reverse=True)
        used_t: set[int] = set()
        used_d: set[int] = set()
        for _, ti, di in pairs:
            if ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            self.tracks[ti].add(dets[di], frame.t, strong[di])
        for ti, track in enumerate(self.tracks):
            if ti not in used_t:
                track.missed += 1
        for di, det in enumerate(dets):
            if di not in used_d:
                track = Track(self._next_id, det.box, frame.t, frame.t)
                self._next_id += 1
                track.add(det, frame.t, strong[di])
                self.tracks.append(track)
        kept = []
        for track in self.tracks:
            if frame.t - track.last_t > cfg.track_patience:
                continue
            kept.append(track)
        self.tracks = kept
        for track in self.tracks:
            if track.anchor is not None and track.missed == 0:
                track.anchor.last_t = frame.t
                track.anchor.box = track.box

    def _outlined_inside(self, det: Detection, surer: Detection) -> bool:
        """Whether ``det``, a box mostly inside the surer box ``surer``, is the card and ``surer`` a box around
        parts of several cards: the outline model fits ``det`` as a whole card and ``surer`` poorly
        (``TrackerConfig.inside_outline``; streams without outline scores: never).

        Why: seat 4's one-pip AH, put down against its earlier 3H (a rendered six-player Clean-28 hand, seed
        468), was boxed at presence 0.17 and outlined at 0.72, inside a box named QH at 0.41 outlined at 0.37
        that took in both cards; dropped as that box's part for 9 s, the play was missed and every later card
        of the hand went to the wrong seat."""
        bars = self.config.inside_outline
        return (bars is not None and det.outline is not None and surer.outline is not None
                and det.outline >= bars[0] and surer.outline < bars[1])

    def _boxed_twice(self, frame: FrameDetections) -> Callable[[Detection], bool]:
        """Which detections of ``frame`` are a card boxed again under a worse name: a face boxed surely
        (``min_detection_confidence``) overlapping another such face at ``twice[0]`` IoU or more, both outlined as a
        whole card at ``twice[1]`` or more, and named less surely.  Two cards lying that much over each other cannot
        both be seen whole, so the two boxes are one card.  (Weak boxes are left to the rules for them: on a
        crowded six-seat table, weak boxes of two cards in a pile, each outlined 0.87 by the same outline, were
        taken for one, and a play was missed: rendered seed 608.)

        Why: seat 0's 2C was boxed twice from the frame it was put down (rendered seed 808, a Mineiro hand for
        four on a checked cloth), read 2C at 0.34 and 3C at 0.23 with the boxes overlapping at IoU 0.65, both
        outlined 0.97; neither box lies 80 % inside the other (``strong_inside``), and the one seen a little
        more surely (presence 0.50 against 0.47), the 3C, went in for seat 0.  The 2C, tracked on its own, went
        in later for the next seat, and the hand was lost."""
        bars = self.config.twice
        if bars is None:
            return lambda d: False
        whole = [d for d in frame.detections if d.label != BACK and d.seen >= self.config.min_detection_confidence
                 and d.outline is not None and d.outline >= bars[1]]
        worse = {id(d) for d in whole for k in whole
                 if k is not d and iou(d.box, k.box) >= bars[0] and (k.confidence, k.seen) > (d.confidence, d.seen)}
        return lambda d: id(d) in worse

    def _still_there(self, det: Detection, surer: Detection) -> bool:
        """Whether ``det``, a box mostly inside the surer box ``surer``, is a card already tracked seen again
        where it lay (a track's box overlaps it at least ``still_there_iou``, and overlaps it more than ``surer``),
        while ``surer`` is a card put down partly over it.  Dropped, the old card's track took the new card's
        box and readings, and the new card never got a track of its own (rendered seed 304, a six-player hand:
        a 4S put down over seat 3's 6H, read weakly, never reached the game and the hand was lost)."""
        need = self.config.still_there_iou
        if need is None or det.seen >= self.config.min_detection_confidence:
            return False
        for track in self.tracks:
            here = iou(track.box, det.box)
            if here >= need and here > iou(track.box, surer.box):
                return True
        return False

    def _replaced(self, track: Track, det: Detection) -> bool:
        """A card of a finished hand, unseen for a moment, and now something else read at its place: the
        new deal's card put where the old one lay (the vira turned where the last one was), not the old
        card seen again.  Joined to the old card's track, the new vira was taken for the finished hand's
        card until its readings outvoted the old ones, six seconds later; the new hand's first plays came
        first and were shown as late cards of the finished hand (rendered seed 2, a whole hand lost).
        A new track decides on its own readings: the old card, truly seen again, finds its anchor.
        So does a card barely readable there (read below ``settle_confidence``) even under the old card's
        name: the next vira 3S turned where 2S lay was read 2S at 0.07 while the hand still covered it,
        which kept the old track going, and its 3S readings never outvoted the old ones (rendered seed 6,
        a whole hand lost)."""
        return (track.anchor is not None and track.anchor.kind == "finished"
                and track.missed >= self.config.replaced_missed
                and (det.label != track.label or det.confidence < self.config.settle_confidence))

    def swept_since(self) -> float | None:
        """When every card of the running hand left the view, while no card has been decided since
        (None: no such sweep is open).  Words heard after it wait for the next card (see
        Fusion.swept): that card either goes on with the hand or starts the next one, and a call
        said in between belongs to whichever hand that is."""
        return self._sweep_open  # (a new deal's close, which ends the sweep, is decided from a card: None then)

    def undecided_before(self, t: float) -> bool:
        """Whether a card first seen before stream time ``t`` is still being
        looked at (seen twice or more, not decided): words said at ``t`` are
        better interpreted once it is in the game."""
        return any(not tr.decided and tr.hits >= 2 and tr.strong_hits and tr.first_t < t for tr in self.tracks)

    # --- geometry -----------------------------------------------------------------------
    def _outlined(self, frame: FrameDetections, raw: FrameDetections | None = None) -> FrameDetections:
        """``frame`` without the cloth's own readings, which no card outline fits: the backs so outlined
        (``back_outline``) where the frame holds at least ``back_outline_crowd`` such things, and the faces the
        outline finders alone boxed that the outline model does not outline (``finder_outline``) wherever they
        lie.  The deck's backs are kept whatever their outline: in the centre zone, or on the deck where it was
        seen.  (Not everywhere beside the deck, as :meth:`_in_middle` reads it: on the chequered cloth a pale
        square by the centre was taken for the deck, and the squares beside it went in as covered plays.)

        The crowd is counted on the frame as read (``raw``, before the scenery's filter took the squares it
        learned: seed 585's first frame held three finder squares, two of them named alike and the scenery's,
        and the third alone went in as a play).  ``back_outline`` None turns the whole filter off."""
        bar = self.config.back_outline
        if bar is None or self.zones is None:
            return frame
        finder = self.config.finder_outline

        def unoutlined_face(d: Detection) -> bool:
            return (finder is not None and d.label != BACK and d.outline is not None and d.outline < finder
                    and d.found_by == OUTLINE)

        def cloth(d: Detection) -> bool:
            if d.label != BACK:
                return unoutlined_face(d)
            return d.outline is not None and d.outline < bar and not self._on_deck(d.box)

        crowd = sum(1 for d in (raw or frame).detections if cloth(d)) >= self.config.back_outline_crowd
        # (one such back alone is a card weakly outlined, half under another: kept; such faces go whatever the crowd)
        drop = cloth if crowd else unoutlined_face
        kept = tuple(d for d in frame.detections if not drop(d))
        return frame if len(kept) == len(frame.detections) else replace(frame, detections=kept)

    def _ensure_zones(self, frame: FrameDetections) -> None:
        if self.zones is None and frame.image_size is not None:
            self.zones = Zones(auto_calibration(frame.image_size, self.players))
        elif self.zones is not None and frame.image_size is not None:
            cal = self.zones.cal
            if cal.image_size is not None and tuple(cal.image_size) != tuple(frame.image_size):
                self.zones = Zones(cal.scaled_to(frame.image_size))

    def _zone(self, box: Box) -> int | None:
        if self.zones is None:
            return None
        return self.zones.zone_of(_center(box))

    def _find_anchor(self, track: Track) -> Anchor | None:
        cfg = self.config
        best: tuple[float, Anchor] | None = None
        for anchor in self.anchors:
            overlap = iou(anchor.box, track.box)
            same = anchor.label == track.label
            near = math.dist(_center(anchor.box), _center(track.box)) <= 0.35 * _size(anchor.box)
            # (never a card read face up onto the deck: the vira, half under the deck, shares most of its
            # box, and a vira turned where the last one lay was taken for the deck read otherwise -- that
            # hand had no vira, a rendered Clean-28 session lost three.  On the recorded streams of seeds
            # 0-17: 1016 -> 1019 hands scored right unattended, 1051 -> 1055 answered, none lower)
            relabel = (overlap >= cfg.relabel_iou and anchor.kind != "finished"
                       and not (anchor.kind == "deck" and track.label != BACK))
            if (same and (overlap >= cfg.anchor_iou or near)) or relabel:
                score = overlap + (0.5 if same else 0.0)
                if best is None or score > best[0]:
                    best = (score, anchor)
        return best[1] if best else None

    def _seen_elsewhere(self, track: Track, anchor: Anchor) -> bool:
        """Whether ``track``, young, matches ``anchor`` only by its reading while the anchor's own track
        is seen this frame as another box: then two boxes are in view, and this one may be a new card
        still read as the one it was put down on.  Held for ``elsewhere_frames``, then found again as before.

        Why: traced on rendered Argentine sessions (seeds 337 and 340): a seat's card put down over its own
        card of an earlier trick was read as that card for its first half second; its new track was taken
        for that card found again and never proposed, and the hand lost a play."""
        frames = self.config.elsewhere_frames
        if (frames is None or track.hits >= frames or anchor.label != track.label
                or iou(anchor.box, track.box) >= self.config.relabel_iou):
            return False
        owner = self._owner(anchor)
        return owner is not None and owner is not track and owner.missed == 0

    def _owner(self, anchor: Anchor) -> Track | None:
        """The live track ``anchor`` was last matched to, if it still lives."""
        return next((t for t in self.tracks if t.id == anchor.track_id), None)

    def _twin_in_view(self, track: Track, label: str) -> bool:
        """Whether the card already out under ``label`` is in view right now,
        elsewhere: then this track is a second physical card, misread.  If it
        is not in view, this may well be that card seen again."""
        return self._twin(track, label) is not None

    def _twin(self, track: Track, label: str) -> Track | None:
        """The track of the card already out under ``label``, in view right now elsewhere (see
        :meth:`_twin_in_view`)."""
        for other in self.tracks:
            if (other is not track and other.missed == 0 and other.anchor is not None
                    and other.anchor.label == label and iou(other.box, track.box) < self.config.twin_overlap):
                return other
        return None

    def _retake(self, track: Track, label: str, current: TableView) -> tuple[Track, str] | None:
        """Two cards in view read ``label``: the one out (a play or the vira) and ``track``.  When ``track``
        was read ``label`` in nearly all its frames and the other in few of its own, the other is the
        misread: returns it and the name it takes (its likeliest possible other reading).

        Why: the later card used to give way always.  Measured on the recorded detection streams of the
        rendered sessions (both seeds): the later card was the one read right in 10 of 22 such
        conflicts; the 9 that meet these shares were all of them, and none of the cases where the
        earlier card was right does (it was read ``label`` in 95-100 % of its frames).

        When both were read ``label`` surely and the earlier card is a play in the log, the readings
        cannot tell, but the seats can (``zone_retake``): a misread trick winner sends every later card
        of the hand to the seat beside the one whose zone it lies in.  The earlier card is renamed then
        only if that leaves at least two fewer of the later plays, this one included, outside
        their seats' zones (``TableView.retake_fits``)."""
        if self.config.retake_share is None:
            return None
        twin = self._twin(track, label)
        if twin is None or twin.anchor is None or twin.anchor.kind not in ("play", "vira"):
            return None
        if _vote_share(track, label) < self.config.retake_share:
            return None
        names = _possible_readings(twin, (label, BACK), current)
        if not names:
            return None
        if _vote_share(twin, label) > self.config.retake_twin_share:
            if not self.config.zone_retake or twin.anchor.kind != "play" or current.retake_fits is None:
                return None
            if any(other is twin and not prop.settled for other, prop, _ in self._waiting):
                return None  # not in the log yet
            if not current.retake_fits(label, names[0], self._zone(track.box)):
                return None
        return twin, names[0]

    def _anchor(self, track: Track, kind: str) -> Anchor:
        # a card seen while no hand runs opens the next one (the vira, or the first play)
        hand = self._view_hand if self._view_in_hand else self._view_hand + 1
        anchor = Anchor(track.label, track.box, kind, self.epoch, track.last_t, track.id, hand)
        self.anchors.append(anchor)
        track.anchor = anchor
        track.decided = True
        return anchor

    # --- the frame loop -------------------------------------------------------------------
    def update(self, frame: FrameDetections, view: ViewFn, submit: Submit) -> bool:
        """Take one frame of detections; propose what it shows.  Returns whether
        a waiting proposal's card was read again (see :meth:`_read_again`)."""
        raw = frame
        if self.scenery is not None:
            learned = self.scenery.learned
            frame = self.scenery.filter(frame)
            if not learned and self.scenery.places_read:
                self.events.append(f"{frame.t:.2f}s the table itself reads as " + ", ".join(
                    f"{label} at {len(boxes)} places" for label, boxes in sorted(self.scenery.places_read.items()))
                    + ": ignored there, and elsewhere while no surer")
        self._ensure_zones(frame)
        frame = self._outlined(frame, raw)
        self.last_frame = frame
        self._associate(frame)
        self._moved_on(frame.t)
        revised = self._read_again(frame.t, view, submit)
        self._late_reread(frame.t, view, submit)
        self._twin_outlasts(frame.t, view, submit)
        self._gave_way = False
        current = view()
        self._expire_anchors(frame.t, current)
        self._check_cleared(frame, current, submit)
        self._turned_up(current)
        self._vira_from_deck(frame.t, current, submit)
        cfg = self.config
        ready = [t for t in self.tracks if not t.decided and (
            (t.hits >= cfg.min_frames and (t.strong_hits or t.hits >= cfg.weak_frames))
            or (t.hits >= cfg.fast_frames and len(t.counts) == 1 and t.min_conf >= cfg.fast_confidence))]
        ready.sort(key=lambda t: (t.first_t, t.id))
        for track in ready:
            if ((track.share < 1.0 or track.confidence < cfg.settle_confidence)
                    and track.hits < 2 * self.config.min_frames):
                # the detector changed its mind about this card, or can barely read it (often a part
                # of it boxed while the hand that put it down still covers it): a few more frames
                continue
            self._decide(track, frame.t, view, submit)
        return revised or self._gave_way

    def _turned_up(self, current: TableView) -> None:
        """A card set aside as dealt face down (a back in a seat's zone while no hand runs) that the
        detector now reads as a face, more often than as a back, is looked at again as a face.  Why: a
        card being put down is often boxed as a back for its first frames (the hand over it, the card
        still turning); set aside then, the first card of a hand without a vira never opened the hand,
        the next card did, and every seat after it was one off (rendered seed 3, a Mineiro hand).

        So is a card taken for the deck that now reads as a face while another deck, a back, lies in
        view: the vira, boxed as a back while it was being turned, had its track taken for the deck; the
        deck showed beside it a moment later, and the vira, read 7H from then on, stayed the deck while a
        faint box over the deck's corner became the vira (rendered seed 32, a Clean-28 session).  Only
        while no hand runs, when the vira is turned: released during a hand, a one-pip deck read as a
        face made an extra play (seed 17).  On the recorded streams: seeds 0-17 1029 -> 1031 hands
        scored right unattended, 1053 -> 1054 answered; the one-pip sessions of seeds 42-57, rendered to
        check it, 142 -> 146 and 154 -> 155; no session lost a hand.

        The anchor may be gone from the list already (an empty table between hands forgets the cards set
        aside while their tracks live on): the track is released all the same."""
        for track in self.tracks:
            anchor = track.anchor
            if track.decided and anchor is not None and track.label != BACK and (
                    (anchor.kind == "ignored" and anchor.label == BACK)
                    or (anchor.kind == "deck" and not current.in_hand and self._other_deck_in_view(track))):
                self.anchors = [a for a in self.anchors if a is not anchor]
                track.anchor, track.decided = None, False

    def _other_deck_in_view(self, track: Track) -> bool:
        """Another track taken for the deck, read as a back, is seen this frame."""
        return any(other is not track and other.decided and other.anchor is not None
                   and other.anchor.kind == "deck" and other.label == BACK and not other.missed
                   for other in self.tracks)

    def _read_again(self, now: float, view: ViewFn, submit: Submit) -> bool:
        """A card (or vira) proposed with a doubt keeps being looked at while it
        waits for an answer; if its frames since then name it otherwise, clearly
        and possibly, the waiting proposal takes the new name.  A card already
        applied while it settles (``prop.open_until``, see Fusion.settling) is
        looked at until then too, and a new name is a renaming of it in the log
        (``{"type": "rename"}``, as :meth:`_late_reread`), once.

        Why: a card is first seen while the hand that put it down still covers
        part of it, and is decided after ``min_frames`` frames.  Measured on the
        rendered sessions: the vira of a held-out deck was decided on its first
        three frames as JC and read 2S, KS, 2S in the hundreds of frames after.
        What is applied for good or rejected never changes (it is in the log)."""
        changed = False
        alive = {id(t) for t in self.tracks}
        keep = []
        current: TableView | None = None
        for track, prop, key in self._waiting:
            applied = _settling(prop, now)
            if prop.rejected_by is not None and key == "vira" and id(track) in alive:
                self._not_the_vira(track)
            if (prop.settled and not applied) or id(track) not in alive or not track.decided:
                continue  # (not decided: looked at again after the table rejected its hand's vira)
            keep.append((track, prop, key))
            if track.missed:
                continue
            old = prop.event.get(key)
            best = max(track.votes, key=lambda k: track.votes[k])
            if best == old and not applied and self.config.quiet_rivals and set(prop.flags) == {"low_confidence"}:
                current = current or view()
                others = _possible_readings(track, (BACK, old), current)[:3]
                if not self._rivalled(track, old, others):  # its rival faded: no question needed any more
                    prop.flags.append("unrivalled")
                    prop.alternatives = others
                    prop.reason = (prop.reason + "; " if prop.reason else "") + "read on: no rival left"
                    self.events.append(f"{track.last_t:.2f}s {old}: no rival reading left")
                    changed = True
                continue
            if (best in (old, BACK, track.gave_way) or track.counts[best] < self.config.min_frames
                    or track.votes[best] <= self.config.reread_margin * track.support(old)):
                continue
            current = current or view()
            if best not in current.deck or best in self._out_with(track, current) - {old}:
                continue
            self.events.append(f"{track.last_t:.2f}s {old} read again as {best}")
            if applied:  # in the log already: fusion renames it there (and puts the hand in again)
                prop.open_until = None
                prop.event[key] = best
                self._ask_rename(track, old, best, now, submit, f"{old} read again as {best} while it settled")
                current = None
                continue
            prop.event[key] = best
            track.set_label(None)
            if track.anchor is not None:
                track.anchor.label = best
            prop.confidence = track.confidence
            prop.alternatives = _possible_readings(track, (BACK, best), current, still_free=old)[:3]
            prop.reason = (prop.reason + "; " if prop.reason else "") + f"read again as {best} (first {old})"
            if "unrivalled" in prop.flags:  # read two ways: the first reading rivals it, the table is asked
                prop.flags.remove("unrivalled")
            changed = True
            current = None  # the view changes with the event
        self._waiting = keep
        return changed

    def _swap_vira(self, track: Track, label: str, now: float, current: TableView, submit: Submit,
                   sureness: float | None = None) -> bool:
        """A face by the deck, named far more surely than the running hand's vira while that vira still
        settles, is the vira, and the card taken for it the deck: the vira is renamed in the log.
        ``sureness``: how surely ``track`` is named ``label`` (None: its own :attr:`Track.sureness`, the
        sureness of its label).

        Why: the deck read as a face alone for a few frames went in as the vira before the real vira,
        turned beside it a moment later, was ready (one-pip deck: QC at p 0.12, its vira AC at 0.4)."""
        if label in current.played or label not in current.deck or label == BACK:
            return False
        for k, (other, prop, key) in enumerate(self._waiting):
            settling = _settling(prop, now)
            if (key != "vira" or other is track or (prop.settled and not settling) or other.anchor is None
                    or other.anchor.kind != "vira" or other.anchor.hand != current.hand_number):
                continue
            if (track.sureness if sureness is None else sureness) < 2.0 * other.sureness:
                return False
            old = other.anchor.label
            self._take_for_deck(other)
            if track.label != label:  # a card taken for the deck, its back votes still the most
                track.set_label(label)
            self._anchor(track, "vira")
            self.events.append(f"{now:.2f}s {label} by the deck, named far more surely than the vira {old}: "
                               f"the vira, and {old} the deck")
            if settling:  # in the log already: renamed there
                prop.open_until = None
                self._submit_rename(track, old, label, now, submit,
                                    f"{label} by the deck named far more surely than {old}")
            else:  # still waiting: it names this card now, and is read on from it
                prop.event[key] = label
                prop.confidence, prop.box = track.confidence, track.box
                prop.alternatives = _possible_readings(track, (BACK, label), current, still_free=old)[:3]
                prop.reason = (prop.reason + "; " if prop.reason else "") + f"{label} by the deck, not {old}"
                self._waiting[k] = (track, prop, key)
                self._gave_way = True  # changed in place: what the table looks like is worked out anew
            return True
        return False

    def _vira_from_deck(self, now: float, current: TableView, submit: Submit) -> None:
        """A card taken for the deck that now reads as a face, and has read so in its last ``min_frames``
        frames or more, is the running hand's vira when it is named far more surely than that vira while the
        vira still settles (:meth:`_swap_vira`); the vira is then the deck.

        Why: at a deal the vira is often boxed as a back while it is turned, or together with the deck in
        one box, and its track is taken for the deck; the deck, boxed on its own a moment later and read
        as some face (a back the classifier never saw), goes in as the vira, decided before the real vira
        reads as a face.  :meth:`_swap_vira` is asked by undecided cards only, so it never saw the real
        vira, decided already (the deck).  Traced on the recorded one-pip Clean-28 streams: seed 537 (vira
        JD boxed as a back four frames, then read JD at p 0.41, the deck read QC at 0.08 went in as the
        vira) and seed 540 (the deck and 7H boxed as one back, then 7H at 0.62 and the deck QS at 0.11)."""
        if not (current.in_hand and current.uses_vira):
            return
        for track in self.tracks:
            anchor = track.anchor
            if not (track.decided and anchor is not None and anchor.kind == "deck" and not track.missed
                    and track.label_override is None):
                continue
            face = track.last_read
            n = track.counts.get(face, 0)
            recent = [d.label for _, d, _ in list(track.recent)[-self.config.min_frames:]]
            if (face == BACK or n < self.config.min_frames or len(recent) < self.config.min_frames
                    or any(label != face for label in recent)):
                continue
            self._view_hand, self._view_in_hand = current.hand_number, current.in_hand
            if self._swap_vira(track, face, now, current, submit, sureness=track.sureness_of(face)):
                self.anchors = [a for a in self.anchors if a is not anchor]
                return

    def _not_the_vira(self, track: Track) -> None:
        """The table rejected ``track`` as the new hand's vira: it is taken for the deck (a back the
        classifier read as a face), so a face by the deck can be the vira, one taken for the deck
        included (see :meth:`_turned_up`).

        Why: at a rendered deal the vira, boxed as a back while it was turned, was taken for the deck,
        and the deck, read QC, was proposed as the vira.  The table said no, and nothing was proposed
        again: the vira, read 3D from then on, stayed the deck, and seat 2's first card became the
        vira four seconds later.  Three hands were lost with a table that answers, none without."""
        if track.anchor is None or track.anchor.kind != "vira":
            return
        old, hand = track.label, track.anchor.hand
        self._take_for_deck(track)
        self.events.append(f"{track.last_t:.2f}s the table said {old} is no vira: taken for the deck")
        # the cards taken for plays of the hand it opened are looked at again (the vira among them:
        # a rendered deal's KD, by the deck, went in as the first play of the hand the deck opened)
        for other in self.tracks:
            anchor = other.anchor
            if other is not track and anchor is not None and anchor.hand == hand and anchor.kind in (
                    "play", "covered", "flagged"):
                self.anchors = [a for a in self.anchors if a is not anchor]
                other.anchor, other.decided = None, False
                other.set_label(None)

    @staticmethod
    def _take_for_deck(track: Track) -> None:
        """``track``, decided a face, is the deck from now on: a back, whatever it is read as."""
        assert track.anchor is not None
        track.set_label(BACK)
        track.anchor.kind, track.anchor.label = "deck", BACK

    def _moved_on(self, now: float) -> None:
        """A card accounted for (a play, a covered play, a card shown) whose track has been read as
        another card for ``moved_seconds``, its box now far from where it was last read as itself
        (overlap under ``moved_iou``): a card put down on it or beside it took its detections.  That card
        leaves as a new track, with the detections read so (it is decided like any new card); the old
        one keeps its anchor and its place, and is found again there if it is still seen.

        Why: a track follows the best-overlapping box.  A seat's next card put down half over its earlier
        one, or a card put down against a box flagged beside a play, joined that track; decided already,
        the track was never proposed again, and the card was lost (a Mineiro hand's last KC went into the
        track of a twin box beside the seat's 5D).  On the recorded streams of seeds 0-21, 30-33 and
        90-129, each of the 23 tracks whose box had moved that far had a card put down in the 1.5 s before,
        18 of them read as that very card; at overlaps of 0.3-0.5, 11 of 61 were.  Replays of every recorded
        stream (seeds 0-21, 30-33, 90-187; nobody answers / a table that answers): held-out 2740 -> 2742 /
        2810 -> 2816 of 2880, fresh 3311 -> 3319 / 3404 -> 3413 of 3480.  Not every split is right: an
        Argentine 7E read 10B for four seconds while its box shifted was split off as a new card (seed 147,
        one hand lost); waiting for the new reading to be recent made other splits come late, after a
        flicker (seed 3, three hands lost)."""
        if self.config.moved_seconds is None:
            return
        for track in list(self.tracks):
            anchor, new = track.anchor, track.last_read
            if (not track.decided or anchor is None or anchor.kind not in ("play", "covered", "flagged")
                    or track.missed or new in (anchor.label, BACK) or anchor.label not in track.box_read
                    or now - track.read_since < self.config.moved_seconds
                    or iou(track.box_read[anchor.label], track.box) >= self.config.moved_iou):
                continue
            moved = [r for r in track.recent if r[0] >= track.read_since]
            if not moved or len(moved) >= track.hits:
                continue
            card = Track(self._next_id, track.box, moved[0][0], moved[0][0])
            self._next_id += 1
            for t, det, strong in moved:
                card.add(det, t, strong)
            track.forget(moved)
            track.box = anchor.box = track.box_read[anchor.label]
            track.last_read, track.missed = anchor.label, 1
            self.tracks.append(card)
            self.events.append(f"{now:.2f}s {new} put down on {anchor.label}: a card of its own")

    def _late_reread(self, now: float, view: ViewFn, submit: Submit) -> None:
        """A play of the running hand read as another card in nearly every frame since it was decided:
        fusion is asked to rename it (``{"type": "rename"}``; companion.table.amend puts the hand in
        again after it).

        Why: a card is decided on its first frames, while the hand that puts it down still covers it or
        it still moves; what it is read as once it lies still can differ.  Measured on the four
        rendered seeds' recorded streams (240 hands), plays read as another card in 90 % or more of at
        least 10 later frames, that card among its readings when it was decided: 21 were misread at
        first and right later, 8 right at first and misread later, 5 wrong both times.  Only a
        reading still possible is taken (not out in the hand, in the deck), once per card."""
        if self.config.late_share is None:
            return
        current: TableView | None = None
        for track in self.tracks:
            anchor = track.anchor
            if (track.decided_counts is None or anchor is None or anchor.kind != "play" or track.missed
                    or anchor.hand != self._view_hand):
                continue
            later, total = track.since_decided()
            if total < self.config.late_frames:
                continue
            best = max(later, key=lambda k: later[k])
            if (best in (anchor.label, BACK) or best not in track.early_readings
                    or later[best] < self.config.late_share * total):
                continue
            if self._still_open(track):
                continue  # still waiting or settling: _read_again renames it there
            current = current or view()
            track.decided_counts = None  # once
            if not current.in_hand or best not in current.deck or best in current.played:
                continue
            old = anchor.label
            self.events.append(f"{now:.2f}s {old} read as {best} in {later[best]} of {total} frames since: renamed")
            self._ask_rename(track, old, best, now, submit,
                             f"{old} read as {best} in {later[best]} of its {total} frames since it went in")
            current = None

    def _twin_outlasts(self, now: float, view: ViewFn, submit: Submit) -> None:
        """A box flagged a second box of a play (``twin_box``: one card boxed twice as it was put down)
        still seen, and read one card in nearly all of ``late_frames`` frames since, after the play's own
        box has gone from view: the box that stayed is the card.  The play takes its place, and its
        reading when that differs (fusion renames it in the log, as :meth:`_late_reread` does).

        Why: of two boxes around a card being put down, the surer one at that moment went in as the play
        and the other was flagged.  On a rendered Argentine hand the surer one was the card half under
        the hand putting it down (4O read 2O at 0.31); it was gone a frame later, while the flagged box
        was read 4O at 0.89 for the next 15 seconds.  The hand went in with 2O and ended a trick early."""
        if not self.config.twin_outlast:
            return
        current: TableView | None = None
        for track in self.tracks:
            twin = track.twin_of
            if twin is None or track.missed or track.decided_counts is None:
                continue
            if twin in self.tracks and twin.missed < self.config.late_frames:
                continue  # the play's own box is still there, or was seen a moment ago
            anchor = twin.anchor
            if (track.anchor is None or track.anchor.kind != "flagged" or anchor is None or anchor.kind != "play"
                    or anchor.hand != self._view_hand):
                track.twin_of = None
                continue
            later, total = track.since_decided()
            if total < self.config.late_frames:
                continue
            if self._still_open(twin):
                continue  # the play still waits or settles: _read_again looks at it there
            track.twin_of = None  # once
            best = max(later, key=lambda k: later[k])
            if best == BACK or later[best] < (self.config.late_share or 1.0) * total:
                continue
            current = current or view()
            old = anchor.label
            if best != old and (not current.in_hand or best not in current.deck or best in current.played):
                continue
            # the play's record follows the box that stayed
            flagged = track.anchor
            self.anchors = [a for a in self.anchors if a is not flagged]
            anchor.box, anchor.track_id, anchor.last_t = track.box, track.id, now
            track.anchor, twin.anchor = anchor, None
            track.note_decided()
            track.proposed_play = True
            if best == old:
                continue
            self.events.append(f"{now:.2f}s {old}'s box is gone and the box beside it reads {best}: renamed")
            self._ask_rename(track, old, best, now, submit,
                             f"{old} was one of two boxes of a card put down; the other, which stayed, "
                             f"reads {best} in {later[best]} of its {total} frames since")
            current = None

    def _still_open(self, track: Track) -> bool:
        """Whether ``track``'s proposal still waits for an answer or settles in the log (see
        :meth:`_read_again`, which reads such a card again itself)."""
        return any(other is track and (not prop.settled or prop.open_until is not None)
                   for other, prop, _ in self._waiting)

    def _ask_rename(self, track: Track, old: str, best: str, now: float, submit: Submit, why: str) -> None:
        """Ask fusion to rename ``old``, a card of the running hand in the log, ``best``
        (``{"type": "rename"}``, see Fusion._rename); the tracker's own record of it takes the new name."""
        track.rename(best)
        if track.anchor is not None:
            track.anchor.label = best
        self._submit_rename(track, old, best, now, submit, why)

    def _submit_rename(self, track: Track, old: str, best: str, now: float, submit: Submit, why: str) -> None:
        """Fusion is asked to rename ``old`` in the log ``best``, the card seen where ``track`` lies."""
        submit(Proposal({"type": "rename", "card": old, "name": best}, now, track.confidence, "vision", [], why,
                        True, now, box=track.box, zone=self._zone(track.box)))

    def _out_with(self, track: Track, current: TableView) -> set[str]:
        """The cards out in the hand of ``track``'s card: the view's, or, when the waiting cards end
        that hand in the view (which then has none out), the cards the tracker accounted for in it.

        Why: a waiting card was renamed to a card already played in its hand because the next card
        proposed completed the hand in the view (a rendered Mineiro hand: refused, and a play lost)."""
        if current.in_hand or track.anchor is None:
            return set(current.played)
        return {a.label for a in self.anchors
                if a.hand == track.anchor.hand and a.kind in ("play", "vira", "finished") and a is not track.anchor}

    def _expire_anchors(self, now: float, current: TableView) -> None:
        """Cards of a finished hand may still lie on the table for a while:
        they stay anchors (seeing one again proposes nothing), under their
        own label only.  They are forgotten together, once none of them has
        been seen for ``finished_seconds``: the table was cleared, and the same
        card dealt to the same place in the next hand is a new play.  One
        card flickering out while the others are still seen changes nothing."""
        hand_changed = self._last_hand_number is not None and current.hand_number != self._last_hand_number
        if hand_changed or (self._hand_live and not current.in_hand):
            # the cards of hands before the running one are finished (not the vira that just opened it)
            last = current.hand_number - 1 if current.in_hand else current.hand_number
            for anchor in self.anchors:
                if anchor.kind not in ("deck", "finished") and anchor.hand <= last:
                    anchor.kind_before, anchor.kind = anchor.kind, "finished"
            self._finished_seen = now
        elif current.in_hand and not self._hand_live and self._last_hand_number is not None:
            # the hand that was over goes on (a card of it was read otherwise, see Fusion._after_hand,
            # or the card that ended it in the view was taken out): its cards are its plays again.
            # Finished, they were matched under their own reading only, and a card of the hand read
            # otherwise later was taken for a new one
            for anchor in self.anchors:
                if anchor.kind == "finished" and anchor.hand == current.hand_number and anchor.kind_before:
                    anchor.kind, anchor.kind_before = anchor.kind_before, None
        self._last_hand_number = current.hand_number
        self._hand_live = current.in_hand
        if any(tr.missed == 0 and tr.anchor is not None and tr.anchor.kind == "finished" for tr in self.tracks):
            self._finished_seen = now
        if now - self._finished_seen + 1e-6 >= self.config.finished_seconds:  # (decimal frame times, see below)
            self.anchors = [a for a in self.anchors if a.kind != "finished"]
        self.anchors = [a for a in self.anchors
                        if a.kind != "finished" or now - a.last_t <= self.config.stale_seconds]

    def _check_cleared(self, frame: FrameDetections, current: TableView, submit: Submit) -> None:
        cfg = self.config
        # a card counts as on the table while its track lives (a flicker or a
        # hand over it does not empty the table); one false positive does not.  So does a play seen in
        # this frame and read as its own face, however weakly (a rendered Mineiro hand's first card, only
        # ever boxed at 0.23-0.27, was taken for swept and the next card closed the hand as a new deal;
        # replays of every recorded stream: held-out +6 / +6, seeds 0-17 +1 / +1, fresh unchanged).  Not
        # one taken for a face but read as a back: seen, then gone, it made a sweep (seed 101, two hands)
        on_table = any(
            (t.hits >= 2 and t.strong_hits and not (t.anchor is not None and t.anchor.kind == "deck"))
            or (t.missed == 0 and t.anchor is not None and t.anchor.kind == "play"
                and t.last_read == t.anchor.label != BACK) for t in self.tracks)
        # A frame is no blank one while a card played, still read as the card played, is seen in it,
        # however weakly: a rendered Mineiro hand's first card, seen well while put down, then boxed at
        # 0.21-0.25 (the deck too), was taken for swept 0.6 s after it was played, the table for cleared,
        # and the next card closed the hand as a new deal (three hands lost).  (Weak plays do not hold the
        # table otherwise: a phantom one that vanished would then count as a sweep.)
        if (any(d.seen >= cfg.min_detection_confidence for d in frame.detections)
                or any(t.missed == 0 and t.anchor is not None and t.anchor.kind == "play"
                       and t.label == t.anchor.label != BACK for t in self.tracks)):
            self._blank_since = None
        elif self._blank_since is None:
            self._blank_since = frame.t
        blank = (on_table and cfg.blank_seconds is not None and self._blank_since is not None
                 and frame.t - self._blank_since + 1e-6 >= cfg.blank_seconds)
        if blank and current.in_hand and current.cards_this_hand and self._stale_hand != current.hand_number:
            # Not one card read in the frames of the last blank_seconds: the table was gathered (or the
            # view blocked whole), though each card's track lives on for track_patience.  A new deal put
            # down before that ran out (a vira turned 0.8 s after the last hand's cards left, where the
            # last vira lay) was taken for the running hand's cards seen again, and a whole hand was lost
            # (rendered seed 13, a Paulista hand left a covered card short).  The tracks end here, so a
            # card seen again finds where it lay (_seen_again) and a new one is new.
            on_table = False
            self.tracks = [t for t in self.tracks if t.anchor is not None and t.anchor.kind == "deck"]
            self._swept(frame.t, current, self._blank_since)
        elif blank and not current.in_hand:
            # Between hands the same: not one card read for blank_seconds, the finished hand's cards were
            # gathered though their tracks live on.  The next vira turned within a track's patience where
            # the last one lay, and the same card (a rendered Paulista table turned 6D twice in a row, the
            # table empty 0.7 s between), was taken for the old vira seen again, and the whole hand was
            # shown as cards put down after the hand.
            self.tracks = [t for t in self.tracks if t.anchor is not None and t.anchor.kind == "deck"]
            self._blank_since = None
            self._forget_finished(frame.t, f"table cleared (nothing seen for {cfg.blank_seconds:g} s)")
            return
        if on_table:
            self._empty_since = None
            self._had_cards = True
            self._cleared_reported = False
            return
        if self._empty_since is None:
            self._empty_since = frame.t
        empty_for = frame.t - self._empty_since
        if not self._had_cards:
            return
        if not current.in_hand:
            if empty_for >= cfg.reset_seconds:
                self._forget_finished(frame.t, "table cleared")
            return
        if current.cards_this_hand == 0:
            return  # (a vira alone going out of sight is no swept table)
        # a frame exactly swept_seconds on counts (frame times are decimals: 47.0 - 46.7 falls a hair
        # short of 0.3, and a rendered Clean-28 session lost its last hand to it).  The longer tests keep
        # the strict comparison: a poor detector's cards vanish for about cleared_seconds, and
        # counting that frame too cost a whole session under --noise hard (93.3 % -> 86.7 % of hands).
        if empty_for + 1e-6 >= cfg.swept_seconds and self._stale_hand != current.hand_number:
            self._swept(frame.t, current, self._empty_since)
        if empty_for < cfg.cleared_seconds:
            return
        # the table was cleared while the engine still has the hand running
        self._had_cards = False
        self.anchors = [a for a in self.anchors if a.kind == "deck"]
        self.events.append(f"{frame.t:.2f}s table cleared during the hand")
        self._cleared_hand = current.hand_number
        if not current.game_over and not self._cleared_reported:
            self._cleared_reported = True
            submit(Proposal(closing_event(current), frame.t, 0.5, "vision", ["table_cleared"],
                            "table cleared before the hand ended", True, frame.t))

    def _forget_finished(self, now: float, what: str) -> None:
        """Between hands, the table was cleared: the finished hand's cards are forgotten (the deck kept), so a
        card seen where one of them lay is a new one."""
        self._had_cards = False
        self.anchors = [a for a in self.anchors if a.kind == "deck"]
        self.epoch += 1
        self.events.append(f"{now:.2f}s {what}")

    def _swept(self, now: float, current: TableView, since: float) -> None:
        """Every card of the running hand left the view at ``since``: swept (a new deal that follows
        closes the hand) or all hidden at once; where each card lay tells a card seen again from a new one."""
        self._stale_hand = current.hand_number
        self._stale_cards = {a.label: a.box for a in self.anchors if a.kind != "deck"}
        self._stale_since, self._stale_back = since, False
        self._sweep_open = since
        self.anchors = [a for a in self.anchors if a.kind == "deck"]
        self.epoch += 1
        self.events.append(f"{now:.2f}s every card of the hand left the view")

    def _rivalled(self, track: Track, named: str, others: list[str]) -> bool:
        """Whether a card read as ``named`` has another possible reading close enough to ask about.

        Why: on a deck it never trained on, the classifier spreads its belief, and
        it reads most of the cards it names *right* below ``apply_confidence``. On
        the rendered sessions' held-out decks, 2 of 3 cards were asked about, and
        live, each question waits for the table.  A weak reading with no possible
        rival -- its other readings out of the deck, already played, or far less
        supported -- is not a doubt that a question settles.  ``doubt_margin`` 3 was
        chosen on seed 0's sessions: right cards asked about 53 % -> 21 %, every
        wrong card still asked about.  It was then checked on seed 1's: 21 % of the
        right cards asked about, 25 of the 30 wrong ones.
        """
        if not others:
            return False
        return track.support(named) < self.config.doubt_margin * track.support(others[0])

    def _decide(self, track: Track, now: float, view: ViewFn, submit: Submit) -> None:
        current = view()
        self._view_hand, self._view_in_hand = current.hand_number, current.in_hand
        anchor = self._find_anchor(track)
        if anchor is not None and self._seen_elsewhere(track, anchor):
            return  # another card read as this one at first: read it a little longer
        if anchor is not None:
            track.anchor = anchor
            track.decided = True
            anchor.track_id = track.id
            anchor.last_t = track.last_t
            return
        label = track.label
        conf = track.confidence
        zone = self._zone(track.box)
        t = track.first_t

        def propose(event: dict[str, Any], flags: list[str], reason: str = "", blocking: bool = True,
                    retakes: tuple[str, str | None] | None = None) -> None:
            if track.relabel_reason and blocking:
                reason = track.relabel_reason + ("; " + reason if reason else "")
                flags = ["reread"] + flags
            named = event.get("card") or event.get("vira")  # a play's card or a new hand's vira
            others = _possible_readings(track, (BACK, named), current)[:3]
            if conf < self.config.apply_confidence and "low_confidence" not in flags:
                flags = flags + ["low_confidence"]
                reason = (reason + "; " if reason else "") + f"confidence {conf:.2f}"
                if named is not None and not self._rivalled(track, named, others):
                    flags.append("unrivalled")  # held a moment while it is read on, not asked about
                elif event.get("covered") and not self._rivalled(track, BACK, others):
                    # a face-down play whose face readings are all far weaker than its back (measured: all
                    # 24 weak covered plays of the rendered sessions asked about were face down)
                    flags.append("unrivalled")
            prop = Proposal(event, t, conf, "vision", flags, reason, blocking, now, box=track.box, zone=zone,
                            alternatives=others if named and flags else [], retakes=retakes)
            submit(prop)
            if named and flags and blocking:  # it will wait for an answer: keep reading the card meanwhile
                self._waiting.append((track, prop, "vira" if "vira" in event else "card"))

        def show(card: str, flag: str, reason: str) -> None:
            """A card that is no play (impossible, or a ghost): shown for the seat due, never applied."""
            self._anchor(track, "flagged")
            propose({"type": "play", "seat": current.turn if current.turn is not None else -1, "card": card},
                    [flag], reason, blocking=False)

        if current.game_over:
            self._anchor(track, "ignored")
            return

        by_deck = self._in_middle(track.box)
        if not (label == BACK and by_deck):
            self._sweep_open = None  # a card after the sweep: the hand goes on, or a new one began
        if (current.in_hand and self._stale_hand == current.hand_number and self._seen_again(label, track.box)
                and not (self._cleared_hand == current.hand_number and self._gathered(now))):
            # The view was blocked, the card never moved: nothing new.  Unless the table was cleared and
            # none of the swept cards came back for cleared_seconds: then they were gathered, and the same
            # card where it lay is the next deal's (a rendered Argentine mano dealt 10O where his 10O of
            # the swept hand had lain, 2.4 s on: taken for the old card, the whole hand was lost)
            self._anchor(track, "play")
            self._stale_back = True
            return
        if (current.in_hand and self._stale_hand == current.hand_number and label != BACK
                and label in current.deck
                # a vira by the deck is a deal; without a vira, any card, once the table stayed empty
                # for cleared_seconds (a moment's blackout must not end a hand), or once that long has
                # passed since the sweep with none of the swept hand's cards seen again: they were
                # gathered, not hidden (a six-player Argentine table was empty 1.1 s between hands, and
                # the next hand's cards went into the one still waiting on a card the camera missed)
                and (by_deck if current.uses_vira else self._cleared_hand == current.hand_number
                     or self._gathered(now))):
            # The table was swept while the engine still ran the hand, and now a card is turned by
            # the deck (or, without a vira, put down): a new deal.  The hand the engine waits on
            # lost a card to the camera; close it (asked about, a guess when no one answers) rather
            # than take the new deal's cards for its missing plays, which shifts every later hand.
            self._stale_hand = None
            # before the deal, and before any card still being looked at (the deal may be dated back to it)
            waiting = self._first_seen_undecided(track)
            close_t = (t if waiting is None else min(t, waiting)) - 2e-3
            if self._stale_since is not None:
                # the hand ended when its cards were swept: what was said since belongs to the new one
                # (Fusion holds words heard during the sweep until this card says which hand it is)
                close_t = min(close_t, self._stale_since + 1e-3)
            submit(Proposal(closing_event(current), close_t, 0.5, "vision", ["new_deal"],
                            "a new deal began while the hand was not over (a card missed?): hand closed",
                            True, now))
            current = _after_close(current)
            self._view_in_hand = False

        # (beside the deck too when it lies in a seat's zone: below, it would go in as a covered play,
        # which the engine refuses now -- a rendered Mineiro hand lost seat 1's KD so, seed 2)
        if (label == BACK and self.config.runner_up and current.in_hand and not current.face_down_ok
                and (not by_deck or zone not in (CENTRE, None))):
            # a face-down card cannot be played now (not in this variant, not in the first trick...):
            # a card put down on a seat's side is face up and was misread; ask about its likeliest face
            if track.hits < 2 * self.config.min_frames:
                return  # a back box seen a moment beside a card being put down (a hand) is no card: look longer
            faces = _possible_readings(track, (BACK,), current)
            if (faces and _out_of_turn(zone, current)
                    and track.support(faces[0]) < self.config.ghost_face_support * track.hits):
                # out of its seat's turn, and no face read in it to speak of (a rendered Mineiro hand: a
                # back at 0.15 beside a played AD, its best face JC at 0.0004 a frame, took seat 4's turn)
                show(faces[0], "ghost", "a back where no card may be face down, out of turn, with no face read in it")
                return
            if faces:
                label = faces[0]
                track.relabel(label, f"{FACE_DOWN_REASON}; next best reading {label}", face_down=True)
                conf = min(track.confidence, 0.5)  # (the runner-up's: confidence reads the override)
        if label == BACK:
            if zone == CENTRE or zone is None and not current.in_hand:
                self._anchor(track, "deck")
                if self.zones is not None and self.zones.cal.source == "auto" and not current.in_hand:
                    self._recentre(track.box)
                return
            if not current.in_hand:
                self._anchor(track, "ignored")  # cards dealt face down, not yet in play
                return
            if track.hits < self.config.covered_frames:
                # a back seen a moment in a seat's zone may be a card carried in face down, about to be put
                # down face up (a rendered Mineiro hand: a back seen three frames went in as seat 0's covered
                # play and ended the hand; its 4C came next, and the next trick, as cards after the hand)
                return
            self._anchor(track, "covered")
            self._propose_play(track, {"type": "play", "covered": True}, zone, current, propose)
            return

        if label not in current.deck or label in current.played:
            if self.config.runner_up and track.hits < 2 * self.config.min_frames and label != BACK:
                return  # an impossible reading: look a little longer before deciding anything
            # the detector's best reading is impossible; its next best reading of
            # the same card may not be (a confused label, not a second card)
            retake = self._retake(track, label, current) if label in current.deck else None
            if retake is not None:
                self._take_back(track, label, zone, current, retake, propose)
                return
            others = _possible_readings(track, (label, BACK), current)
            twin = label in current.deck and self._twin_in_view(track, label)
            # a second physical card put down in the zone of the seat due is that seat's play even when
            # its next reading is weak: its face is in doubt (asked about), the play is not.  Shown as
            # "already out" instead, the play was lost and every later card took the wrong seat
            # (recorded video streams: seed 0 one hand more scored right, seed 1 and noise unchanged)
            certain = twin and isinstance(zone, int) and zone in current.seats_due
            if (self.config.runner_up and others
                    and (track.support(others[0]) >= 0.25 * track.votes[label] or certain)
                    and (label not in current.deck or twin)):
                why = "not in this variant's deck" if label not in current.deck else "already out in this hand"
                first_reading = label
                label = others[0]
                conf = min(conf, 0.5)
                track.relabel(label, f"read as {first_reading} ({why}); next best reading {label}")
        if label not in current.deck:
            show(label, "not_in_deck", f"{label} is not in this variant's deck")
            return
        if label in current.played:
            if self._give_way(track, label, zone, current):
                return  # decided on the next frame, when the view has the twin's new reading
            show(label, "duplicate", f"{label} is already out in this hand")
            return

        if not current.in_hand:
            if (not by_deck or self._on_finished_card(track)) and self._finished_on_table():
                # the engine ended the hand but its cards still lie there and this one was put down
                # in a seat's zone: a late card of that hand, not the next vira or first play.  A
                # misread card may have ended the hand early (a trick given to the wrong side), so
                # fusion tries the hand again with a card of it read otherwise (Fusion._after_hand);
                # where nothing lets this card in, it is shown, not applied.
                # (a play of that hand for the tracker: finished with it once the next hand begins.  As a
                # "flagged" card of the next hand, it silenced that hand's first card put down where it lay
                # when read otherwise: rendered Clean-28 sessions of seeds 10 and 32 lost their next hands)
                self._anchor(track, "play").hand = current.hand_number
                propose({"type": "play", "seat": zone if zone is not None else -1, "card": label},
                        ["after_hand"], "a card put down after the hand ended")
                return
            if current.uses_vira:
                if not by_deck and now - track.first_t < self.config.vira_grace:
                    return  # the vira may still be hidden: do not take a played card for it yet
                if by_deck and self._surer_vira(track, current):
                    return  # another face by the deck is the vira; this one waits (the deck misread?)
                if by_deck and self._last_vira_in_view(track):
                    return  # the last hand's vira still lies where it was turned: the cards were not gathered
                self._anchor(track, "vira")
                # the deal came before any card seen while the vira was hidden
                waiting = self._first_seen_undecided(track)
                if waiting is not None:
                    t = min(t, waiting - 1e-3)
                flags = [] if by_deck else ["vira_outside_centre"]
                propose({"type": "hand", "dealer": current.next_dealer, "vira": label}, flags,
                        "" if not flags else "first card of the hand lies in a seat zone")
                return
            submit(Proposal({"type": "hand", "dealer": current.next_dealer}, t, 1.0, "vision", [],
                            "first card of a new hand", True, now))
            dealt = view()
            current = dealt if dealt.in_hand else _after_deal(current)
        elif by_deck and self._swap_vira(track, label, now, current, submit):
            return
        elif zone == CENTRE and conf < self.config.centre_play_confidence:
            # Measured on rendered hands: every barely readable face-up card by the deck during a hand
            # was a ghost (the deck or the vira boxed twice, a card passing over the middle), and each
            # one applied took a seat's turn and shifted every later card.  Shown, not applied.
            show(label, "by_deck", "a barely readable card by the deck, not in front of a seat")
            return
        elif conf < self.config.centre_play_confidence and self._over_plays(track) >= self.config.pile_share:
            # A barely readable box lying over cards already played in this hand is the pile boxed
            # again (one card half under another, boxed as one), not a new card: applied, it took a
            # seat's turn and every later card of the trick went to the seat after its own (rendered
            # seed 3, a six-player Paulista hand).  Shown, not applied.
            show(label, "pile", "a barely readable box over cards already played")
            return
        if _out_of_turn(zone, current) and self._part_of_unseen_play(track):
            # The detector boxed a part of a card played in this hand, alone, while the card's own box
            # was not seen or read as another (its other half read as a back): a rendered Paulista hand's
            # 6D, its upper half read 2D at 0.21, took the next seat's turn.  Out of turn and inside a
            # played card: shown, not applied.
            show(label, "pile", "a box inside a card already played, seen while that card was not")
            return
        twin = self._same_moment_twin(track, zone)
        if twin is not None:
            self._name_back_play(twin, track, label, now, submit)
            self._anchor(track, "flagged")
            track.twin_of = twin
            track.note_decided()
            propose({"type": "play", "seat": zone, "card": label}, ["twin_box"],
                    f"a second box in seat {zone}'s zone, seen first in the same frame as a surer card there",
                    blocking=False)
            return
        self._anchor(track, "play")
        track.proposed_play = True
        self._propose_play(track, {"type": "play", "card": label}, zone, current, propose)

    def _take_back(self, track: Track, label: str, zone: int | None, current: TableView,
                   retake: tuple[Track, str], propose: Callable[..., None]) -> None:
        """``track`` is a play of ``label``; the card that went in as ``label`` is renamed (fusion puts the
        hand in again after it: companion.table.amend).  Should that not go in, this card takes its own
        next reading, as when it gave way."""
        twin, name = retake
        fallback = _possible_readings(track, (label, BACK), current)
        old = twin.anchor.label if twin.anchor is not None else label
        twin.relabel(name, f"read as {old}, which another card read so more surely took; next best reading {name}")
        if twin.anchor is not None:
            twin.anchor.label = name
        self.events.append(f"{track.first_t:.2f}s {label} read surely: the card that went in as {label} "
                           f"is read again as {name}")
        retakes: tuple[str, str | None] | None = (name, fallback[0] if fallback else None)
        for other, prop, key in self._waiting:
            if other is twin and not prop.settled:  # not in the log yet: renamed where it waits
                prop.event[key] = name  # key: "card" or "vira"
                prop.alternatives = [k for k in prop.alternatives if k != name]
                prop.reason = (prop.reason + "; " if prop.reason else "") + twin.relabel_reason
                self._gave_way = True
                retakes = None
        self._anchor(track, "play")
        track.proposed_play = True
        self._propose_play(track, {"type": "play", "card": label}, zone, current, propose, retakes=retakes)

    def _give_way(self, track: Track, label: str, zone: int | None, current: TableView) -> bool:
        """Two cards read the same: a waiting one, given the turn of the seat whose zone this card lies
        in while it lies in another seat's zone, and this one.  This card is that seat's play; the
        waiting one takes its next possible reading (and, with the seats of their zones, fusion puts
        the two in the order they lie).  True when the waiting proposal was changed.

        Why: measured on a rendered six-player Argentine hand, 2E was read as 5E and decided a moment
        before the real 5E, both at once; the real one was shown as "already out" and never played, and
        every later card of the hand went to the wrong seat."""
        if not isinstance(zone, int) or zone == CENTRE:
            return False
        for twin, prop, key in self._waiting:
            if (key != "card" or prop.settled or twin is track or prop.event.get("card") != label
                    or prop.event.get("seat") != zone or prop.zone in (None, CENTRE, zone)):
                continue
            others = _possible_readings(twin, (BACK, label), current)
            if not others:
                return False
            prop.event["card"] = others[0]
            twin.rename(others[0])
            twin.gave_way = label
            if twin.anchor is not None:
                twin.anchor.label = others[0]
            prop.alternatives = others[1:4]
            prop.reason = (prop.reason + "; " if prop.reason else "") + (
                f"read as {others[0]}: a card read {label} lies in seat {zone}'s zone")
            self.events.append(f"{track.first_t:.2f}s {label} in seat {zone}'s zone: the card in seat "
                               f"{prop.zone}'s zone read again as {others[0]}")
            self._gave_way = True
            return True
        return False

    def _propose_play(self, track: Track, event: dict[str, Any], zone: int | None, current: TableView,
                      propose: Callable[..., None], retakes: tuple[str, str | None] | None = None) -> None:
        flags: list[str] = []
        reason = ""
        seat = current.turn
        if zone is not None and zone != CENTRE and zone in current.turns:
            seat = zone  # several seats may play (pica-pica): the zone says which one did
        if seat is None:
            seat = zone if zone not in (None, CENTRE) else -1
            flags.append("no_turn")
            reason = "no seat is due to play (a bet waits for an answer?)"
        elif self._guessing_zones():
            self._learn_zones(seat, _center(track.box))  # no calibration: where each seat plays teaches it
        elif zone not in (None, CENTRE) and zone != seat and self.zones is not None:
            if self.zones.angular_offset(_center(track.box), seat) > self.config.zone_margin:
                flags.append("wrong_seat")
                reason = f"card lies in seat {zone}'s zone, but it is seat {seat}'s turn"
        event = {"type": "play", "seat": seat, **{k: v for k, v in event.items() if k != "type"}}
        if "card" in event:  # what it was read as so far: see _late_reread
            track.note_decided()
        propose(event, flags, reason, retakes=retakes)

    def _over_plays(self, track: Track) -> float:
        """The share of ``track``'s box that lies over cards played in the running hand (a grid of
        points, each inside one of their boxes or not)."""
        boxes = [a.box for a in self.anchors if a.kind == "play" and a.hand == self._view_hand
                 and a.track_id != track.id]
        if not boxes:
            return 0.0
        x1, y1, x2, y2 = track.box
        xs = [x1 + (x2 - x1) * (i + 0.5) / 10 for i in range(10)]
        ys = [y1 + (y2 - y1) * (j + 0.5) / 10 for j in range(10)]
        inside = sum(1 for x in xs for y in ys if any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes))
        return inside / 100.0

    def _part_of_unseen_play(self, track: Track) -> bool:
        """``track``'s box lies within a card played in the running hand (``part_share`` of it inside that
        card's box as last read so) whose own track was not seen, or not read as that card, in any frame
        since ``track`` began (another of the detector's boxes took its place): that card boxed in part."""
        for anchor in self.anchors:
            if anchor.kind != "play" or anchor.hand != self._view_hand or anchor.track_id == track.id:
                continue
            owner = self._owner(anchor)
            where = owner.box_read.get(anchor.label, anchor.box) if owner is not None else anchor.box
            if inside_share(track.box, where) < self.config.part_share:
                continue
            if (owner is None or owner.last_t < track.first_t
                    or (owner.last_read != anchor.label and owner.read_since <= track.first_t)):
                return True
        return False

    def _same_moment_twin(self, track: Track, zone: int | None) -> Track | None:
        """A surer card, proposed as a play, first seen in the same frame as ``track``, overlapping it,
        in the same seat's zone: one card (and the hand putting it down) boxed twice.

        Why: a seat puts down one card at a time.  Measured on a rendered Clean-28 hand: a card being
        put down showed three boxes in its first frame; two became plays, and every later card of the
        hand took the wrong seat.  (Cards first seen a few frames apart are not caught: a card seen
        late beside the same seat's next card is a real play: a rule over half a second lost one under
        ``--noise hard``.)  Recorded video streams: seed 0 one hand more scored right, seed 1 and the noise
        modes unchanged."""
        if not isinstance(zone, int) or zone == CENTRE:
            return None
        return next((other for other in self.tracks
                     if other is not track and other.proposed_play and other.first_t == track.first_t
                     and (other.confidence > track.confidence or _read_face_down(other))
                     and iou(other.box, track.box) > 0.0 and self._zone(other.box) == zone), None)

    def _name_back_play(self, play: Track, face: Track, label: str, now: float, submit: Submit) -> None:
        """``face``, a face box flagged a second box of ``play``, a play that went in from a back read as face
        down, names that play ``label`` when it is named at ``TrackerConfig.face_over_back`` or more, and more
        surely than any face that named the play before, while the play still waits or settles: one card
        boxed twice as it was put down is one play, named by the box that read its face.

        Why: the back's name is the detector's runner-up face for a box it took for a back (p 0.01), the
        face box's the classifier's best.  Traced on rendered Clean-28 hands: seat 5's 7H boxed as a back
        (AH) and as 7H at 0.59 (seed 502), seat 3's 2H as a back (JH) and as 7H at 0.35 and 2H at 0.63 (seed
        1010); under the bar, seat 0's 3H as a back (3H, right) and as 2H at 0.15 (seed 1019), seat 3's 7H as
        a back (JH) and as AH at 0.235 (seed 484), seat 0's 7H as a back (2H) and as 7H at 0.23 (seed 988)."""
        bar = self.config.face_over_back
        if bar is None or not _read_face_down(play) or label == play.label:
            return
        sure = face.sureness
        if sure < max(bar, play.named_by_face):
            return
        for other, prop, key in self._waiting:
            if other is not play or key != "card" or (prop.settled and not _settling(prop, now)):
                continue  # (applied for good: what is in the log stays)
            old = prop.event.get(key)
            play.named_by_face = sure
            play.relabel(label, f"{FACE_DOWN_REASON}; named {label} by a face boxed with it", face_down=True)
            if play.anchor is not None:
                play.anchor.label = label
            self.events.append(f"{now:.2f}s {old}, boxed as a back, is {label} read on its face box: renamed")
            if prop.settled:  # in the log already: fusion renames it there
                prop.open_until = None
                prop.event[key] = label
                self._submit_rename(play, old, label, now, submit, f"{old} boxed as a back and as {label}")
            else:
                prop.event[key] = label
                prop.alternatives = [old] + [a for a in prop.alternatives if a not in (old, label)][:2]
                prop.reason = (prop.reason + "; " if prop.reason else "") + f"named {label} by a face boxed with it"
                self._gave_way = True  # changed in place: what the table looks like is worked out anew
            return

    def _surer_vira(self, track: Track, current: TableView) -> bool:
        """Another face-up card by the deck, not yet decided, is read more surely than ``track``.

        Why: at a deal the deck and the vira lie side by side, and the back of a
        deck the classifier never saw is read as some face at a low confidence.
        Measured on a rendered Clean-28 session: the deck (read QS at 0.11) and the
        vira (2S, read 2C at 0.17) were decided in the same frame, the deck first;
        the deck became the vira and the vira a play.  The real vira is a face:
        the surer one is taken, and the other, decided after it, is a ghost by the
        deck when it is barely readable (``centre_play_confidence``).
        """
        for other in self.tracks:
            if other is not track and self._face_on_deck(other, current) > track.confidence:
                return True  # a card turned where the deck lay, the deck now beside it (see _turned_up)
            if (other is track or other.decided or other.missed or other.label == BACK
                    or other.label not in current.deck or other.hits < self.config.min_frames):
                continue
            if self._in_middle(other.box) and other.sureness > track.sureness:
                return True
        return False

    def _last_vira_in_view(self, track: Track) -> bool:
        """The finished hand's vira is still in view (its track, not ``track``, lives: seen within its patience).

        Why: a new vira is turned only after the last hand's cards, its vira and deck among them, were
        gathered and shuffled.  While the old vira still lies in view, a face by the deck is the deck
        itself read as a face (a back the classifier never saw) or a card passing over the middle.
        Measured on the recorded streams: the held-out one-pip deck's back, read QC at 0.05, became the
        vira of a new hand as soon as the engine ended the last one, four seconds before the sweep, and
        the real deal that followed closed that phantom hand and lost it."""
        return any(other is not track and other.anchor is not None
                   and other.anchor.kind == "finished" and other.anchor.kind_before == "vira"
                   for other in self.tracks)

    def _face_on_deck(self, track: Track, current: TableView) -> float:
        """How surely a track taken for the deck reads as a face while another deck, a back, lies in view
        (its likeliest face's mean confidence, once read so in ``min_frames`` frames); 0 otherwise.  Such a
        card is released as a face once the face outvotes the back (:meth:`_turned_up`); until then a
        fainter face by the deck must not be taken for the vira first."""
        if not (track.decided and track.anchor is not None and track.anchor.kind == "deck" and not track.missed):
            return 0.0
        faces = [k for k in track.votes
                 if k != BACK and k in current.deck and track.counts.get(k, 0) >= self.config.min_frames]
        if not faces or not self._other_deck_in_view(track):
            return 0.0
        face = max(faces, key=lambda k: track.votes[k])
        return track.votes[face] / track.counts[face]

    def _first_seen_undecided(self, track: Track) -> float | None:
        """When the earliest other card still being looked at was first seen (None: there is none).
        A deal is dated before it: the vira may have been hidden while that card was put down."""
        times = [tr.first_t for tr in self.tracks if tr is not track and not tr.decided and tr.hits >= 2]
        return min(times) if times else None

    def _gathered(self, now: float) -> bool:
        """The swept hand's cards stayed away ``cleared_seconds`` after the table emptied: none of them
        was seen again where it lay (a hand over the table, a detector's blackout, give them back)."""
        return (not self._stale_back and self._stale_since is not None
                and now - self._stale_since + 1e-6 >= self.config.cleared_seconds)

    def _seen_again(self, label: str, box: Box) -> bool:
        """A card of the swept hand back where it lay (the view was only blocked)."""
        old = self._stale_cards.get(label)
        return old is not None and iou(old, box) >= self.config.iou_match

    def _on_finished_card(self, track: Track) -> bool:
        """This box lies on a card played in the hand just ended, seen there until a moment before this
        track began: that card boxed again (a hand passed over it) and read otherwise, not a new one.
        Beside the deck it was taken for the next hand's first card (a rendered Mineiro table: KH boxed
        again read JH at 0.30 opened a hand nobody dealt, and the next hand's plays took the wrong seats).
        Not the last vira: the next one is turned where it lay."""
        return self._zone(track.box) not in (CENTRE, None) and any(
            a.kind == "finished" and a.kind_before in ("play", "covered")
            and iou(a.box, track.box) >= self.config.relabel_iou
            and track.first_t - a.last_t <= self.config.track_patience
            for a in self.anchors)

    def _finished_on_table(self) -> bool:
        """Cards of the hand that just ended are still in view (the table was not swept yet)."""
        return any(a.kind == "finished" for a in self.anchors)

    def _in_middle(self, box: Box) -> bool:
        """In the centre zone (or no zone: no calibration yet) or right beside the deck."""
        return self._zone(box) in (CENTRE, None) or self._by_deck(box)

    def _on_deck(self, box: Box) -> bool:
        """In the centre zone, or on a place the deck was seen at (``anchor_iou``)."""
        return self._zone(box) == CENTRE or any(
            anchor.kind == "deck" and iou(anchor.box, box) >= self.config.anchor_iou for anchor in self.anchors)

    def _by_deck(self, box: Box) -> bool:
        """Right beside the deck (where the vira is turned), whatever the zones say."""
        for anchor in self.anchors:
            if anchor.kind == "deck" and math.dist(_center(anchor.box), _center(box)) <= 1.6 * _size(anchor.box):
                return True
        return False

    def _guessing_zones(self) -> bool:
        return self.zones is not None and self.zones.cal.source == "auto"

    def _learn_zones(self, seat: int, point: tuple[float, float]) -> None:
        """Automatic zones from the first trick: each card's seat comes from the
        turn order, so once every seat has played, the seat directions are
        fitted (circular mean of angle minus seat step, both directions of
        play tried) and the zones are used from then on."""
        assert self.zones is not None
        self._zone_samples.append((seat, point))
        seats = {s for s, _ in self._zone_samples}
        if len(seats) < self.players:
            return
        cal = self.zones.cal
        deck = next((a for a in self.anchors if a.kind == "deck"), None)
        if deck is not None:
            cx, cy = _center(deck.box)
        else:
            cx = sum(p[0] for _, p in self._zone_samples) / len(self._zone_samples)
            cy = sum(p[1] for _, p in self._zone_samples) / len(self._zone_samples)
        step = 2.0 * math.pi / self.players
        best = None
        for direction in (1.0, -1.0):
            xs = ys = 0.0
            for s, (x, y) in self._zone_samples:
                a = math.atan2(cy - y, x - cx) - direction * step * s
                xs += math.cos(a)
                ys += math.sin(a)
            strength = math.hypot(xs, ys) / len(self._zone_samples)
            if best is None or strength > best[0]:
                best = (strength, direction, math.atan2(ys, xs))
        _, direction, a0 = best
        reach = sorted(math.dist((cx, cy), p) for _, p in self._zone_samples)[len(self._zone_samples) // 2]
        seat0 = (cx + reach * math.cos(a0), cy - reach * math.sin(a0))
        self.zones = Zones(Calibration((cx, cy), seat0, self.players, cal.image_size, None, direction < 0,
                                       "learned"))
        self.events.append(f"seat zones learned from the first trick (seat 0 at {seat0[0]:.0f},{seat0[1]:.0f})")

    def _recentre(self, box: Box) -> None:
        """Automatic zones: the deck marks the table centre better than the image centre."""
        assert self.zones is not None
        cal = self.zones.cal
        cx, cy = _center(box)
        size = cal.image_size or (int(2 * cx), int(2 * cy))
        if math.dist((cx, cy), (size[0] / 2, size[1] / 2)) < 0.25 * min(size):
            self.zones = Zones(auto_calibration(size, cal.players, (cx, cy)))


def closing_event(view: TableView) -> dict[str, Any]:
    """The event that ends a hand the table gave up on: refusing the open bet,
    else a fold.  Who folds is a guess for the table to confirm; the least bad
    one is the team behind on tricks (the first trick decides a tie in every
    variant), so the team ahead takes the stake; with no trick decided, the
    seat due to play."""
    if view.answering_seat is not None:
        return {"type": "refuse", "seat": view.answering_seat}
    seat = view.turn if view.turn is not None else (view.mano or 0)
    decided = [w for w in view.trick_winners if w is not None]
    if decided:
        wins = [decided.count(0), decided.count(1)]
        ahead = decided[0] if wins[0] == wins[1] else (0 if wins[0] > wins[1] else 1)
        if seat % 2 == ahead:
            seat = (seat + 1) % view.players
    return {"type": "fold", "seat": seat}


def _after_close(view: TableView) -> TableView:
    """The view once the running hand is closed (no hand running)."""
    return TableView(view.players, view.deck, view.uses_vira, False, None, frozenset(), view.next_dealer,
                     view.game_over, view.hand_number, None, 0, None, ())


def _after_deal(view: TableView) -> TableView:
    """The view right after a ``hand`` event, for proposing the first play of a
    hand without a vira before the engine has seen the deal."""
    mano = (view.next_dealer + 1) % view.players
    return TableView(view.players, view.deck, view.uses_vira, True, mano, frozenset(), view.next_dealer,
                     view.game_over, view.hand_number + 1, None, 0, mano, (mano,))
