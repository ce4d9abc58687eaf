"""Fusion: card and voice proposals merged by time into the table log.

Proposals arrive late and out of order: a card is proposed when the tracker
is sure of it, a few frames after it was put down; a call is proposed when
the recogniser finishes the phrase.  Each carries the stream time ``t`` at
which it *happened*; fusion keeps them in a queue ordered by ``t`` and
releases each ``hold`` seconds after it happened.  Then:

* confident and legal: applied to the engine and written to the log;
* flagged (uncertain, wrong seat, a speech match the matcher wants
  confirmed) or refused by the engine: held as *pending*.  A pending
  proposal blocks the ones after it, so the log never goes out of order;
  it is resolved by :meth:`Fusion.confirm` / :meth:`Fusion.reject` (a key, a
  button on the scoreboard, a spoken sim/não, sí/no) or, when nobody is at
  the table (replay, demo), by a timeout policy;
* impossible cards (not in the deck, already out) are *alerts*: shown, never
  applied, and they never block.

Words are interpreted late, when they reach the head of the queue
``voice_hold`` seconds after they were said (longer while the tracker is
still deciding about a card seen before them): by then the card put down
just before "truco" is in the game, and the speech matcher judges the call
against the right game.  Only a yes/no answer jumps the queue.  When a card
is recognised so late that a call after it was already applied, the call is
undone and heard again after the card (:meth:`Fusion._before_last`); two
cards seen in the opposite order take the seats of their zones
(:meth:`Fusion._reorder_by_zones`).

:meth:`Fusion.undo` retracts the last applied event at any time, and
:meth:`Fusion.enter` applies a typed event.  The tracker sees the game
through :meth:`Fusion.view`: the engine with everything buffered and pending
applied on a copy, so a card put down while a call is pending is given the
seat that follows the call.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections import deque
from collections.abc import Callable, Iterator
from itertools import islice
from dataclasses import dataclass, field
from typing import Any

from companion.table.amend import drop_from_hand, hand_tail, rename_in_hand, reseat_call
from companion.table.engine_view import TableLog, illegal_error, seat_due, state_dict, view_of
from companion.table.observations import (CARD_EVENTS, Proposal, VoiceObservation, card_key, chosen_seat,
                                          describe_event, seat_choice)
from companion.table.tracker import TableView, closing_event
from companion.table.zones import CENTRE


# the only doubts of a card the table is not asked about: read weakly, with no possible rival reading
QUIET_DOUBTS = frozenset({"low_confidence", "unrivalled"})


# A change to an ended hand that lets a card put down after it in (Fusion._reopening): how many fewer plays
# it leaves outside their seats' zones, why, the events the hand goes in again with, how many of its events
# they replace, and when the card it changes was seen.
Reopening = tuple[int, str, list[dict[str, Any]], int, float]


def plays_outside_zones(events: list[dict[str, Any]], zones: dict[str, int]) -> int:
    """How many of the face-up plays in ``events`` lie (``zones``: card -> the zone it lies in) in another seat's
    zone than the seat they went in for; a card with no zone, or in the middle, counts for none."""
    return sum(1 for e in events if e.get("type") == "play" and e.get("card") in zones
               and zones[e["card"]] not in (None, CENTRE) and zones[e["card"]] != e.get("seat"))


def other_readings(prop: Proposal, card: str) -> list[str]:
    """The readings of ``prop``'s card other than ``card``, the name it has in the log now: its other
    readings, best first, and the name it was proposed with when an amend renamed it since."""
    return [n for n in [prop.event.get(card_key(prop.event)), *prop.alternatives] if n and n != card]


def quiet_doubt(prop: Proposal) -> bool:
    """Whether ``prop`` is held only to settle (applied after ``settle_timeout``), not asked about."""
    return "unrivalled" in prop.flags and set(prop.flags) <= QUIET_DOUBTS


@dataclass
class FusionConfig:
    hold: float = 0.15  # seconds a card proposal waits for earlier ones that arrive late
    voice_hold: float = 1.0  # seconds heard words wait before they are interpreted (see below)
    apply_confidence: float = 0.6  # a voice match below this is held even if the matcher said apply
    pending_timeout: float | None = None  # unattended: resolve a pending proposal after this long
    auto_action: str = "accept"  # what the timeout does: "accept" (if legal) or "reject"
    seat_timeout: float | None = None  # unattended: a longer wait for a card in another seat's zone
    # a card held only because it was read weakly, with no possible rival reading (flag ``unrivalled``),
    # is applied after this long even live, unless someone answers first: the table is not asked about
    # it (see TableTracker._rivalled).  None: it waits for an answer like any doubt.
    settle_timeout: float | None = 2.0
    # ... and goes into the log at once, still open for that long (Fusion.settling): read again otherwise,
    # it is renamed; rejected, it is taken out.  False: it waits that long before it goes in, and the
    # cards after it wait behind it (measured on five rendered seeds: cards applied a median 2.3 s after
    # they were put down instead of 0.3 s, see Fusion.settling)
    settle_at_once: bool = True
    # unattended: doubts the timeout always rejects (a fold is said aloud, a swept table alone is no
    # fold).  A second reading of a card ("reread") is accepted: it is a guess, flagged in the log,
    # but a play left out shifts every later card to the wrong seat (measured on rendered sessions:
    # one rejected reread derailed the rest of its hand), while a wrong card often scores the same.
    timeout_rejects: tuple[str, ...] = ("table_cleared",)
    max_voice_wait: float = 3.0  # words wait at most this long for a card the tracker is still deciding
    # a card put down after the hand ended reopens it when one change to the hand lets it in with this
    # many fewer plays outside their seats' zones (Fusion._after_hand; None: never, it is shown only).
    # Replays of seeds 0-21 and 30-33 (1,560 hands), unanswered / answered: 1 gave 1471 -> 1473 / 1511 ->
    # 1516, but seed 17 -3 in both (a single card's gain was a wrong change in 4 of the 5 traced); 2
    # gave 1476 / 1521, no seed worse by more than one hand
    reopen_gain: int | None = 2
    # ... and a change that fits with less waits this long (stream seconds after the card) for the cards put
    # down after it, which count too when they go in for the seats whose zones they lie in (None: no wait)
    reopen_wait: float | None = 4.0
    # a card held for lying in another seat's zone than the turn's has one change to the running hand made
    # when it leaves this many fewer plays outside their seats' zones (Fusion._reread_for_zones; None: never)
    reread_gain: int | None = 2
    reorder_window: float = 2.0  # a card and a call this close may be swapped when only that order is legal
    reorder_cards: int = 4  # at most this many cards seen in a row are put back in the order of their zones
    reorder_seconds: float = 2.5  # ... the card moved first seen at most this long after the first of them
    # words that fit no call are heard again behind a card recognised after them, first seen up to
    # rehear_window seconds before the words or rehear_late seconds after them (see Fusion._rehear)
    rehear_window: float = 8.0
    rehear_late: float = 4.0
    # words heard after every card of the running hand left the view wait at most this long for the
    # next card, which says whether the hand goes on or a new one began (see Fusion._swept_words)
    swept_wait: float = 8.0


@dataclass
class Applied:
    """An event that went into the log, and when (stream and wall time)."""

    event: dict[str, Any]
    proposal: Proposal | None
    stream_t: float
    wall_t: float
    outcomes: list[Any] = field(default_factory=list)
    resolved_by: str = "auto"  # auto | confirm | timeout | typed | undo | reorder | amend
    # an event an amend put in again (Fusion._put_again): the proposal of the event it stands for, and how
    # that one went in.  Why: the zone tests read a card's other readings, its zone and whether the table
    # named it from its proposal; put in again without it, a renamed card could never be renamed back
    # (a rendered Mineiro hand, seed 253: JD re-read as QD late gave the lead to the wrong seat for good)
    carried: Proposal | None = None
    carried_by: str | None = None

    @property
    def origin(self) -> Proposal | None:
        """The proposal this event came from, through any amends that put it in again."""
        return self.proposal if self.proposal is not None else self.carried

    @property
    def how(self) -> str:
        """How the event this one stands for went in (``resolved_by`` of the first one, unless the table
        named it since): ``confirm`` and ``typed`` are the table's word, which the camera does not overrule."""
        return self.carried_by or self.resolved_by

    @property
    def by_table(self) -> bool:
        """Whether the event this one stands for is the table's word (confirmed or typed), which the camera does
        not overrule."""
        return self.how in ("confirm", "typed")


Listener = Callable[[str, dict[str, Any]], None]
# (t, words, game, something pending?, source) -> what the words mean
Interpreter = Callable[[float, Any, Any, bool, str], VoiceObservation]


