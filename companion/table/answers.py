"""A table that answers the companion's questions, for measuring a live table on rendered sessions.

Why: unattended (the evaluation's default) every card the companion holds for
the table's word is applied after a timeout, so its figures are those of a
table where nobody ever answers.  A live table answers: the companion asks
"? 7C, seat 2 -- confirm or reject", and a player looks at the card and says
"sim", picks the right reading, or types the card.  This module plays that
player from the renderer's ground truth, so the evaluation can report what a
table that answers ends up with, and how often it had to answer.

It answers questions about what a camera card is (a play or a new hand's
vira read weakly, or read again), types the due seat's card the camera missed
when the companion holds the next seat's card for lying outside the due seat's
zone, names impossible cards it shows, and says who
made a call both teams could have made (the session's transcript says who said
each call).  A card it settles unasked (``~``, see ``Fusion.settles``) is left
alone, as a table would; every other doubt (a call the speech matcher doubts
for its words, a table cleared early) is left to the timeout, since the
rendered truth does not say what a player would answer there.  The player looks at the card where the companion saw it:
the true card whose box overlaps the proposal's box most, in the scene as it
was when the question was asked (a trick may be gathered before the answer).
Asked for a new hand's vira, the player answers with the card turned by the
deck, not with whatever lies under the box: a play taken for the vira is a
wrong vira even when it was read right.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from companion.boxes import iou
from companion.table.observations import CARD_EVENTS, Proposal, card_key, seat_choice

# doubts about what the card is, which a look at it settles; a doubt about the seat or the order
# (``wrong_seat``: a card in another seat's zone, often seen before the card put down first) is
# left to the fusion's own reordering and timeout: confirming the card there would fix its seat
# before the card seen late puts the two back in the order of their zones
CARD_DOUBTS = frozenset({"low_confidence", "reread", "unrivalled"})


@dataclass
class TableAnswers:
    """Answers asked card proposals ``delay`` stream seconds after they are first held.

    Use as ``replay(..., on_frame=answers)``; ``counts`` tallies what was answered:
    ``confirmed`` (the reading was right), ``chosen`` (the right card was one of the
    readings offered), ``typed`` (rejected, and the right card typed instead),
    ``rejected`` (a back read as the vira), ``left`` (no card lies where the
    companion points: unanswered, the timeout decides); for impossible cards shown
    (alerts), ``alert_chosen`` / ``alert_typed`` (named) and ``alert_refused`` (the
    engine refused the name); for a card held in another seat's zone while the seat
    due's card lies unseen, ``missed_typed`` (that card typed for the seat due) and
    ``missed_refused`` (the engine refused it: a face-down card where none may be).
    """

    states: Sequence[dict[str, Any]]  # the renderer's scene states (``session.json``'s "states")
    delay: float = 1.0
    min_iou: float = 0.3
    # the calls said, as the transcript has them: (stream time, the true event) -- who said each
    calls: Sequence[tuple[float, dict[str, Any]]] = ()
    call_window: float = 2.0  # a call heard this many seconds from one said is that call
    deal_margin: float = 0.5  # a card put down this long before the deal was seen may still be one of its hand's
    counts: Counter = field(default_factory=Counter)
    _answered: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._times = [float(s["t"]) for s in self.states]

    def _cards_at(self, t: float) -> list[dict[str, Any]]:
        """The rendered cards on the table at stream time ``t`` (none before the first state)."""
        i = bisect.bisect_right(self._times, t) - 1
        return self.states[i]["cards"] if i >= 0 else []

    def truth_at(self, t: float, box: Sequence[float]) -> str | None:
        """The true card (TABLE-LOG notation or ``back``) lying where ``box`` is at stream time ``t``."""
        card = self.card_at(t, box)
        return None if card is None else card["card"]

    def card_at(self, t: float, box: Sequence[float]) -> dict[str, Any] | None:
        """The rendered card (its whole state entry: card, role, seat, t_on) lying where ``box`` is at time ``t``:
        the one it overlaps most, at least ``min_iou`` (of two alike, the later name in sort order)."""
        cards = [c for c in self._cards_at(t) if c.get("labelled", True)]
        scored = [(iou(tuple(box), tuple(c["box"])), c["card"], k) for k, c in enumerate(cards)]
        best = max(scored, default=(0.0, None, -1))
        return cards[best[2]] if best[0] >= self.min_iou else None

    def vira_at(self, t: float) -> str | None:
        """The card turned as the vira at stream time ``t`` (the renderer's role ``vira``), if one lies there.

        Why: asked "new hand, vira AH?" about a box on seat 3's first play, an AH, a player who
        only looked under the box confirmed it (seed 9); a player knows the vira is the card by
        the deck."""
        return next((c["card"] for c in self._cards_at(t) if c.get("role") == "vira"), None)

    def asked(self, fusion: Any, prop: Proposal) -> bool:
        """Whether ``prop`` is a camera card the companion is waiting on the table for."""
        return (prop.source == "vision" and prop.event.get("type") in CARD_EVENTS and prop.box is not None
                and prop.id in fusion.pending_since and not fusion.settles(prop)
                and bool(prop.flags) and set(prop.flags) <= CARD_DOUBTS)

    def missed(self, fusion: Any, prop: Proposal) -> dict[str, Any] | None:
        """The play a player types for the seat due when ``prop``, a camera card held for lying in another
        seat's zone (``wrong_seat``), was put down by that zone's seat and the seat due has a card on the
        table that the log does not hold, put down since the running hand's deal and before it (the latest
        such): the camera missed it.
        None when the held card is no such card (a card read in the wrong order, a ghost): left to the
        fusion's reordering and its timeout, as before."""
        due, zone = prop.event.get("seat"), prop.zone
        if (prop.source != "vision" or prop.event.get("type") != "play" or "wrong_seat" not in prop.flags
                or prop.box is None or zone is None or zone < 0 or due is None or zone == due):
            return None
        asked_at = fusion.pending_since[prop.id]
        held = self.card_at(asked_at, prop.box) or self.card_at(prop.t, prop.box)
        if held is None or held.get("role") != "play" or held.get("seat") != zone:
            return None
        hand = fusion.running_hand()
        if hand is None:
            return None
        dealt, events = hand
        logged = [e for e in events if e.get("type") == "play"]
        cards_in = {e.get("card") for e in logged if e.get("card")}
        covered_in = sum(1 for e in logged if e.get("covered") and e.get("seat") == due)
        # the due seat's cards put down since the deal (one of the last hand's may still lie there: seed 504) and
        # before the held card
        theirs = [c for c in self._cards_at(asked_at) if c.get("role") == "play" and c.get("seat") == due
                  and dealt - self.deal_margin <= float(c.get("t_on", 0.0)) <= float(held.get("t_on", asked_at))]
        backs = [c for c in theirs if c["card"] == "back"]
        faces = [c for c in theirs if c["card"] != "back" and c["card"] not in cards_in]
        if len(backs) > covered_in:
            faces.append(max(backs, key=lambda c: float(c.get("t_on", 0.0))))
        if not faces:
            return None
        card = max(faces, key=lambda c: float(c.get("t_on", 0.0)))["card"]
        return ({"type": "play", "seat": due, "covered": True} if card == "back"
                else {"type": "play", "seat": due, "card": card})

    def __call__(self, session: Any, _image: Any, _frame: Any) -> None:
        fusion = session.fusion
        for prop in list(fusion.pending):
            if (prop.id not in self._answered and "wrong_seat" in prop.flags
                    and fusion.now - fusion.pending_since[prop.id] >= self.delay):
                event = self.missed(fusion, prop)
                if event is not None:
                    self._answered.add(prop.id)
                    self.counts["missed_typed" if fusion.enter(event, "typed") else "missed_refused"] += 1
                    continue
            if (prop.id not in self._answered and self.calls and prop.source == "voice" and prop.alternatives
                    and fusion.now - fusion.pending_since[prop.id] >= self.delay):
                self._answered.add(prop.id)
                self.speaker(fusion, prop)
                continue
            if prop.id in self._answered or not self.asked(fusion, prop):
                continue
            if fusion.now - fusion.pending_since[prop.id] < self.delay:
                continue
            self._answered.add(prop.id)
            # the card the question was about: where it lay when it was asked (a trick may be
            # gathered before the answer), else when it was first seen
            asked_at = fusion.pending_since[prop.id]
            truth = self.truth_at(asked_at, prop.box)
            truth = truth if truth is not None else self.truth_at(prop.t, prop.box)
            if card_key(prop.event) == "vira" and truth not in (None, "back"):
                # a face where the companion points: the vira is the card by the deck, whatever lies there
                truth = self.vira_at(asked_at) or self.vira_at(prop.t) or truth
            self.answer(fusion, prop, truth)
        self.alerts(fusion)

    def alerts(self, fusion: Any) -> None:
        """Name an impossible card shown ("! ... already out [or 1: ..]") when what lies there is another
        card: from its readings, or typed.  A ghost (the true card is the one already out, or the
        named card is illegal) changes nothing: the engine refuses it."""
        if fusion.pending:  # a player answers the waiting card first
            return
        for alert in list(fusion.alerts):
            if (alert.id in self._answered or alert.settled or alert.box is None or alert.source != "vision"
                    or alert.event.get("type") not in CARD_EVENTS or alert.event.get("covered")):
                continue
            if fusion.now - (alert.emitted_t if alert.emitted_t is not None else alert.t) < self.delay:
                continue
            self._answered.add(alert.id)
            truth = self.truth_at(alert.t, alert.box)
            key = card_key(alert.event)
            if truth is None or truth == "back" or truth == alert.event.get(key):
                continue
            if truth in alert.alternatives:
                ok = fusion.choose(alert.alternatives.index(truth) + 1, "key", alert.id)
                said = "alert_chosen"
            else:
                ok = fusion.enter({**alert.event, key: truth}, "typed") if self._due(fusion, alert) else False
                said = "alert_typed"
            self.counts[said if ok else "alert_refused"] += 1

    def speaker(self, fusion: Any, prop: Proposal) -> None:
        """Who made the call ``prop`` (asked because both teams could have made it): the seat of the
        call of that kind said nearest in time.  Confirmed when the companion named it, chosen when
        it is among the seats offered; when no such call was said, nobody answers (the timeout)."""
        said = [(abs(t - prop.t), e) for t, e in self.calls
                if e.get("type") == prop.event.get("type") and abs(t - prop.t) <= self.call_window]
        if not said:
            self.counts["call_left"] += 1
            return
        seat = min(said, key=lambda x: x[0])[1].get("seat")
        if seat == prop.event.get("seat"):
            fusion.confirm("voice", prop.id)
            self.counts["call_confirmed"] += 1
        elif seat_choice(seat) in prop.alternatives:
            fusion.choose(prop.alternatives.index(seat_choice(seat)) + 1, "key", prop.id)
            self.counts["call_chosen"] += 1
        else:
            self.counts["call_left"] += 1

    @staticmethod
    def _due(fusion: Any, alert: Proposal) -> bool:
        """Whether the alert's seat may play now (a player types a card for the seat due, not another)."""
        return alert.event.get("type") != "play" or fusion.due_seat(fusion.game, alert) is None

    def answer(self, fusion: Any, prop: Proposal, truth: str | None) -> None:
        """What a player who sees ``truth`` where the card lies says to ``prop``."""
        key = card_key(prop.event)
        covered = bool(prop.event.get("covered"))
        if truth is None:
            # no card where the companion points (a box between two cards, a card moved on): the
            # player cannot tell what it means and says nothing; the timeout decides
            self.counts["left"] += 1
        elif truth == "back" and covered:  # a face-down play, face down
            fusion.confirm("voice", prop.id)
            self.counts["confirmed"] += 1
        elif truth == "back" and key == "vira":  # a back is no vira
            fusion.reject("voice", prop.id)
            self.counts["rejected"] += 1
        elif truth == "back" or covered:
            # a back taken for a face or a face for a back: rejected, and the play typed as it lies
            event = {k: v for k, v in prop.event.items() if k not in ("card", "covered")}
            event.update({"covered": True} if truth == "back" else {"card": truth})
            fusion.reject("key", prop.id)
            fusion.enter(event, "typed")
            self.counts["typed"] += 1
        elif prop.event.get(key) == truth:
            fusion.confirm("voice", prop.id)
            self.counts["confirmed"] += 1
        elif truth in prop.alternatives:
            fusion.choose(prop.alternatives.index(truth) + 1, "key", prop.id)
            self.counts["chosen"] += 1
        else:
            event = {**prop.event, key: truth}
            fusion.reject("key", prop.id)
            fusion.enter(event, "typed")
            self.counts["typed"] += 1