class Fusion:
    def __init__(self, log: TableLog, config: FusionConfig | None = None, first_dealer: int | None = None) -> None:
        self.log = log
        self.first_dealer = first_dealer
        self.config = config or FusionConfig()
        self.queue: list[Proposal] = []  # buffered + pending, sorted by t
        self.pending_since: dict[int, float] = {}  # proposal id -> stream time it became pending
        self.alerts: deque[Proposal] = deque(maxlen=8)
        self.applied: list[Applied] = []
        self.rejected: list[Proposal] = []
        self.messages: deque[str] = deque(maxlen=12)
        self.heard: deque[tuple[float, str]] = deque(maxlen=6)
        self.unplaced: deque[Proposal] = deque(maxlen=6)  # words that fitted no call, for _rehear
        self.listeners: list[Listener] = []
        self.interpreter: Interpreter | None = None
        # does the tracker still look at a card seen before this time? (set by the session)
        self.vision_busy: Callable[[float], bool] | None = None
        # since when has the table lain swept while the engine's hand runs? (set by the session)
        self.swept: Callable[[], float | None] | None = None
        self.now = 0.0
        self._ids = 0
        self._version = 0
        self._view_cache: tuple[int, TableView] | None = None
        self._game_cache: tuple[int, Any] | None = None
        # the held cards _reread_for_zones looked at, each with the camera's cards queued behind it then
        self._reread_tried: set[tuple[int, ...]] = set()
        self._reseat_tried: set[int] = set()  # held cards _reseat_for_zones looked at
        # the changes _reopening found for a card put down after the hand, and what they were worked out for
        self._reopen_memo: tuple[tuple[Any, ...], list[Reopening]] | None = None
        self._settling: list[Proposal] = []  # cards in the log that still settle (see settling)
        self._swept_close: float | None = None  # when a new deal the camera saw dated the old hand's end (until
        # the next hand is dealt: see _behind_the_deal)

    # --- plumbing ---------------------------------------------------------------------------
    @property
    def game(self) -> Any:
        return self.log.game

    def _emit(self, kind: str, **payload: Any) -> None:
        for listener in self.listeners:
            listener(kind, payload)

    def say(self, text: str) -> None:
        """A message for the table: the window's panel, the scoreboard and any listener show it."""
        self.messages.append(text)
        self._emit("message", text=text)

    def _changed(self) -> None:
        self._version += 1

    @property
    def pending(self) -> list[Proposal]:
        return [p for p in self.queue if p.id in self.pending_since]

    @property
    def settling(self) -> list[Proposal]:
        """Cards in the log that still settle, latest first: read weakly with no possible rival
        reading (shown ``~``), applied at once and open for ``settle_timeout`` seconds.  Until then
        the tracker keeps reading each (a new reading renames it in the log), and the table can
        reject it (taken out of the hand), confirm it, or pick another of its readings.

        Why: such a card used to wait ``settle_timeout`` before it went in, and every card after it
        waited behind it.  On the rendered sessions two cards in five are such cards: the cards the
        camera put in went in a median 2.3 s after they were put down (five seeds, recorded streams),
        against 0.3 s for the cards applied at once."""
        return [p for p in reversed(self._settling) if p.open_until is not None and self.now <= p.open_until
                and hand_tail(self.game, p.event.get(card_key(p.event)) or "") is not None]  # (not undone)

    def projected_game(self) -> Any:
        """The engine with the buffered and pending proposals applied, on a
        copy (the real game when nothing waits)."""
        if self._game_cache and self._game_cache[0] == self._version:
            return self._game_cache[1]
        game = self.game
        if self.queue:
            game = copy.deepcopy(game)
            for prop in self.queue:
                if prop.words is not None or prop.event.get("seat") == -1 or "table_cleared" in prop.flags:
                    continue  # words are not events yet; a cleared table is only a guess
                event = dict(prop.event)
                if event.get("type") == "rename":  # a card in the hand read again (see _rename)
                    rename_in_hand(game, event["card"], event["name"], self.first_dealer)
                    continue
                if prop.retakes is not None and hand_tail(game, event.get("card", "")) is not None:
                    # the card it retakes is renamed first (as _retake will), else it goes in as its fallback
                    if rename_in_hand(game, event["card"], prop.retakes[0], self.first_dealer) is None:
                        if prop.retakes[1] is None:
                            continue
                        event["card"] = prop.retakes[1]
                seat = self.due_seat(game, prop)
                if seat is not None:
                    event["seat"] = seat  # as it will go in (_seat_by_turn)
                try:
                    game.apply(event)
                except illegal_error():
                    pass
        self._game_cache = (self._version, game)
        return game

    def revised(self) -> None:
        """A waiting proposal's event was changed in place (the tracker read
        its card again): what the table looks like must be worked out anew."""
        self._changed()

    def view(self) -> TableView:
        """The game as the tracker should see it: applied events, then the
        buffered and pending ones (tentatively)."""
        if self._view_cache and self._view_cache[0] == self._version:
            return self._view_cache[1]
        game = self.projected_game()
        view = dataclasses.replace(view_of(game, self.first_dealer),
                                   retake_fits=lambda card, name, zone: self.retake_fits_zones(game, card, name, zone))
        self._view_cache = (self._version, view)
        return view

    # --- input ------------------------------------------------------------------------------
    def submit(self, proposal: Proposal) -> None:
        self._ids += 1
        proposal.id = self._ids
        if proposal.emitted_t is None:
            proposal.emitted_t = self.now
        if not proposal.blocking:
            self._alert(proposal)
            return
        self._insert(proposal)
        if proposal.words is None and proposal.source == "vision":
            self._rehear(proposal)

    def _alert(self, proposal: Proposal) -> None:
        """Show ``proposal`` (never applied: an impossible card, or a late one no change lets in)."""
        self.alerts.append(proposal)
        self.say(f"! {proposal.describe()}")
        self._emit("alert", proposal=proposal)

    def _insert(self, proposal: Proposal) -> None:
        index = len(self.queue)
        while index > 0 and self.queue[index - 1].t > proposal.t:
            index -= 1  # in time order, even before a pending proposal: it happened first
        self.queue.insert(index, proposal)
        self._changed()

    def _rehear(self, card: Proposal) -> None:
        """Words that fitted no call are queued again behind a card recognised after them.

        Why: a card the camera barely sees (a face-down card in poor light, a
        card under the hand that put it down) is recognised seconds late, and
        words said after it ("seis" from the next seat) are interpreted on
        time, against a game still waiting for that card: they fit no call.
        Measured on a rendered six-player session: a covered card first seen
        3.4 s after it was put down made "seis" and "aceito" mean nothing,
        and the hand was scored at the wrong stake.  Queued behind the card
        (the card first, whatever the clock says: the words only make sense
        after it), they are interpreted once it is in the game; if they still
        fit nothing they are dropped then.  Words that became a call are never
        heard twice (a call applied before a late card is :meth:`_before_last`'s case).
        """
        self._hear_again(card.t - self.config.rehear_late, card.t + self.config.rehear_window, card.t,
                         "after a card seen late")

    def _hear_again(self, since: float, until: float, after: float, why: str) -> None:
        """Words that fitted no call, heard from ``since`` to ``until``, queued again, each no earlier than
        just after ``after``: the game they were interpreted against has changed (see :meth:`_rehear` and
        :meth:`_after_hand`).  Those that still fit nothing are dropped again."""
        again = sorted((u for u in self.unplaced if since <= u.t <= until), key=lambda u: u.t)
        for k, words in enumerate(again, 1):
            self.unplaced.remove(words)
            self.say(f"'{_text(words.words)}' heard again {why}")
            # in the order they were said, each a moment apart: the call one makes goes in before the next is heard
            self.submit(Proposal({"type": "words"}, max(words.t, after + 1e-3 * k), 1.0, words.source, [],
                                 words.reason, True, self.now, words=words.words))

    def hear(self, obs: VoiceObservation, record: bool = True) -> None:
        """Words the speech layer already interpreted: calls become
        proposals, yes/no answers resolve the oldest pending proposal."""
        if obs.words and record:
            self.heard.append((obs.t, obs.words))
            self._emit("heard", t=obs.t, words=obs.words)
        if obs.answer in ("yes", "no"):
            if self.pending:
                (self.confirm if obs.answer == "yes" else self.reject)(by="voice")
            return
        for item in obs.events:
            event = _event_of(item)
            decision = item.get("decision", "apply")
            conf = float(item.get("confidence", 1.0))
            if decision == "ignore":
                self.say(f"heard '{obs.words}' ({describe_event(event)}?), ignored")
                continue
            flags = []
            if decision == "confirm":
                flags.append("speech_confirm")
            elif conf < self.config.apply_confidence:
                flags.append("low_confidence")
            t = float(item.get("t", obs.t))
            reason = f"heard '{obs.words}'" if obs.words else ""
            speakers = [seat_choice(s) for s in item.get("seats") or () if s != event.get("seat")]
            if speakers:
                reason += ("; " if reason else "") + "who said it?"
            self.submit(Proposal(event, t, conf, "voice", flags, reason, True, self.now, said=obs.words or None,
                                 alternatives=speakers))

    def hear_words(self, t: float, words: Any, source: str = "transcript") -> None:
        """Words heard at ``t``, to be interpreted when their turn comes."""
        if self.interpreter is None:
            raise RuntimeError("fusion has no interpreter for words")
        text = _text(words)
        self.heard.append((t, text))
        self._emit("heard", t=t, words=text)
        self.submit(Proposal({"type": "words"}, t, 1.0, source, [], f"heard '{text}'", True, self.now,
                             words=words))

    def _interpret(self, prop: Proposal, game: Any) -> VoiceObservation:
        assert self.interpreter is not None
        return self.interpreter(prop.t, prop.words, game, bool(self.pending), prop.source)

    def _swept_words(self, prop: Proposal) -> bool:
        """Whether words heard while the running hand's cards are all out of view wait for the next card
        (or were dated anew behind the next deal: the queue's head changed).

        Why: the engine's hand can run on after the table is gathered (a misread card left it a trick
        short, or a fold went unheard), and the next hand's first call then went into it.  Measured on
        a rendered Mineiro session (seed 12): a truco said before the next hand's first card was
        taken as a truco in the old hand, accepted there, and both hands were scored wrong.  The next
        card decides: a card of the old hand seen again, or a new one played in it, and the words go
        into that hand as before; a new deal, which the tracker dates back to the sweep, and they go
        in after it (behind its vira, where one is turned: no call fits before the deal).  A call that
        ends the running hand (a fold, refusing its truco) is the old hand's and goes in at once;
        nothing waits longer than ``swept_wait``."""
        if self.swept is None or self.now >= prop.t + self.config.swept_wait:
            return False
        since = self.swept()
        if since is None:
            return self._behind_the_deal(prop)
        if prop.t < since or not view_of(self.game, self.first_dealer).in_hand:
            return False
        obs = self._interpret(prop, self.game)
        wait = obs.answer is None
        if obs.events:
            trial = copy.deepcopy(self.game)
            try:
                for item in obs.events:
                    trial.apply(_event_of(item))
            except illegal_error():
                pass
            else:
                wait = view_of(trial, self.first_dealer).in_hand  # a call that closes the hand is its own
        return wait

    def _behind_the_deal(self, prop: Proposal) -> bool:
        """Words held through a sweep, the old hand now closed: dated just behind the camera's next
        deal when it turns a vira after them (before it no call fits; behind the first play, where
        words that fit nothing are heard again, "truco" went to the wrong seat or was lost)."""
        if (self._swept_close is None or prop.t < self._swept_close
                or view_of(self.game, self.first_dealer).in_hand):
            return False
        deal = next((p for p in self.queue if p.source == "vision" and p.event.get("type") == "hand"
                     and "vira" in p.event and p.t > prop.t), None)
        if deal is None:
            return False
        self.queue.remove(prop)
        prop.t = deal.t + 1e-3 + 1e-4 * (prop.t - self._swept_close)  # (in the order they were said)
        self._insert(prop)
        return True

    def _opening_call(self, prop: Proposal, obs: VoiceObservation) -> VoiceObservation:
        """A call when no hand is running, in a variant without a vira: the
        camera sees no start of the hand before the first card, but "truco"
        before any card is played opens it.  If the words mean something once
        a hand is dealt, the deal goes in first."""
        view = view_of(self.game, self.first_dealer)
        if view.in_hand or view.uses_vira or view.game_over:
            return obs
        deal = {"type": "hand", "dealer": view.next_dealer}
        trial = copy.deepcopy(self.game)
        try:
            trial.apply(dict(deal))
        except illegal_error():
            return obs
        opened = self._interpret(prop, trial)
        if not opened.events:
            return obs
        self.submit(Proposal(deal, prop.t - 1e-3, 1.0, "voice", [], "a call opened the hand", True, self.now))
        return opened

    def _answers(self) -> None:
        """Due words waiting behind a pending proposal: a yes/no resolves it."""
        if not self.pending:
            return
        for prop in list(self.queue):
            if prop.words is None or self.now < prop.t + self.config.voice_hold:
                continue
            obs = self._interpret(prop, self.projected_game())
            if obs.answer in ("yes", "no") and not obs.events:
                self.queue.remove(prop)
                self._changed()
                (self.confirm if obs.answer == "yes" else self.reject)(by="voice")
                if not self.pending:
                    return

    # --- the clock --------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Release what is due at stream time ``now``."""
        self.now = max(self.now, now)
        self._answers()
        self._close_settled()
        while self.queue:
            head = self.queue[0]
            if head.words is not None:
                if self.now < head.t + self.config.voice_hold:
                    return
                if (self.vision_busy is not None and self.vision_busy(head.t)
                        and self.now < head.t + self.config.max_voice_wait):
                    return  # a card put down before the words is not in the game yet
                if self._swept_words(head):
                    if self.queue and self.queue[0] is head:
                        return
                    continue  # dated anew behind the next deal
                self.queue.pop(0)
                self._changed()
                obs = self._interpret(head, self.game)
                if not obs.events and obs.answer is None:
                    obs = self._opening_call(head, obs)
                said = _text(head.words)
                if not obs.events and obs.answer is None and said.strip():
                    # fits no call now: shown, and kept in case a card before it is recognised late
                    self.unplaced.append(head)
                    self.say(f"heard '{said}': no call fits the game now")
                self.hear(obs, record=False)
                continue
            if head.event.get("type") == "rename":
                if self.now < head.t + self.config.hold:
                    return
                self.queue.pop(0)
                self._rename(head)
                continue
            if "after_hand" in head.flags:
                if self.now < head.t + self.config.hold or not self._after_hand(head):
                    return
                continue
            if self._zone_due_now(head):
                continue
            if head.id in self.pending_since and self._reorder_by_zones(head):
                continue
            if head.id in self.pending_since and self._reread_for_zones(head):
                continue
            if head.id in self.pending_since and self._reseat_for_zones(head):
                continue
            if head.id in self.pending_since and head.flags == ["illegal"]:
                # refused by the engine only: what came in before it may have made it legal
                try:
                    outcomes = self.log.record(head.event, source=head.source)
                except illegal_error():
                    pass
                else:
                    self._applied_now(head, outcomes, "auto")
                    continue
            if head.id in self.pending_since and self._settles_now(head, asked=True):
                self.pending_since.pop(head.id)  # its doubt went away while it waited (read on): in at once
                self._changed()
                continue
            if head.id in self.pending_since:
                timeout = self.config.pending_timeout
                if self.settles(head):
                    timeout = self.config.settle_timeout if timeout is None else min(timeout,
                                                                                   self.config.settle_timeout)
                if timeout is not None and "wrong_seat" in head.flags and self.config.seat_timeout:
                    timeout = max(timeout, self.config.seat_timeout)
                if timeout is not None and self.now - self.pending_since[head.id] >= timeout:
                    # (a face-down card outside the due seat's zone is left out: on replays of the rendered
                    # sessions 13 such cards read surely were no covered play of that seat -- a back of the
                    # deck or of a gathered trick, a face read as a back -- and 2 were)
                    if (self.config.auto_action == "accept" and not set(head.flags) & set(self.config.timeout_rejects)
                            and not (head.event.get("covered") and "wrong_seat" in head.flags)):
                        self._unseen_covered(head)
                        self.confirm(by="timeout")
                    else:
                        self.reject(by="timeout")
                    continue
                return
            hold = self.config.voice_hold if head.source in ("voice", "audio", "transcript") else self.config.hold
            if self.now < head.t + hold:
                return
            if head.flags and self._settles_now(head):
                if self._try_apply(head, "settle"):
                    head.open_until = self.now + (self.config.settle_timeout or 0.0)
                    self._settling.append(head)
                    self.say(f"~ {describe_event(head.event)} -- in; reject within "
                              f"{self.config.settle_timeout:g} s to take it out")
                continue
            if head.flags:
                self._hold(head)
                continue
            self._try_apply(head, "auto")

    def flush(self, now: float | None = None) -> None:
        """End of the stream: release everything buffered (and, unattended,
        let each pending proposal time out in turn)."""
        if now is not None:
            self.now = max(self.now, now)
        step = (max(self.config.hold, self.config.voice_hold, self.config.max_voice_wait)
                + max(self.config.pending_timeout or 0.0, self.config.seat_timeout or 0.0) + 1.0)
        saved = self.now
        for _ in range(len(self.queue) + 2):
            before = (len(self.queue), len(self.pending_since))
            self.tick(self.now + step)
            if not self.queue or (len(self.queue), len(self.pending_since)) == before and not self.pending_since:
                break
            if self.config.pending_timeout is None and (len(self.queue), len(self.pending_since)) == before:
                break
        self.now = saved

    def _reorder_by_zones(self, head: Proposal) -> bool:
        """Cards seen in another order than they were put down (one hidden by a
        hand, or read late, a moment longer): the head was given the seat whose
        turn it was, but lies in another seat's zone, and a card seen after it
        lies in that seat's zone.  Try that card first, give the cards of the
        window the seats the engine hands out in the new order, and keep the
        order when strictly fewer cards then lie outside their seat's zone.
        Two crossed cards are the smallest case; a late covered card of a six-
        player table, with two cards seen before it, is the one that needed more.
        Nothing else about the cards was in doubt (only seat and confidence flags)."""
        allowed = {"wrong_seat", "low_confidence", "unrivalled"}
        if head.event.get("type") != "play" or "wrong_seat" not in head.flags or not set(head.flags) <= allowed:
            return False
        window = [head]
        for prop in self.queue[1:]:
            if (prop.words is not None or prop.source != "vision" or prop.event.get("type") != "play"
                    or not set(prop.flags) <= allowed or self.now < prop.t + self.config.hold
                    or len(window) >= self.config.reorder_cards):
                break
            window.append(prop)
        missing = head.event.get("seat")
        # only a card in the zone of the seat whose turn it was, seen soon after (one put down much
        # later is a later play); checked first: the trials below copy the game, and this runs each tick
        movable = [k for k in range(1, len(window))
                   if window[k].zone == missing and window[k].t - head.t <= self.config.reorder_seconds]
        if not movable:
            return False
        before = self._zone_misses(window)
        if before is None:
            return False
        best: tuple[int, list[Proposal], list[int]] | None = None
        for k in movable:
            order = [window[k]] + window[:k] + window[k + 1:]
            trial = self._zone_misses(order)
            if trial is not None and trial[0] < before[0] and (best is None or trial[0] < best[0]):
                best = (trial[0], order, trial[1])
        if best is None:
            return False
        _, order, seats = best
        for prop, seat in zip(order, seats):
            prop.event["seat"] = seat
            if prop.zone in (None, CENTRE) or prop.zone == seat:
                prop.flags = [f for f in prop.flags if f != "wrong_seat"]
                prop.reason = "seen after the next card: seats follow their zones"
            self.pending_since.pop(prop.id, None)
        del self.queue[:len(order)]
        self.queue[0:0] = order
        self._changed()
        self.say("cards were seen out of order: their seats follow their zones")
        return True

    def _reread_for_zones(self, head: Proposal) -> bool:
        """A card held because it lies in another seat's zone than the engine's turn, when an unsure
        card of the hand read as one of its other readings would put it, and the plays before it, in
        their seats' zones: that card is renamed (the hand goes in again after it, see
        companion.table.amend) and the held card takes the seat of its zone.

        Why: a misread trick winner (a manilha read as the card below it) hands the next trick's lead
        to the wrong seat, and every card of that trick then lies in the zone beside the one the
        engine names (a rendered six-player Clean-28 hand: seat 2's 3H, the manilha of hearts, read 2H
        at 0.06, and all six cards of the next trick two seats off).  Only a card that was itself in
        doubt (asked about or read again) is renamed, only to one of its own readings, only when at
        least two plays fewer lie outside their zones (the held card and the camera's cards queued behind
        it counted in turn, see :meth:`_misses_after`), and only when one renaming does it best (in
        session 9, renaming on the next trick's first card alone picked the wrong card both times) or,
        of those that do, one gives a card renamed since it went in its first name back.  A weak card
        that went in for another seat than its zone's may instead be taken out, as no card (a ghost that
        went in as a seat's lead puts every later card of the trick a seat off: a rendered Clean-28 hand
        of seed 262).  The held card may also be a weak card of its zone's seat seen again (first read as
        another card while it was put down: seed 259), which is renamed so, the held card no new play.  A
        held card is looked at again when another card queues behind it.

        Session 58, judged on fresh table seeds 264-271: 459 -> 467 of 480 hands scored right with
        nobody answering, 469 -> 476 answered, no session worse; on the recorded streams of seeds
        244-263 (the traced ones among them) 1171 -> 1177 and 1180 -> 1183 of 1,200.  The card seen again
        (rule 11): fresh seeds 280-287 463 -> 466 and 474 -> 474; recorded 244-279 2116 -> 2116 and 2134 -> 2136."""
        if (self.config.reread_gain is None or head.event.get("type") != "play" or "wrong_seat" not in head.flags
                or head.zone in (None, CENTRE)):
            return False
        later = [p for p in self.queue[1:] if p.source == "vision" and p.words is None
                 and p.event.get("type") == "play" and p.zone not in (None, CENTRE) and "after_hand" not in p.flags]
        key = (head.id, *(p.id for p in later))
        if key in self._reread_tried:
            return False
        self._reread_tried.add(key)
        held = [(p.zone, p.event) for p in [head, *later]]
        seen = {p.event.get("card") for p in [head, *later]}  # not a name for a card in the log
        # each change that fits: (its gain, a renamed card taking its first name back, the changed card, why, the
        # events the hand goes in again with, how many of its events they replace, the held card is it seen again)
        gains: list[tuple[int, bool, str, str, list[dict[str, Any]], int, bool]] = []
        held_card = head.event.get("card")
        for entry in self._running_hand():
            prop, card = entry.origin, entry.event.get("card")
            if (prop is None or prop.source != "vision" or not card or entry.by_table
                    or not {"low_confidence", "reread"} & set(prop.flags)):
                continue  # (a card the table named is what the table said it is)
            first = prop.event.get(card_key(prop.event))
            options: list[str | None] = [n for n in other_readings(prop, card) if n not in seen]
            if ("low_confidence" in prop.flags and entry.event.get("type") == "play"
                    and prop.zone not in (None, CENTRE) and prop.zone != entry.event.get("seat")):
                options.append(None)  # taken out: a weak card that went in outside its seat's zone may be no card
            for name in options:
                gain = self._zone_gain(self.game, card, name, held)
                if gain is not None and gain[0] >= self.config.reread_gain:
                    if name is None:  # the play and every event after it undone, these put in again without it
                        gains.append((gain[0], False, card, f"{card}, a doubtful card outside its seat's zone, was no "
                                      f"play", gain[1], len(gain[1]) + 1, False))
                    else:
                        gains.append((gain[0], name == first, card, f"{card} was {name}", gain[1], len(gain[1]), False))
            if (held_card and "low_confidence" in prop.flags and entry.event.get("type") == "play"
                    and prop.zone == head.zone == entry.event.get("seat")):
                # the held card may be this weak card of its zone's seat seen again (read as another card while it
                # was put down): renamed so, and the held card is no new play
                gain = self._zone_gain(self.game, card, held_card, held, held[1:])
                if gain is not None and gain[0] >= self.config.reread_gain:
                    gains.append((gain[0], False, card, f"{card} was {held_card}, seen again", gain[1], len(gain[1]),
                                  True))
        best = [g for g in gains if g[0] == max((g[0] for g in gains), default=0)]
        if len(best) > 1:
            # several renamings fit as well: a card renamed since it went in (a late re-read) taking its
            # first name back is the one change that puts the hand back as it was when its cards still
            # lay in their seats' zones; otherwise the zones cannot tell which card was misread
            best = [g for g in best if g[1]]
        if len(best) != 1:
            return False
        _, _, card, why, again, undo, seen_again = best[0]
        self._put_again(again, f"the cards lie in the zones of other seats than the engine's: {why}", undo=undo)
        if seen_again:
            head.reason = (head.reason + "; " if head.reason else "") + f"{card}, seen again"
            self._unqueue(head)
        else:
            self._seat_by_zone(head)
        return True

    def _zone_due_now(self, head: Proposal) -> bool:
        """A camera card flagged for lying in another seat's zone than the turn's when the tracker proposed it,
        whose zone's seat may play now (an amend changed the turns since): it takes that seat, the flag
        dropped.  Why: a face-down card so flagged is left out at the unattended timeout, and a face-up one
        goes in for the seat the turn names; after session 58's zone test took a card seen twice out of
        trick 1 (a rendered Mineiro hand of seed 259), seat 3's face-down card, in its zone and due, was
        left out for a flag from before."""
        if ("wrong_seat" not in head.flags or head.source != "vision" or head.event.get("type") != "play"
                or head.zone in (None, CENTRE) or head.zone not in view_of(self.game, self.first_dealer).turns):
            return False
        self._seat_by_zone(head)
        return True

    def _seat_by_zone(self, head: Proposal) -> None:
        """After the hand went in again so that ``head``'s zone may play: ``head`` is that seat's play, no
        longer held for its seat."""
        view = view_of(self.game, self.first_dealer)
        if head.zone in view.turns:
            head.event["seat"] = head.zone
            head.flags = [f for f in head.flags if f != "wrong_seat"]
            self.pending_since.pop(head.id, None)
        self._changed()

    def _reseat_for_zones(self, head: Proposal) -> bool:
        """A card held because it lies in another seat's zone than the engine's turn, when a call of the
        running hand whose speaker was guessed (heard, several seats could have made it, and the table
        was not asked or did not answer) made by another of those seats puts the held card, and the
        camera's plays after the call, in their seats' zones: the call is given that seat and the hand
        goes in again after it (see companion.table.amend.reseat_call).

        Why: one microphone cannot tell who spoke.  A six-player pica-pica hand: seat 4's truco went in
        for seat 0, its "no quiero" for seat 3, and that duel was over; seats 0 and 3 then played, and
        their cards went to seats 1 and 4 (rendered seeds: every hand lost to a seat was of this kind).
        Only when one choice does strictly best.  Each held card is looked at once."""
        if (head.event.get("type") != "play" or "wrong_seat" not in head.flags or head.zone in (None, CENTRE)
                or head.id in self._reseat_tried):
            return False
        self._reseat_tried.add(head.id)
        events = list(self.game.events)
        start = max((i for i, e in enumerate(events) if e.get("type") == "hand"), default=None)
        if start is None:
            return False
        zones = self._hand_zones()
        before = self._misses_after(self.game, events[start:], zones, [(head.zone, None)])
        trials: list[tuple[int, int, list[dict[str, Any]], int]] = []
        for entry in self._running_hand():
            prop = entry.origin
            if (prop is None or prop.source == "vision" or entry.how not in ("auto", "timeout")
                    or "seat" not in entry.event or not prop.alternatives
                    or not all(a.startswith("seat ") for a in prop.alternatives)):
                continue
            index = max((i for i in range(start + 1, len(events)) if events[i] == entry.event), default=None)
            if index is None:
                continue
            for choice in prop.alternatives:
                trial = copy.deepcopy(self.game)
                again = reseat_call(trial, index, chosen_seat(choice), self.first_dealer)
                if again is not None:
                    gain = before - self._misses_after(trial, events[start:index] + again, zones, [(head.zone, None)])
                    if gain > 0:
                        trials.append((gain, index, again, chosen_seat(choice)))
        best = [t for t in trials if t[0] == max((t[0] for t in trials), default=0)]
        if len(best) > 1:
            # the two seats of one duel fit the zones alike (the call ends that duel whoever made it):
            # the guessed seat's team is kept, as the words were taken at first
            best = [t for t in best if t[3] % 2 == events[t[1]]["seat"] % 2]
        if len(best) != 1:
            return False  # no seat, or several, fit as well: the zones cannot tell who spoke
        _, index, again, seat = best[0]
        self._put_again(again, f"the cards lie in the zones of other seats: {describe_event(events[index])} "
                               f"was seat {seat}'s", undo=len(events) - index)
        self._seat_by_zone(head)
        return True

    def _after_hand(self, head: Proposal) -> bool:
        """A card put down in a seat's zone after the engine ended the hand, its cards still on the table
        (the tracker's ``after_hand``).  When the hand runs again by now (an earlier such card reopened
        it), it is a play like any other.  Otherwise the hand may have ended early on a misread: a card
        of it read as another of its own readings, or a doubtful card that lay outside its seat's zone
        taken out (a card boxed twice, the pile read as a new card), can give a trick to the other side,
        and the hand then goes on.  Tried on a copy of the game: the one change under which the hand
        goes on, this card is a play of the seat whose zone it lies in, and ``reopen_gain`` fewer of the
        hand's camera plays lie outside their seats' zones than before (this card counted as one, and
        each card put down after it that then goes in, in order, for the seat whose zone it lies in), is
        made (the log shows the undos), and the card goes in after it.  A change that fits with less
        waits up to ``reopen_wait`` for the cards put down after it (a misread trick winner renamed has
        only this card to back it: the next one tells).  Where none does, or two do as well, the card is
        shown only, as before.  Returns False while it waits (the queue waits behind it).

        Why: a hand that ended a trick short was the largest kind of hand lost on the rendered sessions
        (22 of the 49 hands lost over seeds 0-17 with nobody answering): a misread trick winner, or a
        ghost taken for a seat's play, ended the hand, and every card of its last trick was then shown
        as put down after it (a one-pip Clean-28 hand of seed 4: the pile beside seat 0's cards read 7H
        went in as seat 2's play and ended the hand; seat 2's own AH came next).  Replays of the recorded
        streams (seeds 0-21 and 30-33, with the tracker's part): 1471 -> 1476 hands scored right of 1,560
        with nobody answering, 1511 -> 1521 answered; Argentine sessions of seeds 34-69 unchanged
        (404 / 418 of 432); fresh seeds 90-93 225 = 225, 234 -> 235 of 240.  Waiting for the next cards:
        1476 -> 1477 and 1521 -> 1520, 404 -> 405 and 418 -> 419, fresh seeds unchanged."""
        if view_of(self.game, self.first_dealer).in_hand:
            head.flags = [f for f in head.flags if f != "after_hand"]
            self._changed()
            return True
        later = [p for p in self.queue[1:] if p.source == "vision" and "after_hand" in p.flags
                 and p.zone not in (None, CENTRE) and p.words is None]
        key = (head.id, head.event.get("card"), tuple((p.id, p.event.get("card")) for p in later))
        if self._reopen_memo is None or self._reopen_memo[0] != key:  # (nothing else goes in while it waits)
            self._reopen_memo = (key, self._reopening(head, later) if head.zone not in (None, CENTRE)
                                 and self.config.reopen_gain is not None else [])
        found = self._reopen_memo[1]
        best = found[0] if found and (len(found) == 1 or found[1][0] < found[0][0]) else None
        if (best is None or best[0] < self.config.reopen_gain) and found and found[0][0] >= 1 \
                and self.config.reopen_wait is not None and self.now < head.t + self.config.reopen_wait:
            return False  # a change fits, but not surely yet: the next card put down may tell
        if best is None or best[0] < (self.config.reopen_gain or 1):
            self._unqueue(head)
            head.blocking = False
            self._alert(head)
            return True
        _, why, again, undo, since = best
        self._put_again(again, why, undo=undo)
        # words said since the changed card were interpreted against the hand it ended: "quiero" after a
        # ghost took the last trick fitted no call, and was lost with the ghost taken out (seed 31)
        self._hear_again(since, head.t, since, "now that the hand goes on")
        head.flags = [f for f in head.flags if f != "after_hand"]
        head.event["seat"] = head.zone
        head.reason = (head.reason + "; " if head.reason else "") + why
        self._changed()
        return True

    def _reopening(self, head: Proposal, later: list[Proposal]) -> list[Reopening]:
        """The changes to the ended hand that let ``head`` in (see :meth:`_after_hand`), best first: how
        many fewer plays each leaves outside their seats' zones (``head`` and the ``later`` cards put down
        after the hand, in order, counted as outside while they cannot go in), why, the events the hand
        goes in again with, how many of its events they replace, and when the card they change was seen."""
        zones = self._hand_zones()
        card_props: dict[str, Proposal | None] = {}
        for entry in self._running_hand():
            card = entry.event.get("card")
            if card and card not in card_props and entry.origin is not None:
                # a card the table confirmed or typed is what the table said it is
                card_props[card] = None if entry.by_table else entry.origin

        def misses(events: list[dict[str, Any]], renamed: tuple[str, str] | None = None) -> int:
            where = dict(zones)
            if renamed is not None and renamed[0] in zones:
                where[renamed[1]] = zones[renamed[0]]  # the renamed card lies where it lay
            return plays_outside_zones(events, where)

        named = head.event.get("card")
        found: list[Reopening] = []
        for card, prop in card_props.items():
            tail = hand_tail(self.game, card)
            if prop is None or prop.source != "vision" or tail is None:
                continue
            options: list[str | None] = [n for n in other_readings(prop, card) if n != named]
            if "wrong_seat" in prop.flags and "low_confidence" in prop.flags and tail[0].get("type") == "play":
                options.append(None)  # taken out: a weak card outside its seat's zone may be no card
            for name in options:
                trial = copy.deepcopy(self.game)
                again = (rename_in_hand(trial, card, name, self.first_dealer) if name is not None
                         else drop_from_hand(trial, card, self.first_dealer))
                if again is None:
                    continue
                view = view_of(trial, self.first_dealer)
                if not view.in_hand or head.zone not in view.seats_due:
                    continue
                try:
                    trial.apply({**head.event, "seat": head.zone})
                except illegal_error():
                    continue
                fit = 0  # the later cards that go in, in order, for the seats whose zones they lie in
                for prop_later in later:
                    if prop_later.zone not in view_of(trial, self.first_dealer).seats_due:
                        break
                    try:
                        trial.apply({**prop_later.event, "seat": prop_later.zone})
                    except illegal_error():
                        break
                    fit += 1
                # the plays before ``card`` keep their seats
                gain = misses(tail) + 1 + fit - misses(again, (card, name) if name is not None else None)
                why = (f"{card} was {name}" if name is not None
                       else f"{card}, a doubtful card outside its seat's zone, was no play")
                found.append((gain, f"{why}: the hand goes on, and {named} is its play", again, len(tail), prop.t))
        found.sort(key=lambda f: -f[0])
        return found

    def _unseen_covered(self, head: Proposal) -> None:
        """At the timeout of a camera card held for lying in another seat's zone: when that seat is the next
        to play after the one due, the due seat may play face down, and both then go in legally, the due
        seat put its card down face down and the camera never saw it.  A covered play goes in for it first
        (flagged ``unseen``; the log shows it like any play, to undo), and the card takes its zone's seat.

        Why: a covered card the camera missed (a back in a pile, one on top of a card played before) gave
        its seat's turn to the next card, and every later card of the hand took the wrong seat: 5 of the
        20 hands lost to a missed play on the held-out rendered sessions with a table that answers, which
        no question fixed (a card's seat is not asked about, see answers.CARD_DOUBTS)."""
        if (head.source != "vision" or head.event.get("type") != "play" or head.event.get("covered")
                or "wrong_seat" not in head.flags or head.zone in (None, CENTRE)):
            return
        view = view_of(self.game, self.first_dealer)
        due = view.turn
        if due is None or len(view.turns) != 1 or head.zone == due or not view.face_down_ok:
            return
        covered = {"type": "play", "seat": due, "covered": True}
        trial = copy.deepcopy(self.game)
        try:
            trial.apply(covered)
            if view_of(trial, self.first_dealer).turn != head.zone:
                return
            trial.apply({**head.event, "seat": head.zone})
        except illegal_error():
            return
        if not self._put_before(head, covered, "unseen", f"seat {due}'s card was never seen and the next card "
                                f"lies in seat {head.zone}'s zone: taken for a face-down card", "timeout"):
            return
        head.event["seat"] = head.zone
        head.flags = [f for f in head.flags if f != "wrong_seat"]

    def _put_before(self, card: Proposal, event: dict[str, Any], flag: str, why: str, by: str) -> bool:
        """An event nobody saw or heard, that camera ``card`` says happened, into the log just before it (dated a
        millisecond earlier, flagged ``flag``: the log shows it like any event, to undo).  False: the engine
        refuses it."""
        self._ids += 1
        made = Proposal(event, card.t - 1e-3, 0.0, "vision", [flag], why, True, self.now, self._ids)
        try:
            outcomes = self.log.record(event, source="vision")
        except illegal_error():
            return False
        self._applied_now(made, outcomes, by)
        return True

    def _zone_misses(self, order: list[Proposal]) -> tuple[int, list[int]] | None:
        """Plays in this order from the applied game: how many lie outside the zone of the seat
        the engine gives them, and those seats (None: the engine refuses the order)."""
        game = copy.deepcopy(self.game)
        misses, seats = 0, []
        for prop in order:
            view = view_of(game, self.first_dealer)
            seat = prop.zone if prop.zone is not None and prop.zone in view.turns else view.turn
            if seat is None:
                return None
            try:
                game.apply({**prop.event, "seat": seat})
            except illegal_error():
                return None
            misses += prop.zone not in (None, CENTRE) and prop.zone != seat
            seats.append(seat)
        return misses, seats

    def settles(self, prop: Proposal) -> bool:
        """Whether a held ``prop`` is applied after ``settle_timeout`` unless answered (shown ``~``), rather
        than asked about: its only doubt is a weak reading with no possible rival, and settling is on."""
        return self.config.settle_timeout is not None and quiet_doubt(prop)

    def _settles_now(self, prop: Proposal, asked: bool = False) -> bool:
        """Whether a flagged ``prop`` goes into the log at once, still open (see :attr:`settling`);
        ``asked``: also when it is pending already (its doubt turned quiet while it waited)."""
        return (self.config.settle_at_once and self.settles(prop) and prop.source == "vision"
                and prop.event.get("type") in CARD_EVENTS and (asked or prop.id not in self.pending_since))

    def _close_settled(self) -> None:
        """Settling cards whose time is up are in the log for good."""
        for prop in self._settling:
            if prop.open_until is not None and self.now > prop.open_until:
                prop.open_until = None
        self._settling = [p for p in self._settling if p.open_until is not None]

    def _hold(self, prop: Proposal) -> None:
        if prop.id not in self.pending_since:
            self.pending_since[prop.id] = self.now
            self._changed()
            if self.settles(prop):
                self.say(f"~ {prop.describe()} -- applied in {self.config.settle_timeout:g} s unless rejected")
            elif "wrong_seat" in prop.flags and prop.event.get("type") == "play" and prop.zone not in (None, CENTRE):
                # the card of the seat due may be the one the camera missed: the table types it, and the held
                # card then takes its zone's seat (see _zone_due_now)
                due = prop.event.get("seat")
                self.say(f"? {prop.describe()} -- confirm, reject, or, if the camera missed seat {due}'s card, "
                         f"type it (play {due} CARD)")
            else:
                self.say(f"? {prop.describe()} -- confirm or reject")
            self._emit("pending", proposal=prop)

    def _try_apply(self, prop: Proposal, by: str) -> bool:
        if prop.retakes is not None:
            self._retake(prop)
        self._seat_by_turn(prop)
        try:
            outcomes = self.log.record(prop.event, source=prop.source)
        except illegal_error() as err:
            if self._close_again(prop, by) or self._before_last(prop, by) or self._dealt_already(prop):
                return True
            if self._implied_by_play(prop):  # a decision nobody was heard making went in: now the card
                self._applied_now(prop, self.log.record(prop.event, source=prop.source), by)
                return True
            if "illegal" not in prop.flags:
                prop.flags.append("illegal")
                prop.reason = (prop.reason + "; " if prop.reason else "") + str(err)
            if by == "timeout":
                return False
            self._hold(prop)
            return False
        self._applied_now(prop, outcomes, by)
        return True

    def _implied_by_play(self, prop: Proposal) -> bool:
        """A camera card the engine refuses, because the table decided something nobody was heard saying:
        the team at mão de onze (de dez...) plays the hand, or the open truco was accepted.  When the card
        goes in after that decision, the decision goes in (flagged ``inferred``, to undo like any event)
        and True is returned: the card follows, for the seat due.

        Why: a team at mão de onze looks at its cards and plays or runs, and a table that plays on says so
        with its first card; nobody says "vamos jogar" every time.  An open truco is accepted, refused
        (the hand ends, no card follows) or raised (said aloud); a card put down while it waits means the
        "aceito" was not heard -- a loud table, a word the recogniser missed.  Without this, every card
        of a rendered Mineiro hand was refused for having no seat due when the decision was not heard, and
        a card refused while a truco waited shifted every later card to the wrong seat.  Running, refusing
        and raising are never inferred: they are said, or typed.  Tried only after the other readings of a
        refused card (a call heard before a card put down earlier, see _before_last)."""
        if prop.source != "vision" or prop.event.get("type") != "play":
            return False
        view = view_of(self.game, self.first_dealer)
        if not view.in_hand:
            return False
        if not view.turns:
            wanted = ("eleven", "play")
        else:
            # (the engine's whole state is read only here: the open bets matter only with turns to play)
            bets = state_dict(self.game).get("open_bets") or []
            if not bets or any(b.get("kind") != "truco" for b in bets):
                return False
            wanted = ("accept", None)
        decision = next((e for e in self.game.legal_events() if e.get("type") == wanted[0]
                         and (wanted[1] is None or e.get("decision") == wanted[1])), None)
        if decision is None:
            return False
        trial = copy.deepcopy(self.game)
        try:
            trial.apply(dict(decision))
            seat = seat_due(trial, prop.event, self.first_dealer)
            play = {**prop.event, **({"seat": seat} if seat is not None else {})}
            trial.apply(dict(play))
        except illegal_error():
            return False
        why = (f"a card was put down: team {decision['team']} plays the hand" if wanted[0] == "eleven"
               else f"a card was put down while the truco waited: seat {decision['seat']} accepted")
        if not self._put_before(prop, dict(decision), "inferred", why, "auto"):
            return False
        prop.event = play
        prop.flags = [f for f in prop.flags if f not in ("no_turn", "illegal")]
        return True

    def _dealt_already(self, prop: Proposal) -> bool:
        """The camera's deal of a hand without a vira (its first card) that a call opened first: the
        hand runs and no card is in it yet.  It is the same deal, so it is set aside, not asked about
        (asked, it held every card behind it for ``pending_timeout``)."""
        if prop.source != "vision" or prop.event.get("type") != "hand" or "vira" in prop.event:
            return False
        view = view_of(self.game, self.first_dealer)
        last = next((a for a in reversed(self.applied) if a.event.get("type") == "hand"), None)
        if not view.in_hand or view.cards_this_hand or last is None or last.proposal is None \
                or last.proposal.source == "vision":
            return False
        self._unqueue(prop)
        self.say("the first card's deal: the hand was opened already by a call")
        return True

    def _close_again(self, prop: Proposal, by: str) -> bool:
        """A hand the camera closes (a new deal began, or the table was cleared, while the engine still
        ran it) whose closing event no longer fits: it was worked out when the proposal was made, and
        what went in since changed the hand.  It is worked out again for the hand as it is now.

        Why: a refusal of the open truco, proposed while that truco waited, was refused by the engine
        once the truco had been accepted; the hand never closed, and the new deal's cards and calls
        went into it (a rendered Argentine session under ``--noise hard``: three hands lost)."""
        if prop.source != "vision" or not {"new_deal", "table_cleared"} & set(prop.flags):
            return False
        view = view_of(self.game, self.first_dealer)
        event = closing_event(view) if view.in_hand else None
        if event is None or event == prop.event:
            return False
        try:
            outcomes = self.log.record(event, source=prop.source)
        except illegal_error():
            return False
        prop.reason = (prop.reason + "; " if prop.reason else "") + f"the hand had changed: {describe_event(event)}"
        prop.event = event
        self._applied_now(prop, outcomes, by)
        return True

    def _retake(self, prop: Proposal) -> None:
        """The card ``prop`` names was put in earlier in this hand for another card, which the tracker
        judged the misread (see companion.table.amend): that card is renamed and the hand after it goes
        in again (the log shows the undos), before ``prop`` goes in.  When the renamed hand does not go
        in, ``prop`` takes its own next reading instead (``retakes[1]``), as before this existed."""
        card = prop.event.get("card")
        name, instead = prop.retakes or (None, None)
        prop.retakes = None
        if not card or name is None or hand_tail(self.game, card) is None:
            return  # renamed or undone meanwhile: nothing to take back
        again = rename_in_hand(copy.deepcopy(self.game), card, name, self.first_dealer)
        if again is None:
            if instead is not None:
                prop.event = {**prop.event, "card": instead}
                prop.reason = (prop.reason + "; " if prop.reason else "") + f"{card} could not be taken back"
            return
        self._put_again(again, f"{card} went in earlier for another card, read {card} less surely: that one is {name}")

    def _rename(self, prop: Proposal) -> None:
        """The tracker read a card of the running hand as another since it went in (``prop.event``:
        ``{"type": "rename", "card": X, "name": Y}``): X is renamed Y and the hand goes in again
        after it (the log shows the undos), unless the table confirmed or typed X, the renamed hand
        does not go in, or it puts more of its camera plays outside their seats' zones.  Nothing else
        goes in."""
        card, name = prop.event["card"], prop.event["name"]
        prop.settled = True
        self._changed()
        for entry in self._running_hand():
            if entry.event.get("card") == card and entry.by_table:
                return  # the table said what this card is: the camera does not overrule it
        gain = self._zone_gain(self.game, card, name, [])
        if gain is None or gain[0] < 0:
            return
        self._put_again(gain[1], f"{card} read as {name} since it went in: renamed")

    def _put_again(self, again: list[dict[str, Any]], why: str, undo: int | None = None,
                   first_by: str = "amend") -> None:
        """The running hand's last ``undo`` events (default ``len(again)``) undone in the log and
        ``again`` recorded in their place (companion.table.amend worked them out on a copy): the log
        shows the undos.  ``first_by``: how the first event put in again is marked (``confirm``: the
        table named it, and the camera does not rename it)."""
        count = len(again) if undo is None else undo
        # the events undone, first first: ``again`` stands for the last of them (a card taken out leaves the
        # first of them out), each carrying the proposal of the event it replaces
        undone = list(islice(self._live(), count))[::-1]
        for _ in range(count):
            self.log.undo(source="amend")
            self.applied.append(Applied({"type": "undo"}, None, self.now, time.perf_counter(), [], "amend"))
        self.say(why)
        for k, event in enumerate(again):
            outcomes = self.log.record(event, source="amend")
            by = first_by if k == 0 else "amend"
            entry = Applied(dict(event), None, self.now, time.perf_counter(), list(outcomes or []), by)
            replaced = k + len(undone) - len(again)
            if 0 <= replaced < len(undone):
                entry.carried = undone[replaced].origin
                entry.carried_by = None if by == "confirm" else undone[replaced].how
            self.applied.append(entry)
            self._emit("applied", entry=entry)
        self._changed()

    def retake_fits_zones(self, game: Any, card: str, name: str, zone: int | None) -> bool:
        """Whether renaming ``card`` to ``name`` in the running hand of ``game`` puts the camera's plays
        after it, and a card now put down in ``zone``, outside the zone of the seat the engine gives
        them at least two plays fewer (the tracker asks, through ``TableView.retake_fits``, when two
        cards were read alike, both surely).

        Why: the readings cannot say which card is misread, but the seats can.  A misread trick
        winner (an ace, a manilha under the vira, read as a 7) gives the next trick's lead to the
        wrong seat, and every later card then lies in the zone of the seat beside the one the engine
        names.  Measured on a rendered four-player Clean-28 hand: four plays in a row outside their
        seats' zones, none after the renaming; on both seeds' recorded streams it was asked four
        times and said yes once, the one time the earlier card was the misread."""
        gain = self._zone_gain(game, card, name, [(zone, None)])
        return gain is not None and gain[0] >= 2

    def _zone_gain(self, game: Any, card: str, name: str | None,
                   held: list[tuple[int | None, dict[str, Any] | None]],
                   held_after: list[tuple[int | None, dict[str, Any] | None]] | None = None,
                   ) -> tuple[int, list[dict[str, Any]]] | None:
        """How many fewer of the running hand's camera plays after ``card``, and of the cards now put down
        (``held``: see :meth:`_misses_after`), lie outside the zone of the seat the engine gives them once
        ``card`` is renamed ``name`` (None: once its play is taken out, itself counted; ``held_after``: the
        cards put down that still count after the change, when one of them was ``card`` seen again), and the events
        the changed hand goes in again with (:func:`rename_in_hand`'s or :func:`drop_from_hand`'s, for
        :meth:`_put_again`).  None: ``card`` is not in the running hand, or the changed hand does not go in."""
        tail = hand_tail(game, card)
        if tail is None:
            return None
        changed = copy.deepcopy(game)
        if name is None:
            again = drop_from_hand(changed, card, self.first_dealer)
            first = 0  # the card taken out counts: it lay outside its seat's zone, or it did not
        else:
            again = rename_in_hand(changed, card, name, self.first_dealer)
            first = 1
        if again is None:
            return None
        zones = self._hand_zones()
        return (self._misses_after(game, tail[first:], zones, held)
                - self._misses_after(changed, again[first:], zones, held if held_after is None else held_after)), again

    def _misses_after(self, after: Any, plays: list[dict[str, Any]], zones: dict[str, int],
                      held: list[tuple[int | None, dict[str, Any] | None]]) -> int:
        """How many of ``plays`` lie outside the zone of the seat they went in for (``zones``: card -> zone),
        plus how many of the cards now put down (``held``: (zone, play), in the order they were seen) would
        go in for another seat than their zone's in ``after``, each in turn (a play of None: the last one
        counted).  A card that cannot go in, and each card after it, counts as outside: a renaming that
        ends the hand, or names a card the camera sees elsewhere, does not explain the cards put down.

        Why the cards after the first: a late re-read that hands a trick to the wrong seat is seen in the
        next trick, one card each: the first card held alone shows one card off, as a card put down out of
        turn would (the traced Mineiro hand of seed 253: seat 0's face-down card and 5H, in seats 0's and
        1's zones, went in for seats 2 and 3)."""
        misses = plays_outside_zones(plays, zones)
        trial = after
        for k, (zone, play) in enumerate(held):
            if zone in (None, CENTRE):
                break
            view = view_of(trial, self.first_dealer)
            if not view.in_hand:
                misses += len(held) - k  # a hand over: no card put down after it is a play of the zone's seat
                break
            seat = zone if zone in view.turns else view.turn
            if seat is None:
                break  # (a call waits for its answer: nobody plays yet)
            if play is not None:
                if trial is after:
                    trial = copy.deepcopy(after)
                try:
                    trial.apply({**play, "seat": seat})
                except illegal_error():
                    misses += len(held) - k  # this card cannot go in (already out, say), nor those after it
                    break
            misses += zone != seat
        return misses

    def _live(self) -> Iterator[Applied]:
        """What is in the log now, latest first: each undo takes out the latest event still in before it
        (an amend's undos take out the events it puts in again)."""
        undone = 0
        for entry in reversed(self.applied):
            if entry.event.get("type") == "undo":
                undone += 1
            elif undone:
                undone -= 1
            else:
                yield entry

    def running_hand(self) -> tuple[float, list[dict[str, Any]]] | None:
        """The running hand as the log holds it: the stream time of its deal (when the camera first saw it,
        else when it went in) and its events since, oldest first (None: no hand yet).  The table that answers
        (companion.table.answers) takes no card put down before the deal for one of this hand's."""
        deal, since = self._since_deal()
        if deal is None:
            return None
        prop = deal.proposal or deal.carried
        return (prop.t if prop is not None else deal.stream_t), [entry.event for entry in reversed(since)]

    def _since_deal(self) -> tuple[Applied | None, list[Applied]]:
        """The running hand's deal in the log (None: no hand yet) and what is in the log since it, latest
        first.  One walk serves both: the fusion's own checks want the entries, the answering table the deal
        too (a hand is a dozen entries, so the list costs nothing beside the walk)."""
        since: list[Applied] = []
        for entry in self._live():
            if entry.event.get("type") == "hand":
                return entry, since
            since.append(entry)
        return None, since

    def _running_hand(self) -> Iterator[Applied]:
        """What is in the log since the running hand's deal, latest first (the deal not included)."""
        return iter(self._since_deal()[1])

    def _hand_zones(self) -> dict[str, int]:
        """The zone each face-up camera play of the running hand lies in, by card: the applied ones (back
        to the hand's deal) and those still queued."""
        zones: dict[str, int] = {}
        for prop in self.queue:
            card = prop.event.get("card")
            if prop.source == "vision" and card and prop.zone is not None:
                zones[card] = prop.zone
        for entry in self._running_hand():
            prop = entry.origin
            card = entry.event.get("card")
            if prop is not None and prop.source == "vision" and card and card not in zones and prop.zone is not None:
                zones[card] = prop.zone
        return zones

    def _seat_by_turn(self, prop: Proposal) -> None:
        """A card the camera saw goes in for a seat due to play when it is applied.

        The tracker names the seat from the turn order when it proposes the card;
        a card held for a doubt may be applied seconds later, after the cards
        behind it, and its seat is then stale.  Measured on a rendered Clean-28
        hand: a card held 20 s went in for a seat whose turn had passed, and the
        variant's out-of-turn rule ("loses the game") ended the game with the
        hand half played; every later hand was lost.  A camera cannot tell who
        played out of turn (a typed event still can), so the seat follows the turn.
        """
        seat = self.due_seat(self.game, prop)
        if seat is None:
            return
        old, prop.event["seat"] = prop.event["seat"], seat
        prop.reason = (prop.reason + "; " if prop.reason else "") + f"seat {old}'s turn had passed: seat {seat}"

    def due_seat(self, game: Any, prop: Proposal) -> int | None:
        """The seat a camera-seen play goes in for in ``game`` when its own seat is not due (None: it is,
        or it is no such play).  The projection the tracker sees uses it too: a stale seat there
        would be an out-of-turn play, which a Clean-28 game punishes by ending the game, and the
        tracker ignores every card put down in a game that is over (measured on a rendered
        Clean-28 session: two plays of a hand never proposed)."""
        return seat_due(game, prop.event, self.first_dealer) if prop.source == "vision" else None

    def _unqueue(self, prop: Proposal) -> None:
        """``prop`` is settled (applied, dropped or set aside): out of the queue and no longer pending."""
        prop.settled = True
        if prop in self.queue:
            self.queue.remove(prop)
        self.pending_since.pop(prop.id, None)
        self._changed()

    def _applied_now(self, prop: Proposal, outcomes: Any, by: str) -> None:
        self._unqueue(prop)
        if prop.source == "vision" and "new_deal" in prop.flags:
            self._swept_close = prop.t
        elif prop.event.get("type") == "hand":
            self._swept_close = None  # the next deal is in: words behind it need no moving any more
        if prop.source == "vision" and {"new_deal", "table_cleared"} & set(prop.flags):
            # the camera closed the hand: its other question whether the hand is over has its answer
            for other in [p for p in self.queue if "table_cleared" in p.flags]:
                self._drop(other, "the hand is closed")
        entry = Applied(dict(prop.event), prop, self.now, time.perf_counter(), list(outcomes or []), by)
        self.applied.append(entry)  # (the game changed with the log's record: _unqueue marked it)
        self.say(f"{describe_event(prop.event)}" + ("" if by == "auto" else f" [{by}]"))
        for outcome in outcomes or []:
            text = getattr(outcome, "text", "")
            if text:
                self.say(f"  {text}")
        self._emit("applied", entry=entry)
        if prop.source == "vision" and {"new_deal", "table_cleared"} & set(prop.flags):
            self._close_rest(prop, by)

    def _close_rest(self, prop: Proposal, by: str) -> None:
        """A deal the camera closed is closed whole.  A six-player pica-pica deal is three duels, and
        the closing event (a fold, a refusal) ends only the duel of the seat it names: the deal ran on,
        the next deal's first card was illegal, and its cards went into the duels still open (a rendered
        Argentine table lost the next hand).  Each duel still open gets its own closing event."""
        deal = view_of(self.game, self.first_dealer).hand_number
        for _ in range(2):  # (at most three duels)
            view = view_of(self.game, self.first_dealer)
            if not view.in_hand or view.hand_number != deal:
                return
            event = closing_event(view)
            try:
                outcomes = self.log.record(event, source=prop.source)
            except illegal_error():
                return
            entry = Applied(dict(event), prop, self.now, time.perf_counter(), list(outcomes or []), by)
            self.applied.append(entry)
            self.say(f"{describe_event(event)}, the deal's other duel" + ("" if by == "auto" else f" [{by}]"))
            self._emit("applied", entry=entry)

    def _before_last(self, prop: Proposal, by: str) -> bool:
        """A card recognised late after a call heard on time: the engine
        refuses the card only because the call went in first.  If the card is
        legal before the call and the call still means something after it
        (its words interpreted again: "truco" belongs to whoever may say it
        then), the call is undone and both go in that order; the log shows the
        undo."""
        if not self.applied:
            return False
        last = self.applied[-1]
        other = last.proposal
        if (other is None or other.source == prop.source or prop.source != "vision"
                or last.event.get("type") in ("undo", "hand") or prop.event.get("type") == "hand"
                or abs(prop.t - other.t) > self.config.reorder_window):
            return False
        trial = copy.deepcopy(self.game)
        try:
            trial.undo()
            trial.apply(dict(prop.event))
        except illegal_error():
            return False
        redo = [dict(last.event)]
        if other.said and self.interpreter is not None:
            obs = self.interpreter(other.t, other.said, trial, False, other.source)
            redo = [dict(e.get("event", e)) for e in obs.events if e.get("decision", "apply") != "ignore"]
        try:
            for event in redo:
                trial.apply(dict(event))
        except illegal_error():
            return False
        if not redo:
            return False
        self.log.undo(source="reorder")
        self.applied.append(Applied({"type": "undo"}, None, self.now, time.perf_counter(), [], "reorder"))
        self.say(f"{describe_event(prop.event)} came before {describe_event(last.event)}: reordered")
        first = self.log.record(prop.event, source=prop.source)
        self._applied_now(prop, first, by)
        for event in redo:
            again = self.log.record(event, source=other.source)
            entry = Applied(event, other, self.now, time.perf_counter(), list(again or []), "reorder")
            self.applied.append(entry)
            self._emit("applied", entry=entry)
        self._changed()
        return True

    # --- human answers ------------------------------------------------------------------------
    def _pick(self, pid: int | None) -> Proposal | None:
        pend = self.pending
        if pid is None:
            return pend[0] if pend else None
        return next((p for p in pend if p.id == pid), None)

    def _pick_settling(self, pid: int | None) -> Proposal | None:
        """The settling card an answer is about when nothing pending is: the latest, or the one ``pid`` names."""
        open_ = self.settling
        if pid is None:
            return open_[0] if open_ else None
        return next((p for p in open_ if p.id == pid), None)

    def confirm(self, by: str = "key", pid: int | None = None) -> bool:
        """Apply a pending proposal (the oldest unless ``pid`` names one).  An
        illegal one stays pending (the engine's message is shown) unless the
        timeout resolves it.  With none pending, a settling card (in the log
        already) is confirmed: closed, and the camera never renames it."""
        prop = self._pick(pid)
        if prop is None:
            settling = self._pick_settling(pid)
            if settling is not None:
                self._close(settling, "confirm")
                self.say(f"confirmed: {describe_event(settling.event)} [{by}]")
                return True
            self.say("nothing to confirm")
            return False
        if prop.event.get("seat") == -1:
            self.say("this card has no seat: type the event instead")
            if by == "timeout":
                self._drop(prop, by)
            return False
        ok = self._try_apply(prop, "confirm" if by != "timeout" else "timeout")
        if not ok and by == "timeout":
            ok = self._next_legal_reading(prop)
        if not ok:
            if by == "timeout":
                self._drop(prop, by)
            else:
                self.say(f"cannot apply: {prop.reason}")
        return ok

    def _next_legal_reading(self, prop: Proposal) -> bool:
        """Unattended: a camera card the engine refuses under its reading (already out in the hand)
        goes in under the first of its other readings the engine takes, as a table answering from the
        readings offered would; False (its reading as it was) when none goes in, or when the table itself
        named that card where it lies (:meth:`_named_by_table`: the card seen again, dropped).

        Why: a card refused at the timeout was dropped, and the seat due to play never got its card:
        every later card of the hand went to the wrong seat (a rendered six-player Argentine hand,
        seed 11: a 10C read 2B, 2B already out, its first other reading the 10C)."""
        if (prop.source != "vision" or prop.event.get("type") not in CARD_EVENTS or prop.event.get("covered")
                or not prop.alternatives):
            return False
        key = card_key(prop.event)
        first = prop.event[key]
        if self._named_by_table(prop, first):
            prop.reason = (prop.reason + "; " if prop.reason else "") + f"the table named this {first} already"
            return False
        for name in list(prop.alternatives):
            _take_reading(prop, name)
            if self._try_apply(prop, "timeout"):
                prop.reason = (prop.reason + "; " if prop.reason else "") + f"went in as its next reading {name}"
                return True
        _take_reading(prop, first)
        return False

    def _named_by_table(self, prop: Proposal, card: str) -> bool:
        """Whether ``card`` went into the running hand as the table's word (typed or confirmed) after ``prop`` was
        first seen, for the seat whose zone ``prop`` lies in: ``prop`` is then that card seen again, no new play.

        Why: asked about a card, a table rejects the reading and types the card as it lies; the camera, still
        looking at it, proposes it again under the name typed, for the seat due (its zone another's).  Put in
        under its next reading at the timeout, it was a play nobody made, and the hands after it were lost
        (rendered answered sessions of seeds 442 and 444, session 66: a 3H and a 2H of the one-pip deck)."""
        if prop.event.get("type") != "play" or not isinstance(prop.zone, int) or prop.zone < 0:
            return False
        return any(entry.event.get("type") == "play" and entry.event.get("card") == card
                   and entry.event.get("seat") == prop.zone and entry.by_table
                   and entry.stream_t >= prop.t for entry in self._running_hand())

    def choose(self, index: int, by: str = "key", pid: int | None = None) -> bool:
        """Confirm a pending card (a play, or a new hand's vira) under one of
        its other readings (1 = the first alternative shown), or a call both
        teams could have made for another of the seats that could have made it
        ("who said it? [or 1: seat 0, 2: seat 2]": one microphone cannot tell
        voices apart; rejecting and typing the call was the only way before,
        and a truco put in the wrong pica-pica duel sent that duel's cards to
        the wrong seats).  With nothing
        pending (or ``pid`` naming one), it names the latest impossible card
        shown (an alert: "! seat 5 plays JC (already out) [or 1: AC, 2: KC, 3: 7C]")
        instead: see :meth:`_name_alert`."""
        prop = self._pick(pid)
        if prop is None:
            settling = self._pick_settling(pid)
            if settling is not None and settling.alternatives:
                return self._rename_settling(settling, index, by)
            alert = self.nameable_alert(pid)
            if alert is not None:
                return self._name_alert(alert, index, by)
        if prop is None or not 1 <= index <= len(prop.alternatives):
            self.say("no such reading to choose")
            return False
        choice = prop.alternatives[index - 1]
        if prop.event.get("type") in CARD_EVENTS:
            _take_reading(prop, choice)
        else:  # a call both teams could have made: the seat that made it ("seat 2")
            prop.alternatives = [c for c in prop.alternatives if c != choice] + [seat_choice(prop.event["seat"])]
            prop.event = {**prop.event, "seat": chosen_seat(choice)}
        self._changed()
        return self.confirm(by, prop.id)

    def nameable_alert(self, pid: int | None = None) -> Proposal | None:
        """The alert a choice names: the one ``pid`` names, else the latest one shown.  Only a camera
        card with other readings, not named yet; it is named only while nothing waits (:meth:`_name_alert`).
        The window and the scoreboard offer the same one."""
        open_ = [a for a in self.alerts if not a.settled and a.alternatives and a.event.get("type") in CARD_EVENTS]
        if pid is not None:
            return next((a for a in open_ if a.id == pid), None)
        return open_[-1] if open_ else None

    def _name_alert(self, alert: Proposal, index: int, by: str) -> bool:
        """Put an impossible card in the log under one of its other readings, now (as if typed).

        Why: a card the camera reads as one already out, or one not in the
        deck, is never applied; its true name is often among its other
        readings (a 7C read as the JC played before, "or 3: 7C").  Left alone,
        the card is missing from the log and every later card of the hand goes
        to the wrong seat.  Only while nothing waits (it goes in now), for the
        seat due now (as any camera card: :meth:`_seat_by_turn`); the engine
        still judges the named card.
        """
        if not 1 <= index <= len(alert.alternatives):
            self.say("no such reading to choose")
            return False
        if self.pending:  # it goes in now: a card still waiting before it would go in after it
            self.say("answer the waiting card first")
            return False
        key = card_key(alert.event)
        named = Proposal({**alert.event, key: alert.alternatives[index - 1]}, alert.t, source=alert.source)
        seat = self.due_seat(self.game, named)  # the seat due now, as for any camera card
        if seat is not None:
            named.event["seat"] = seat
        if self.enter(named.event, by):
            alert.settled = True
            return True
        return False

    def reject(self, by: str = "key", pid: int | None = None) -> bool:
        """Drop a pending proposal (the oldest unless ``pid`` names one); with none pending, take a
        settling card out of the log (the hand goes in again without it)."""
        prop = self._pick(pid)
        if prop is None:
            settling = self._pick_settling(pid)
            if settling is not None:
                return self._take_out(settling, by)
            self.say("nothing to reject")
            return False
        prop.rejected_by = by  # the table's word (the tracker looks again at a vira the table rejected)
        self._drop(prop, by)
        return True

    def _close(self, prop: Proposal, resolved_by: str | None = None) -> None:
        """A settling card is in the log for good (``resolved_by``: how its log entry now reads)."""
        prop.open_until = None
        self._settling = [p for p in self._settling if p is not prop]
        if resolved_by is not None:
            entry = next((a for a in reversed(self.applied) if a.proposal is prop), None)
            if entry is not None:
                entry.resolved_by = resolved_by
        self._changed()

    def _take_out(self, prop: Proposal, by: str) -> bool:
        """The table rejected a settling card: its play leaves the running hand, and the plays after it
        go in again for the seats then due.  A vira cannot leave its hand: its other readings can be
        chosen, or the right one typed after an undo."""
        card = prop.event.get("card")
        again = drop_from_hand(copy.deepcopy(self.game), card, self.first_dealer) if card else None
        if again is None:
            self.say(f"cannot take {describe_event(prop.event)} out: choose another reading, or undo and type it")
            return False
        self._close(prop)
        # undone: the play and every event after it, which go in again without it
        self._put_again(again, f"rejected: {describe_event(prop.event)} taken out [{by}]", undo=len(again) + 1)
        self.rejected.append(prop)
        self._emit("rejected", proposal=prop)
        return True

    def _rename_settling(self, prop: Proposal, index: int, by: str) -> bool:
        """The table picked another reading of a settling card: it is renamed in the log (the hand goes in
        again after it), as confirmed by the table."""
        if not 1 <= index <= len(prop.alternatives):
            self.say("no such reading to choose")
            return False
        card, name = prop.event[card_key(prop.event)], prop.alternatives[index - 1]
        again = rename_in_hand(copy.deepcopy(self.game), card, name, self.first_dealer)
        if again is None:
            self.say(f"{card} cannot be {name} in this hand")
            return False
        self._close(prop)
        _take_reading(prop, name)
        self._put_again(again, f"{card} is {name} [{by}]", first_by="confirm")
        return True

    def _drop(self, prop: Proposal, by: str) -> None:
        self._unqueue(prop)
        self.rejected.append(prop)
        self.say(f"rejected: {prop.describe()} [{by}]")
        self._emit("rejected", proposal=prop)

    def undo(self, by: str = "key") -> bool:
        """Retract the last applied event (``undo`` goes into the log)."""
        if not any(a.event.get("type") != "undo" for a in self.applied):
            self.say("nothing to undo")
            return False
        try:
            outcomes = self.log.undo(source=by)
        except illegal_error() as err:
            self.say(f"cannot undo: {err}")
            return False
        entry = Applied({"type": "undo"}, None, self.now, time.perf_counter(), list(outcomes or []), "undo")
        self.applied.append(entry)
        self._changed()
        self.say("undone")
        self._emit("applied", entry=entry)
        return True

    def enter(self, event: dict[str, Any], by: str = "typed") -> bool:
        """Apply an event typed at the table, now, ahead of anything buffered."""
        if event.get("type") == "undo":
            return self.undo(by)
        try:
            outcomes = self.log.record(event, source=by)
        except illegal_error() as err:
            self.say(f"rejected typed event: {err}")
            return False
        entry = Applied(dict(event), None, self.now, time.perf_counter(), list(outcomes or []), "typed")
        self.applied.append(entry)
        self._changed()
        self.say(f"{describe_event(event)} [typed]")
        self._emit("applied", entry=entry)
        return True


def _event_of(item: dict[str, Any]) -> dict[str, Any]:
    """The engine event of one interpreted call (the matcher adds its confidence, decision, time...)."""
    if "event" in item and isinstance(item["event"], dict):
        return dict(item["event"])
    return {k: v for k, v in item.items() if k not in ("confidence", "decision", "t", "words", "seats")}


def _take_reading(prop: Proposal, name: str) -> None:
    """A camera card's proposal named ``name``, one of its other readings (which its old name joins)."""
    key = card_key(prop.event)
    prop.alternatives = [c for c in prop.alternatives if c != name] + [prop.event[key]]
    prop.event = {**prop.event, key: name}


def _text(words: Any) -> str:
    """Heard words as one string (a transcript's text, or a recogniser's timed words)."""
    return words if isinstance(words, str) else " ".join(getattr(w, "text", str(w)) for w in words)
